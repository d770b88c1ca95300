import Foundation
import GRDB

/// Upgrades a vault of format 1 (the first release) to format 2 in place, at its first unlock, in
/// one transaction: every credential is re-sealed with version 1 bound into its associated data,
/// every never-save marker is re-sealed, every app and verdict gets its MAC, the record commitment
/// is computed, and the vault key is re-wrapped with format 2 bound into its associated data.
/// If any record fails authentication, nothing changes.
///
/// Only the holder of the vault key can do this, which is why it runs at unlock and not as a SQL
/// migration. Once the key is wrapped for format 2, setting `format_version` back to 1 makes the
/// key fail to unwrap (``VaultKeys/wrappedKeyAssociatedData(keyID:protection:format:)``), so no
/// one without the key can send an upgraded vault down this unauthenticated path again.
enum FormatUpgrade {
    /// Runs the upgrade inside the caller's write transaction; returns the new `vault_meta` row.
    static func run(
        _ db: Database, unlockedFrom unlocked: VaultMetadata, keys: VaultKeys, path: String
    ) throws
        -> VaultMetadata
    {
        let stored = try VaultMetadata.read(db, path: path)
        guard stored.keyID == unlocked.keyID, stored.wrappedKey == unlocked.wrappedKey else {
            if stored.formatVersion == VaultKeys.formatVersion, stored.keyID == unlocked.keyID,
                AuthenticatedEncryption.open(
                    stored.wrappedKey, key: keys.wrappingKey,
                    associatedData: VaultKeys.wrappedKeyAssociatedData(
                        keyID: stored.keyID, protection: stored.protection))
                    != nil
            {
                return stored  // another process upgraded it while this one unlocked
            }
            throw SharedWebCredentialsError(
                .vaultLocked,
                "Another process changed the key of \(path) while this one unlocked it; nothing was changed. Run the command again."
            )
        }
        let commitment = RecordCommitment.empty()
        try resealCredentials(db, keys: keys, commitment: commitment, path: path)
        try resealNeverSaveMarkers(db, keys: keys, commitment: commitment, path: path)
        try distrustVerdicts(db)
        try AuthenticatedRows.macAll(db, keys: keys)
        let upgraded = Vault.metadata(for: keys, protection: stored.protection)
        try upgraded.write(db)
        try commitment.store(db, keys: keys)
        return upgraded
    }

    private static func resealCredentials(
        _ db: Database, keys: VaultKeys, commitment: RecordCommitment, path: String
    ) throws {
        let rows = try Row.fetchAll(db, sql: "SELECT id, server_index, account_index, sealed FROM credentials")
        for row in rows {
            let id: Data = row["id"]
            let serverIndex: Data = row["server_index"]
            let accountIndex: Data = row["account_index"]
            let sealed: Data = row["sealed"]
            guard
                let payload = AuthenticatedEncryption.open(
                    Array(sealed), key: keys.recordKey,
                    associatedData: VaultKeys.legacyCredentialAssociatedData(
                        id: id, serverIndex: serverIndex, accountIndex: accountIndex))
            else { throw failure("A credential", path: path) }
            let resealed = AuthenticatedEncryption.seal(
                payload, key: keys.recordKey,
                associatedData: VaultKeys.credentialAssociatedData(
                    id: id, serverIndex: serverIndex, accountIndex: accountIndex, version: 1))
            try db.execute(
                sql: "UPDATE credentials SET sealed = ?, version = 1 WHERE id = ?", arguments: [Data(resealed), id])
            commitment.insertCredential(id: id, version: 1, keys: keys)
        }
    }

    private static func resealNeverSaveMarkers(
        _ db: Database, keys: VaultKeys, commitment: RecordCommitment, path: String
    ) throws {
        let rows = try Row.fetchAll(db, sql: "SELECT host_index, sealed_host, created_at FROM never_save")
        try db.execute(sql: "DELETE FROM never_save")
        for row in rows {
            guard let host = NeverSaveStore.openIfAuthentic(row, keys: keys, format: VaultKeys.legacyFormatVersion)
            else { throw failure("A never-save marker", path: path) }
            try NeverSaveStore.store(db, keys: keys, host: host, createdAt: row["created_at"])
            commitment.insertNeverSave(hostIndex: keys.hostIndex(host), keys: keys)
        }
    }

    /// Verdicts of format 1 were never authenticated, so before they get their MACs: an approval
    /// dated in the future (which swcred never writes) is dropped, and every verdict is due for a
    /// re-check at its next use online.
    private static func distrustVerdicts(_ db: Database) throws {
        let now = Date()
        try db.execute(sql: "DELETE FROM associations WHERE approved_at > ?", arguments: [now])
        try db.execute(sql: "UPDATE associations SET next_check = ? WHERE next_check > ?", arguments: [now, now])
    }

    private static func failure(_ what: String, path: String) -> SharedWebCredentialsError {
        SharedWebCredentialsError(
            .integrityFailure,
            "\(what) in \(path) failed authentication, so the vault was not upgraded to format \(VaultKeys.formatVersion) (nothing changed). Restore the vault from a backup, or open it with the swcred release that wrote it and remove the damaged record."
        )
    }
}
