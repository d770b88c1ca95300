import Foundation
import GRDB
import TestSupport
import Testing

@testable import SharedWebCredentials

/// Issue 11, finding 2: a record written back from an older copy, a deleted record inserted again
/// and a record deleted behind swcred's back are all caught by the record commitment, while
/// every ordinary write keeps it in step.
@Suite("Record rollback and resurrection")
struct RecordRollbackTests {
    typealias Support = VaultTestSupport

    let directory: TemporaryDirectory
    let vault: Vault
    let attacker: Attacker

    init() throws {
        directory = try TemporaryDirectory()
        vault = try Support.makeVault(in: directory)
        attacker = Attacker(path: vault.path)
        for account in ["alice", "bob", "carol"] {
            try vault.credentials.upsert(
                server: "example.com", account: account, password: SecureBytes(utf8: "\(account)-first"))
        }
        try vault.neverSave.mark("blocked.example")
    }

    /// Every column of every credential row, as the attacker would save them.
    private func savedRows() throws -> [Row] {
        try attacker.rows("SELECT id, server_index, account_index, sealed, version FROM credentials")
    }

    private func putBack(_ rows: [Row]) throws {
        for row in rows {
            try attacker.execute(
                "INSERT OR REPLACE INTO credentials (id, server_index, account_index, sealed, version) VALUES (?, ?, ?, ?, ?)",
                arguments: StatementArguments((0..<5).map { row[$0] as DatabaseValue }))
        }
    }

    private func expectCaught(_ path: String) throws {
        let reopened = try Support.open(path)
        let report = try reopened.integrityReport()
        #expect(!report.recordSetMatchesCommitment)
        #expect(report.damagedCredentials == 0, "each record on its own still opens")
        let error = failure { try reopened.verifyIntegrity() }
        #expect(error?.code == .integrityFailure)
        #expect(error?.message.contains("rolled back") == true, "\(String(describing: error))")
    }

    @Test("ordinary writes keep the commitment: adds, updates, deletes, batches, markers, rekey, passwd")
    func writesKeepTheCommitment() throws {
        #expect(try vault.verifyIntegrity().credentialsChecked == 3)
        try vault.credentials.upsert(server: "example.com", account: "alice", password: SecureBytes(utf8: "second"))
        try vault.credentials.upsert(server: "example.com", account: "alice", password: SecureBytes(utf8: "second"))
        try vault.credentials.delete(server: "example.com", account: "bob")
        try vault.credentials.batch { batch in
            for index in 0..<50 {
                try batch.upsert(server: "bulk.example", account: "u\(index)", password: SecureBytes(utf8: "p\(index)"))
            }
            try batch.delete(server: "bulk.example", account: "u7")
            try batch.upsert(server: "bulk.example", account: "u8", password: SecureBytes(utf8: "changed"))
        }
        try vault.neverSave.mark("other.example")
        try vault.neverSave.clear("blocked.example")
        #expect(try vault.verifyIntegrity().credentialsChecked == 51)
        try vault.rotateKey()
        try vault.verifyIntegrity()
        try vault.changePassphrase(to: SecureBytes(utf8: "new passphrase"))
        try Support.open(vault.path, passphrase: "new passphrase").verifyIntegrity()
        let versions = try attacker.rows("SELECT version FROM credentials").map { $0[0] as Int64 }
        #expect(versions.allSatisfy { $0 >= 1 } && versions.contains(2), "updates bump the version")
    }

    @Test("a credential written back from an older copy opens on its own but fails the commitment")
    func rolledBackRecord() throws {
        let before = try savedRows()
        try vault.credentials.upsert(server: "example.com", account: "alice", password: SecureBytes(utf8: "second"))
        try putBack(before)
        // The old blob opens (its version is bound into its associated data, and came back with it) ...
        #expect(
            try vault.credentials.find(server: "example.com", account: "alice").map(\.passwordText) == ["alice-first"])
        // ... but the set of (id, version) pairs is no longer the one committed to.
        try expectCaught(vault.path)
        // A key rotation re-seals every record: it refuses to, rather than bless the rolled-back set.
        #expect(failure { try vault.rotateKey() }?.code == .integrityFailure)
    }

    @Test("an old blob under the current version number fails on its own: the version is in its associated data")
    func oldBlobNewVersion() throws {
        let before = try savedRows()
        try vault.credentials.upsert(server: "example.com", account: "alice", password: SecureBytes(utf8: "second"))
        for row in before {
            try attacker.execute(
                "UPDATE credentials SET sealed = ? WHERE id = ?",
                arguments: [row[3] as DatabaseValue, row[0] as DatabaseValue])
        }
        #expect(try vault.integrityReport().damagedCredentials == 1, "alice's old blob under version 2")
    }

    @Test("a deleted credential inserted again is caught")
    func resurrectedRecord() throws {
        let before = try savedRows()
        #expect(try vault.credentials.delete(server: "example.com", account: "bob"))
        try putBack(before)
        #expect(try vault.credentials.find(server: "example.com", account: "bob").count == 1)
        try expectCaught(vault.path)
    }

    /// The commitment's elements are keyed hashes of (id, version): with the id left out, every
    /// record at the same version would look alike, and one could stand in for another.
    @Test("a deleted credential brought back in place of another of the same version is caught")
    func swappedForADeletedRecord() throws {
        let before = try savedRows()
        #expect(try vault.credentials.delete(server: "example.com", account: "bob"))
        let remaining = try savedRows().map { $0[0] as Data }
        let bob = try #require(before.first { !remaining.contains($0[0] as Data) })
        #expect(before.allSatisfy { $0[4] as Int64 == 1 }, "all three at version 1")
        try attacker.execute("DELETE FROM credentials WHERE id = ?", arguments: [remaining[0]])
        try putBack([bob])
        try expectCaught(vault.path)
    }

    @Test("a credential deleted behind swcred's back is caught")
    func deletedBehindTheBack() throws {
        try attacker.execute("DELETE FROM credentials WHERE id IN (SELECT id FROM credentials LIMIT 1)")
        try expectCaught(vault.path)
    }

    @Test("a cleared never-save marker brought back is caught")
    func resurrectedMarker() throws {
        let marker = try #require(try attacker.rows("SELECT host_index, sealed_host, created_at FROM never_save").first)
        #expect(try vault.neverSave.clear("blocked.example"))
        try attacker.execute(
            "INSERT INTO never_save (host_index, sealed_host, created_at) VALUES (?, ?, ?)",
            arguments: StatementArguments((0..<3).map { marker[$0] as DatabaseValue }))
        try expectCaught(vault.path)
    }

    @Test("a commitment copied back from an older state, or altered, fails its MAC and stops every write")
    func commitmentTampering() throws {
        let old = try #require(try attacker.rows("SELECT record_commitment FROM vault_meta").first?[0] as Data?)
        try vault.credentials.delete(server: "example.com", account: "carol")
        var altered = old
        altered[0] ^= 1
        try attacker.execute("UPDATE vault_meta SET record_commitment = ?", arguments: [altered])
        #expect(try vault.integrityReport().recordSetMatchesCommitment == false)
        let error = failure {
            try vault.credentials.upsert(server: "example.com", account: "dave", password: SecureBytes(utf8: "pw"))
        }
        #expect(error?.code == .integrityFailure)
        #expect(error?.message.contains("record commitment") == true, "\(String(describing: error))")
        #expect(try vault.credentials.count() == 2, "nothing was written")
        // The genuine older commitment has a valid MAC but does not match today's records.
        try attacker.execute("UPDATE vault_meta SET record_commitment = ?", arguments: [old])
        try expectCaught(vault.path)
    }

    @Test("status --verify exits 9 on a rolled-back record and names the problem")
    func statusVerifyCommand() throws {
        let before = try savedRows()
        try vault.credentials.upsert(server: "example.com", account: "alice", password: SecureBytes(utf8: "second"))
        let clean = try SwcredProcess.run(
            ["status", "--verify", "--vault", vault.path], environment: ["SWCRED_PASSPHRASE": Support.passphrase])
        #expect(clean.status == 0, "\(clean.stderr)")
        #expect(clean.stdout.contains("record set:   matches its commitment"))
        try putBack(before)
        let caught = try SwcredProcess.run(
            ["status", "--verify", "--vault", vault.path], environment: ["SWCRED_PASSPHRASE": Support.passphrase])
        #expect(caught.status == 9, "\(caught.stdout) \(caught.stderr)")
        #expect(caught.stdout.contains("DOES NOT MATCH"))
        #expect(caught.stderr.contains("rolled back to an older copy"), "\(caught.stderr)")
    }
}
