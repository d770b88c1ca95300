import Foundation
import TestSupport
import Testing

@testable import SharedWebCredentials

/// Issue 13: `request` without a domain finds the app's credentials through blind indexes (exact
/// entries) and the parent-domain index (wildcards), without opening any other record.
@Suite("Requests without a domain: the parent-domain index")
struct DomainlessRequestTests {
    static let app = try! ApplicationIdentifier("ABCDE12345.com.example.app")
    static let entries = [
        "webcredentials:shop.example", "webcredentials:*.example.com", "webcredentials:pay.example:8443",
    ]

    let directory: TemporaryDirectory
    let vault: Vault
    let facade: SharedWebCredentials

    init() throws {
        directory = try TemporaryDirectory()
        vault = try VaultTestSupport.makeVault(in: directory)
        try vault.apps.register(Self.app, entitlements: Entitlements(strings: Self.entries), at: Date())
        try VaultTestSupport.approve(Self.app, for: Self.entries, in: vault)
        facade = SharedWebCredentials(app: Self.app, vault: vault, verifier: nil)
        let saved: [(String, Int?, String)] = [
            ("shop.example", nil, "alice"), ("example.com", nil, "bob"), ("a.example.com", nil, "carol"),
            ("deep.b.example.com", nil, "dave"), ("notexample.com", nil, "eve"), ("example.com.evil", nil, "frank"),
            ("pay.example", 8443, "gina"), ("pay.example", nil, "hank"), ("a.example.com", 8443, "ivan"),
        ]
        try vault.credentials.batch { batch in
            for (server, port, account) in saved {
                try batch.upsert(
                    server: server, port: port, account: account, password: SecureBytes(utf8: "pw-\(account)"))
            }
            for index in 0..<200 {
                try batch.upsert(server: "other\(index).test", account: "x", password: SecureBytes(utf8: "x"))
            }
        }
    }

    private func released(account: String? = nil) async throws -> [String] {
        try await facade.request(account: account).map { "\($0.server)\($0.port.map { ":\($0)" } ?? "") \($0.account)" }
    }

    @Test("exact entries, the wildcard's subdomains and the wildcard's bare domain; nothing else")
    func coverage() async throws {
        #expect(
            try await released() == [
                "a.example.com carol", "deep.b.example.com dave", "example.com bob", "pay.example:8443 gina",
                "shop.example alice",
            ])
        #expect(try await released(account: "bob") == ["example.com bob"])
        #expect(await VaultTestSupport.errorCode { _ = try await released(account: "eve") } == .itemNotFound)
    }

    @Test("records outside the app's domains are never opened: damaged ones elsewhere do not matter")
    func opensOnlyCandidates() async throws {
        let attacker = Attacker(path: vault.path)
        for index in 0..<100 {
            let serverIndex = vault.keys.serverIndex(try CredentialKey(server: "other\(index).test", port: nil))
            try attacker.execute(
                "UPDATE credentials SET sealed = zeroblob(length(sealed)) WHERE server_index = ?",
                arguments: [Data(serverIndex)])
        }
        #expect(try vault.credentials.verify().damaged == 100)
        #expect(
            failure { _ = try vault.credentials.servers() }?.code == .integrityFailure, "opening every record fails")
        #expect(try await released().count == 5)
    }

    @Test("a server's index rows go with its last credential, and come back with a new one")
    func maintenance() throws {
        let attacker = Attacker(path: vault.path)
        let before = try attacker.rows("SELECT * FROM credential_domains").count
        try vault.credentials.delete(server: "deep.b.example.com", account: "dave")
        #expect(try attacker.rows("SELECT * FROM credential_domains").count == before - 2)
        try vault.credentials.delete(server: "a.example.com", account: "carol")
        #expect(
            try attacker.rows("SELECT * FROM credential_domains").count == before - 3,
            "a.example.com:8443 keeps its own")
        try vault.items.set(server: "deep.b.example.com", account: "dave", password: SecureBytes(utf8: "again"))
        #expect(try attacker.rows("SELECT * FROM credential_domains").count == before - 1)
        try vault.verifyIntegrity()
        try vault.rotateKey()
        #expect(try attacker.rows("SELECT * FROM credential_domains").count == before - 1)
        try vault.verifyIntegrity()
    }

    @Test("an index row removed behind swcred's back is reported by the integrity check")
    func tamperedIndex() throws {
        try Attacker(path: vault.path).execute(
            "DELETE FROM credential_domains WHERE domain_index IN (SELECT domain_index FROM credential_domains LIMIT 1)"
        )
        let report = try vault.integrityReport()
        #expect(!report.parentDomainIndexMatches && !report.isIntact)
    }

    /// Issue 30's gap hunt: the keyed sum covers both columns of a row, so a row pointed at
    /// another server (hiding this one from requests without a domain), or filed under another
    /// parent domain, is reported even though the number of rows stays the same.
    @Test("an index row moved to another server or under another parent domain is reported", arguments: [1, 0])
    func movedIndexRow(column: Int) throws {
        let attacker = Attacker(path: vault.path)
        let rows = try attacker.rows("SELECT domain_index, server_index FROM credential_domains")
            .map { [$0[0] as Data, $0[1] as Data] }
        let existing = Set(rows)
        // A row and a value from another row that together make a pair not yet in the table.
        let (row, value) = try #require(
            rows.lazy.flatMap { row in rows.lazy.map { (row, $0[column]) } }
                .first { row, value in
                    var moved = row
                    moved[column] = value
                    return value != row[column] && !existing.contains(moved)
                })
        let name = column == 0 ? "domain_index" : "server_index"
        try attacker.execute(
            "UPDATE credential_domains SET \(name) = ? WHERE domain_index = ? AND server_index = ?",
            arguments: [value, row[0], row[1]])
        let report = try vault.integrityReport()
        #expect(!report.parentDomainIndexMatches && !report.isIntact, "\(name) changed")
    }

    @Test("the parent domains a server is indexed under")
    func parentDomains() {
        #expect(ParentDomains.domains(of: "a.b.example.com") == ["b.example.com", "example.com"])
        #expect(ParentDomains.domains(of: "example.com") == [])
        #expect(ParentDomains.domains(of: "localhost") == [])
        #expect(ParentDomains.domains(of: "192.168.0.1") == [])
        #expect(ParentDomains.domains(of: "::1") == [])
    }
}
