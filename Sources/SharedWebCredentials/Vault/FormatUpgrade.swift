import Foundation

/// Upgrades a vault of an older format to the current one (3) in place, at its first unlock, in
/// one transaction. If any record fails authentication, or a format-2 vault's records do not
/// match their sealed commitment, nothing changes.
///
/// - Every credential is opened (format 1: without a version; format 2: with its version) and
///   sealed again for format 3 with a version-2 payload (label, notes and otpauth URI), so no
///   version-1 payload is left; a format-1 credential starts at version 1.
/// - Every never-save marker is re-sealed for format 3.
/// - Format 1 only: every app and verdict gets its MAC (verdicts are distrusted first).
/// - The record commitment is sealed for format 3, the parent-domain index is built
///   (``ParentDomains``) and the audit log starts empty (``AuditChain``).
/// - The vault key is re-wrapped with format 3 bound into its associated data.
///
/// Only the holder of the vault key can do this, which is why it runs at unlock and not as a SQL
/// migration. Once the key is wrapped for format 3, setting `format_version` back makes the key
/// fail to unwrap (``VaultKeys/wrappedKeyAssociatedData(keyID:protection:format:epoch:)``), so no one
/// without the key can send an upgraded vault down an older, weaker path again.
enum FormatUpgrade {
    /// Runs the upgrade inside the caller's write transaction; returns the new `vault_meta` row.
    static func run(
        _ db: any StoreWriter, unlockedFrom unlocked: VaultMetadata, keys: VaultKeys, path: String
    ) throws
        -> VaultMetadata
    {
        let (stored, doneElsewhere) = try VaultMetadata.readForUnlockStep(
            db, unlockedFrom: unlocked, keys: keys, path: path,
            isDone: { $0.formatVersion == VaultKeys.formatVersion })
        if doneElsewhere { return stored }  // another process upgraded it while this one unlocked
        let from = stored.formatVersion
        if from >= 2 {
            // The records must be those the format-2 commitment seals, or the upgrade would bless a rollback.
            guard
                try RecordCommitment.compute(db, keys: keys).matches(
                    RecordCommitment.load(db, keys: keys, path: path, format: from))
            else { throw failure("The set of records (it does not match its sealed commitment)", path: path) }
        }
        let commitment = RecordCommitment.empty()
        try resealCredentials(db, from: from, keys: keys, commitment: commitment, path: path)
        try resealNeverSaveMarkers(db, from: from, keys: keys, commitment: commitment, path: path)
        if from == VaultKeys.legacyFormatVersion {
            try distrustVerdicts(db)
            try AuthenticatedRows.macAll(db, keys: keys)
        }
        try ParentDomains.rebuild(db, keys: keys, path: path)
        let upgraded = Vault.metadata(for: keys, protection: stored.protection, epoch: 0)
        try upgraded.write(db)
        try commitment.storeUnsealed(db, keys: keys)
        try AuditChain.initialize(db, keys: keys)
        return upgraded
    }

    /// Opens every credential as format `from` sealed it and seals it again for the current format,
    /// with a payload of the current version.
    private static func resealCredentials(
        _ db: any StoreWriter, from: UInt32, keys: VaultKeys, commitment: RecordCommitment, path: String
    ) throws {
        let rows = try db.rows("SELECT id, server_index, account_index, sealed, version FROM credentials")
        for row in rows {
            guard let id = row.blob(0), let serverIndex = row.blob(1), let accountIndex = row.blob(2),
                let sealed = row.blob(3), let storedVersion = row.integer(4)
            else { throw failure("A credential", path: path) }
            let associatedData =
                from == VaultKeys.legacyFormatVersion
                ? VaultKeys.legacyCredentialAssociatedData(id: id, serverIndex: serverIndex, accountIndex: accountIndex)
                : VaultKeys.credentialAssociatedData(
                    id: id, serverIndex: serverIndex, accountIndex: accountIndex, version: storedVersion, format: from)
            guard
                let payload = AuthenticatedEncryption.open(
                    sealed, key: keys.recordKey, associatedData: associatedData),
                let credential = CredentialPayload.decode(payload)
            else { throw failure("A credential", path: path) }
            let version = from == VaultKeys.legacyFormatVersion ? 1 : storedVersion
            let resealed = AuthenticatedEncryption.seal(
                CredentialPayload.encode(
                    scheme: credential.scheme, server: credential.server, port: credential.port,
                    account: credential.account,
                    password: credential.password, details: credential.details, created: credential.created,
                    modified: credential.modified),
                key: keys.recordKey,
                associatedData: VaultKeys.credentialAssociatedData(
                    id: id, serverIndex: serverIndex, accountIndex: accountIndex, version: version))
            try db.execute(
                "UPDATE credentials SET sealed = ?, version = ? WHERE id = ?",
                [.blob(resealed), .integer(version), .blob(id)])
            commitment.insertCredential(id: id, version: version, keys: keys)
        }
    }

    private static func resealNeverSaveMarkers(
        _ db: any StoreWriter, from: UInt32, keys: VaultKeys, commitment: RecordCommitment, path: String
    ) throws {
        let rows = try db.rows("SELECT host_index, sealed_host, created_at FROM never_save")
        try db.execute("DELETE FROM never_save", [])
        for row in rows {
            guard let host = NeverSaveStore.openIfAuthentic(row, keys: keys, format: from)
            else { throw failure("A never-save marker", path: path) }
            try NeverSaveStore.store(db, keys: keys, host: host, createdAt: row.integer(2) ?? 0)
            commitment.insertNeverSave(hostIndex: keys.hostIndex(host), keys: keys)
        }
    }

    /// Verdicts of format 1 were never authenticated, so before they get their MACs: an approval
    /// dated in the future (which swcred never writes) is dropped, and every verdict is due for a
    /// re-check at its next use online.
    private static func distrustVerdicts(_ db: any StoreWriter) throws {
        let now = StoreValue.date(Date())
        try db.execute("DELETE FROM associations WHERE approved_at > ?", [now])
        try db.execute("UPDATE associations SET next_check = ? WHERE next_check > ?", [now, now])
    }

    private static func failure(_ what: String, path: String) -> SharedWebCredentialsError {
        SharedWebCredentialsError(
            .integrityFailure,
            "\(what) in \(path) failed authentication, so the vault was not upgraded to format \(VaultKeys.formatVersion) (nothing changed). Restore the vault from a backup, or open it with the swcred release that wrote it and remove the damaged record."
        )
    }
}
