import Foundation
import Testing

@testable import SharedWebCredentials
@testable import TestSupport

/// A key rotation over a tampered audit log: it never blesses the tampering. An anchor replaced
/// behind swcred's back (it is outside the sealed state) goes through the rotation and fails after
/// it as before; a head replaced breaks the sealed state, which refuses the rotation and changes
/// nothing.
@Suite("Audit log: a rotation over a tampered head or anchor")
struct AuditRotationTamperTests {
    private func tamperedVault(_ column: String, in directory: TemporaryDirectory) throws -> (Vault, AuditVerification)
    {
        let vault = try VaultTestSupport.makeVault(in: directory)
        for host in ["one.example", "two.example", "three.example"] { try vault.neverSave.mark(host) }
        #expect(try vault.audit.verify().isIntact)
        try Attacker(path: vault.path).execute("UPDATE vault_meta SET \(column) = randomblob(72)")
        let found = try vault.audit.verify()
        #expect(!found.isIntact)
        return (vault, found)
    }

    @Test("an anchor replaced still fails after a rekey, and the rekey goes through")
    func tamperedAnchor() throws {
        let directory = try TemporaryDirectory()
        let (vault, before) = try tamperedVault("audit_anchor", in: directory)
        _ = try vault.rotateKey()
        let after = try vault.audit.verify()
        #expect(!after.isIntact, "the rotation blessed a tampered anchor")
        #expect(after.problem == before.problem, "\(String(describing: after.problem))")
        #expect(try vault.neverSave.hosts().count == 3, "the records went through the rotation")
    }

    @Test("a head replaced refuses the rekey, named, and nothing changes")
    func tamperedHead() throws {
        let directory = try TemporaryDirectory()
        let (vault, before) = try tamperedVault("audit_head", in: directory)
        let attacker = Attacker(path: vault.path)
        let metadata = try attacker.rows("SELECT * FROM vault_meta")
        let refusal = failure { _ = try vault.rotateKey() }
        #expect(refusal?.code == .integrityFailure)
        #expect(refusal?.message.contains("Nothing was changed; restore the vault from a backup.") == true)
        #expect(try attacker.rows("SELECT * FROM vault_meta") == metadata)
        #expect(try vault.audit.verify().problem == before.problem)
    }
}
