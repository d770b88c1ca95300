import Foundation
import Testing

@testable import SharedWebCredentials

@Suite("Credential order: by server, port and account, as strings compare")
struct CredentialOrderTests {
    /// Account names whose order the eight-byte prefixes could get wrong: shared and shorter
    /// prefixes, NUL bytes, case, and non-ASCII names (one canonically equal to another, which
    /// Swift's string comparison counts as equal).
    static let accounts = [
        "alice", "alice@example.com", "alice@example.org", "alice@ex", "alice@e", "alic", "Alice",
        "user10@example.com", "user100@example.com", "user1@example.com", "ab", "ab\u{0}", "ab\u{0}c",
        "\u{e9}mile", "e\u{301}mile", "emile", "zo\u{eb}", "zoe", "\u{1F511}key", "~tilde", "",
    ]
    static let servers: [(String, Int?)] = [
        ("shop.example", nil), ("shop.example", 8443), ("shop.example", 80), ("a.corp.example", nil),
        ("corp.example", nil), ("xn--bcher-kva.example", nil),
    ]

    @Test("the order is exactly the tuple comparison's, equal names keeping their places")
    func matchesTupleComparison() {
        var generator = SeededGenerator(seed: 24)
        for round in 0..<200 {
            var credentials: [Credential] = []
            // Runs of one server (as rows of one blind index come), some servers twice.
            for _ in 0..<Int.random(in: 1...6, using: &generator) {
                let (server, port) = Self.servers.randomElement(using: &generator)!
                for _ in 0..<Int.random(in: 1...12, using: &generator) {
                    credentials.append(
                        Self.credential(server, port, Self.accounts.randomElement(using: &generator)!))
                }
            }
            if round.isMultiple(of: 2) { credentials.shuffle(using: &generator) }
            let expected = credentials.sorted {
                ($0.server, $0.port ?? 0, $0.account) < ($1.server, $1.port ?? 0, $1.account)
            }
            let sorted = CredentialOrder.sorted(credentials)
            #expect(sorted.map(ObjectIdentifier.init) == expected.map(ObjectIdentifier.init), "round \(round)")
        }
    }

    @Test("none and one credential come back as they are")
    func shortLists() {
        #expect(CredentialOrder.sorted([]).isEmpty)
        let one = Self.credential("shop.example", nil, "alice")
        #expect(CredentialOrder.sorted([one]).map(ObjectIdentifier.init) == [ObjectIdentifier(one)])
    }

    /// A credential whose password object identifies it in the sorted list.
    static func credential(_ server: String, _ port: Int?, _ account: String) -> Credential {
        Credential(
            scheme: .https, server: server, port: port, account: account, password: SecureBytes(utf8: "pw"),
            details: .none,
            created: Date(timeIntervalSince1970: 0), modified: Date(timeIntervalSince1970: 0))
    }
}

extension ObjectIdentifier {
    /// The identity of a credential's password object, which no other credential shares.
    fileprivate init(_ credential: Credential) { self.init(credential.password) }
}
