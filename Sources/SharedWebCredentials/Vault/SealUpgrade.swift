import Foundation

/// Seals the state of a vault made before the state seal existed (key epoch 0), at its first
/// unlock after migration 0009, in one transaction: the grant set (``GrantSet``) of the apps,
/// verdicts and tokens as they are, the state seal (``StateSeal``), and the vault key re-wrapped
/// at epoch 1, which binds the epoch into the wrapped key's associated data.
///
/// Only the holder of the passphrase or key file can re-wrap the key, so setting `key_epoch` back
/// to 0 makes the key fail to unwrap: no one without it can make swcred seal a tampered state
/// again. The records must match their commitment first, as at every change of key.
enum SealUpgrade {
    /// Runs the upgrade inside the caller's write transaction; returns the new `vault_meta` row.
    static func run(
        _ db: any StoreWriter, unlockedFrom unlocked: VaultMetadata, keys: VaultKeys, path: String
    ) throws -> VaultMetadata {
        let (stored, doneElsewhere) = try VaultMetadata.readForUnlockStep(
            db, unlockedFrom: unlocked, keys: keys, path: path, isDone: { $0.keyEpoch > 0 })
        if doneElsewhere { return stored }  // another process sealed it while this one unlocked
        guard
            try RecordCommitment.compute(db, keys: keys).matches(RecordCommitment.load(db, keys: keys, path: path))
        else {
            throw SharedWebCredentialsError(
                .integrityFailure,
                "The records of \(path) do not match their sealed commitment, so its state was not sealed (nothing changed). Restore the vault from a backup."
            )
        }
        let sealed = Vault.metadata(for: keys, protection: stored.protection, epoch: 1)
        try sealed.write(db)
        try GrantSet.storeFirstUnsealed(db, keys: keys)
        try StateSeal.reseal(db, keys: keys, path: path)
        return sealed
    }
}
