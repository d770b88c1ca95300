import Foundation
import TestSupport
import Testing

@testable import SharedWebCredentials

/// Two processes unlock a vault of an older format at once: each read the old row and derived its
/// key before either upgraded. The second to reach its write transaction finds the upgrade done
/// and keeps it, with everything written since; a key changed some other way meanwhile (a rekey,
/// a new passphrase) refuses its unlock and changes nothing.
@Suite("Unlock steps raced by another process")
struct UnlockStepRaceTests {
    typealias Support = VaultTestSupport

    /// A format-1 vault, and the row and keys a process had when it unlocked it (its storage
    /// opened, the row read, the key derived), before another process got in first.
    private func unlockedBeforeTheOther(_ path: String) throws -> (any VaultStorage, VaultMetadata, VaultKeys) {
        let keys = try LegacyVault.write(at: path)
        let storage = try Vault.openStorage(.file(path), configuration: VaultConfiguration())
        let row = try storage.read { db in try VaultMetadata.read(db, path: path, withEpoch: false) }
        return (storage, row, keys)
    }

    @Test("the upgrade found done by another process is kept, with the change and entry written since")
    func upgradedElsewhere() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.sqlite")
        let (storage, unlockedFrom, keys) = try unlockedBeforeTheOther(path)
        let other = try Support.open(path)
        try other.neverSave.mark("after.example")
        let entries = try other.audit.entries()
        let metadata = try storage.read { db in try VaultMetadata.read(db, path: path) }
        #expect(entries.count == 1 && metadata.formatVersion == VaultKeys.formatVersion)

        let found = try storage.write { db in
            try FormatUpgrade.run(db, unlockedFrom: unlockedFrom, keys: keys, path: path)
        }
        #expect(found.wrappedKey == metadata.wrappedKey && found.keyEpoch == metadata.keyEpoch)
        #expect(try other.audit.entries().map { $0.sequence } == entries.map { $0.sequence })
        let verification = try other.audit.verify()
        #expect(verification.isIntact, "\(String(describing: verification.problem))")
        let reopened = try Support.open(path)
        #expect(try reopened.neverSave.isMarked("after.example"))
        #expect(try reopened.credentials.find(server: "example.com").map(\.passwordText) == ["alice-pw", "bob-pw"])
    }

    @Test(
        "a rekey or a new passphrase by another process meanwhile refuses the unlock step; nothing changes",
        arguments: ["rekey", "passwd"])
    func keyChangedElsewhere(change: String) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.sqlite")
        let (storage, unlockedFrom, keys) = try unlockedBeforeTheOther(path)
        let other = try Support.open(path)
        if change == "rekey" {
            _ = try other.rotateKey()
        } else {
            try other.changePassphrase(to: SecureBytes(utf8: "another long passphrase 93"), parameters: Support.fastKDF)
        }
        let before = try storage.read { db in try VaultMetadata.read(db, path: path) }
        let refusal = failure {
            _ = try storage.write { db in
                try FormatUpgrade.run(db, unlockedFrom: unlockedFrom, keys: keys, path: path)
            }
        }
        #expect(refusal?.code == .vaultLocked, "\(String(describing: refusal))")
        #expect(
            refusal?.message.contains("Another process changed the key of \(path) while this one unlocked it") == true)
        let after = try storage.read { db in try VaultMetadata.read(db, path: path) }
        #expect(after.wrappedKey == before.wrappedKey && after.keyID == before.keyID)
        #expect(try other.audit.verify().isIntact)
    }
}
