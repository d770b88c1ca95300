import Foundation
import GRDB
import TestSupport
import Testing

@testable import SharedWebCredentials

/// `swcred audit verify` on a vault whose audit table was edited behind swcred's back exits 9 and
/// names the first bad entry; gated commands run through the binary leave their entries.
@Suite("swcred audit on a tampered vault")
struct AuditCommandTests {
    static let app = try! ApplicationIdentifier("ABCDE12345.com.example.app")

    private func run(_ arguments: [String], vault: Vault) throws -> SwcredProcess.Result {
        try SwcredProcess.run(
            arguments + ["--vault", vault.path], environment: ["SWCRED_PASSPHRASE": VaultTestSupport.passphrase])
    }

    /// A vault with the app approved for shop.example and four owner entries after its app-add.
    private func seeded(in directory: TemporaryDirectory) throws -> Vault {
        let vault = try VaultTestSupport.makeVault(in: directory)
        try vault.apps.register(
            Self.app, entitlements: Entitlements(strings: ["webcredentials:shop.example"]), at: Date())
        try VaultTestSupport.approve(Self.app, for: ["webcredentials:shop.example"], in: vault)
        for account in ["a", "b", "c", "d"] {
            try vault.items.set(server: "shop.example", account: account, password: SecureBytes(utf8: "pw-\(account)"))
        }
        return vault
    }

    @Test("deleted, altered, swapped and truncated entries: exit 9 naming the first bad entry")
    func tampering() throws {
        let cases: [(String, [String], String)] = [
            ("deleted", ["DELETE FROM audit_log WHERE seq = 2"], "entry #3: entry #2 before it is missing"),
            (
                "altered", ["UPDATE audit_log SET operation = 'item-remove' WHERE seq = 3"],
                "entry #3 failed authentication"
            ),
            (
                "swapped",
                [
                    "UPDATE audit_log SET seq = 1000 WHERE seq = 2", "UPDATE audit_log SET seq = 2 WHERE seq = 3",
                    "UPDATE audit_log SET seq = 3 WHERE seq = 1000",
                ], "entry #2 failed authentication"
            ),
            ("truncated", ["DELETE FROM audit_log WHERE seq > 3"], "entries #4 to #5 were cut off the end"),
            (
                "emptied, the head copied over the anchor",
                ["DELETE FROM audit_log", "UPDATE vault_meta SET audit_anchor = audit_head"],
                "sealed anchor in /"
            ),
            (
                "emptied, the anchor copied over the head",
                ["DELETE FROM audit_log", "UPDATE vault_meta SET audit_head = audit_anchor"],
                "sealed head in /"
            ),
        ]
        for (name, statements, expected) in cases {
            let directory = try TemporaryDirectory()
            let vault = try seeded(in: directory)
            #expect(try run(["audit", "verify"], vault: vault).status == 0, "\(name): intact before")
            for statement in statements { try Attacker(path: vault.path).execute(statement) }
            let result = try run(["audit", "verify"], vault: vault)
            #expect(result.status == 9, "\(name): \(result.stderr)")
            #expect(result.stderr.contains(expected), "\(name): \(result.stderr)")
            #expect(result.stderr.components(separatedBy: "error:").count == 2, "one error, printed once")
        }
    }

    /// Issue 30: the whole log deleted with `sqlite3` and one sealed link copied over the other
    /// must not pass for an empty log, neither to `audit verify` nor to the writes that rely on it.
    @Test("the whole log erased and its head and anchor made equal: verify, status --verify and writes exit 9")
    func erasedLog() throws {
        for (column, source, what) in [
            ("audit_anchor", "audit_head", "anchor"), ("audit_head", "audit_anchor", "head"),
        ] {
            let directory = try TemporaryDirectory()
            let vault = try seeded(in: directory)
            try Attacker(path: vault.path).execute("DELETE FROM audit_log")
            try Attacker(path: vault.path).execute("UPDATE vault_meta SET \(column) = \(source)")
            let verify = try run(["audit", "verify"], vault: vault)
            #expect(verify.status == 9, "\(what): \(verify.stdout) \(verify.stderr)")
            #expect(verify.stderr.contains("sealed \(what)") && verify.stderr.contains("failed authentication"))
            let status = try run(["status", "--verify"], vault: vault)
            #expect(status.status == 9, "\(what): \(status.stdout) \(status.stderr)")
            // Pruning needs the whole chain; any other write needs an authentic head.
            let write =
                what == "anchor"
                ? try run(["audit", "prune", "--before", "2100-01-01"], vault: vault)
                : try run(["item", "set", "shop.example", "--account", "e", "--generate", "--yes"], vault: vault)
            #expect(write.status == 9, "\(what): \(write.stderr)")
            #expect(
                write.stderr.contains("nothing was changed") || write.stderr.contains("sealed head"), "\(write.stderr)")
        }
    }

    @Test("request and generate through the binary leave their entries: released, and refused with a code")
    func gatedThroughTheBinary() throws {
        let directory = try TemporaryDirectory()
        let vault = try seeded(in: directory)
        let released = try run(
            ["request", "--app", Self.app.description, "--domain", "shop.example", "--account", "b", "--offline"],
            vault: vault)
        #expect(released.status == 0 && released.stdout == "shop.example\tb\tpw-b\n", "\(released.stderr)")
        let refused = try run(
            ["request", "--app", Self.app.description, "--domain", "other.example", "--offline"], vault: vault)
        #expect(refused.status == 3, "\(refused.stderr)")
        let generated = try run(
            ["generate", "--app", Self.app.description, "--domain", "shop.example", "--offline"], vault: vault)
        #expect(generated.status == 0, "\(generated.stderr)")
        let listing = try run(["audit", "--app", Self.app.description, "--json"], vault: vault)
        let entries = try #require(try JSONSerialization.jsonObject(with: listing.stdoutData) as? [[String: Any]])
        #expect(entries.map { $0["operation"] as? String } == ["request", "request", "generate"])
        #expect(entries.map { $0["outcome"] as? String } == ["done", "refused", "done"])
        #expect(entries.map { $0["error"] as? String } == [nil, "missing-entitlement", nil])
        #expect((entries[0]["released"] as? [[String: String]]) == [["domain": "shop.example", "account": "b"]])
        #expect(try run(["audit", "verify"], vault: vault).stdout.contains("8 entries checked"))
    }
}
