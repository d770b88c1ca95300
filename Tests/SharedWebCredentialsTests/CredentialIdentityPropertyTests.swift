import Foundation
import PropertyBased
import TestSupport
import Testing

@testable import SharedWebCredentials

/// A credential's identity (scheme, server, port, account) through saves, updates, renames, finds
/// and deletions on a real SQLite vault, against a dictionary that models the rule: the server is
/// compared without case, the scheme's default port is no port, and everything else keeps two
/// credentials apart.
@Suite("Vault: a credential's identity over generated operations")
struct CredentialIdentityPropertyTests {
    /// An identity as a caller writes it: the server in any case, the port absent, the scheme's
    /// default, the other scheme's default, or another.
    struct Identity: Sendable, CustomStringConvertible {
        var scheme: CredentialScheme
        var server: String
        var port: Int?
        var account: String

        /// The identity by the written rule, apart from the code under test.
        var modelKey: String {
            "\(scheme)://\(server.lowercased()):\(port ?? scheme.defaultPort) \(account)"
        }
        var description: String { "\(scheme) \(server) \(port.map(String.init) ?? "-") \(account.debugDescription)" }
    }

    enum Operation: Sendable, CustomStringConvertible {
        case save(Identity, password: String)
        case delete(Identity)
        case rename(Identity, to: String)
        case find(Identity, byAccount: Bool)

        var description: String {
            switch self {
            case .save(let identity, let password): "save \(identity) \(password)"
            case .delete(let identity): "delete \(identity)"
            case .rename(let identity, let account): "rename \(identity) to \(account.debugDescription)"
            case .find(let identity, let byAccount): "find \(identity)\(byAccount ? "" : " (any account)")"
            }
        }
    }

    static let operations = Generator<[Operation], Shrink.None<[Operation]>>(run: { random in
        let accounts = ["alice", "Alice", "bob", "alice "]
        func identity() -> Identity {
            Identity(
                scheme: CredentialScheme.allCases.randomElement(using: &random)!,
                server: ["shop.example", "Shop.Example", "a.shop.example", "shop.example.evil"].randomElement(
                    using: &random)!,
                port: [nil, 443, 80, 8443].randomElement(using: &random)!,
                account: accounts.randomElement(using: &random)!)
        }
        return (0..<Int.random(in: 1...10, using: &random)).map { _ in
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<4: .save(identity(), password: ["Pw-1", "Pw-2"].randomElement(using: &random)!)
            case 4..<6: .delete(identity())
            case 6: .rename(identity(), to: accounts.randomElement(using: &random)!)
            default: .find(identity(), byAccount: Bool.random(using: &random))
            }
        }
    })

    @Test(
        "what find returns is what a model keyed by the identity holds, after any saves, updates, renames and deletions"
    )
    func findAgreesWithModel() async throws {
        let directory = try TemporaryDirectory()
        let vault = try VaultTestSupport.makeVault(in: directory)
        await propertyCheck(count: 60, input: Self.operations) { operations in
            // Each case starts from an empty vault, so a fixed seed repeats it alone.
            for credential in try vault.credentials.all() {
                try vault.credentials.delete(
                    server: credential.server, port: credential.port, scheme: credential.scheme,
                    account: credential.account)
            }
            var model: [String: (identity: Identity, password: String)] = [:]
            for operation in operations {
                switch operation {
                case .save(let identity, let password):
                    let outcome = try vault.credentials.upsert(
                        server: identity.server, port: identity.port, scheme: identity.scheme,
                        account: identity.account, password: SecureBytes(utf8: password))
                    let before = model[identity.modelKey]?.password
                    let expected: UpsertOutcome =
                        before == nil ? .added : before == password ? .unchanged : .updated
                    #expect(outcome == expected, "\(operation) in \(operations)")
                    model[identity.modelKey] = (before == nil ? identity : model[identity.modelKey]!.identity, password)
                case .delete(let identity):
                    let existed = try vault.credentials.delete(
                        server: identity.server, port: identity.port, scheme: identity.scheme,
                        account: identity.account)
                    #expect(
                        existed == (model.removeValue(forKey: identity.modelKey) != nil),
                        "\(operation) in \(operations)")
                case .rename(let identity, let account):
                    // The same site under the new account: refused when that is taken (or is
                    // this one), and when there is nothing to rename.
                    var renamed = identity
                    renamed.account = account
                    let code: SharedWebCredentialsError.Code? =
                        model[renamed.modelKey] != nil
                        ? .invalidInput : model[identity.modelKey] == nil ? .itemNotFound : nil
                    do {
                        try vault.credentials.batch {
                            try $0.rename(
                                server: identity.server, port: identity.port, scheme: identity.scheme,
                                account: identity.account, to: account)
                        }
                        #expect(code == nil, "\(operation) in \(operations)")
                    } catch let error as SharedWebCredentialsError {
                        #expect(error.code == code, "\(operation) in \(operations): \(error)")
                    }
                    if code == nil, let moved = model.removeValue(forKey: identity.modelKey) {
                        model[renamed.modelKey] = (renamed, moved.password)
                    }
                case .find(let identity, let byAccount):
                    let found = try vault.credentials.find(
                        server: identity.server, port: identity.port, scheme: identity.scheme,
                        account: byAccount ? identity.account : nil)
                    let site = identity.modelKey.prefix { $0 != " " }
                    let expected = model.filter { key, _ in
                        byAccount ? key == identity.modelKey : key.prefix { $0 != " " } == site
                    }
                    #expect(
                        Set(found.map { "\($0.account) \($0.password.exposedString())" })
                            == Set(expected.values.map { "\($0.identity.account) \($0.password)" })
                            && found.count == expected.count,
                        "\(operation) in \(operations)")
                    #expect(
                        found.allSatisfy {
                            $0.scheme == identity.scheme && $0.server == identity.server.lowercased()
                                && $0.port == (identity.port == identity.scheme.defaultPort ? nil : identity.port)
                        }, "\(operation) in \(operations)")
                }
            }
            // At the end, every identity the model holds is found under it, and nothing else is held.
            for (key, entry) in model {
                let found = try vault.credentials.find(
                    server: entry.identity.server, port: entry.identity.port, scheme: entry.identity.scheme,
                    account: entry.identity.account)
                #expect(
                    found.map { "\($0.account) \($0.password.exposedString())" }
                        == ["\(entry.identity.account) \(entry.password)"], "\(key) after \(operations)")
            }
            #expect(try vault.credentials.count() == model.count, "\(operations)")
        }
    }
}
