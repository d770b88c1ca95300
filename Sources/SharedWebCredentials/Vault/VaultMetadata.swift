import Foundation

/// The single `vault_meta` row: the format version and how the vault key is protected.
struct VaultMetadata {
    /// How the vault key is wrapped.
    enum Protection {
        /// Under Argon2id(passphrase, salt) with these parameters.
        case passphrase(salt: [UInt8], parameters: KDFParameters)
        /// Under a raw 32-byte key read from a key file.
        case rawKey
    }

    var formatVersion: UInt32
    var protection: Protection
    var keyID: [UInt8]
    var wrappedKey: [UInt8]
    /// The key's epoch (``VaultKeys/wrappedKeyAssociatedData(keyID:protection:format:epoch:)``):
    /// 0 until the state is first sealed, then one more at every change of passphrase or key.
    var keyEpoch: Int64

    /// Reads the row; throws `.integrityFailure` if it is missing or malformed. `withEpoch` is false
    /// for a database not yet migrated to `key_epoch` (migration 0009): the epoch is then 0.
    static func read(_ db: any StoreReader, path: String, withEpoch: Bool = true) throws -> VaultMetadata {
        let epoch = withEpoch ? "key_epoch" : "0"
        guard
            let row = try db.row(
                """
                SELECT format_version, kdf_algorithm, kdf_salt, kdf_opslimit, kdf_memlimit, key_id, wrapped_key,
                    \(epoch)
                FROM vault_meta WHERE id = 1
                """)
        else {
            throw SharedWebCredentialsError(
                .integrityFailure, "\(path) is not a swcred vault (it has no vault metadata). Check the --vault path.")
        }
        let damaged = SharedWebCredentialsError(
            .integrityFailure, "The vault metadata in \(path) is damaged; restore the vault from a backup.")
        guard let version = row.integer(0), let keyID = row.blob(5), let wrapped = row.blob(6),
            let epoch = row.integer(7), epoch >= 0
        else { throw damaged }
        let protection: Protection
        switch row.text(1) {
        case "raw-key":
            protection = .rawKey
        case "argon2id13":
            guard let salt = row.blob(2), salt.count == PasswordHashing.saltLength, let ops = row.integer(3),
                let mem = row.integer(4)
            else { throw damaged }
            // Checked before any KDF runs: the row is not authenticated until the key unwraps.
            guard let parameters = try? KDFParameters(opslimit: UInt64(clamping: ops), memlimit: UInt64(clamping: mem))
            else {
                throw SharedWebCredentialsError(
                    .integrityFailure,
                    "The vault metadata in \(path) asks for Argon2id opslimit \(ops) and memlimit \(mem) bytes, outside what swcred accepts (opslimit \(KDFParameters.minimumOpslimit)...\(KDFParameters.maximumOpslimit), memlimit \(KDFParameters.minimumMemlimit)...\(KDFParameters.maximumMemlimit)): the file was altered or is not a swcred vault. Nothing was run; restore the vault from a backup."
                )
            }
            protection = .passphrase(salt: salt, parameters: parameters)
        default:
            throw damaged
        }
        guard version > 0, version <= Int64(VaultKeys.formatVersion) else {
            throw SharedWebCredentialsError(
                .internalError,
                "\(path) has vault format \(version), newer than this swcred understands (\(VaultKeys.formatVersion)); upgrade swcred."
            )
        }
        return VaultMetadata(
            formatVersion: UInt32(version), protection: protection, keyID: keyID, wrappedKey: wrapped, keyEpoch: epoch)
    }

    /// Inserts the row, or updates it in place (keeping the record commitment, which the caller
    /// rewrites when the key changes).
    func write(_ db: any StoreWriter) throws {
        var salt: [UInt8]?
        var ops: Int64?
        var mem: Int64?
        let algorithm: String
        switch protection {
        case .rawKey:
            algorithm = "raw-key"
        case .passphrase(let kdfSalt, let parameters):
            algorithm = "argon2id13"
            salt = kdfSalt
            ops = Int64(parameters.opslimit)
            mem = Int64(parameters.memlimit)
        }
        try db.execute(
            """
            INSERT INTO vault_meta
                (id, format_version, kdf_algorithm, kdf_salt, kdf_opslimit, kdf_memlimit, key_id, wrapped_key,
                key_epoch)
            VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (id) DO UPDATE SET
                format_version = excluded.format_version, kdf_algorithm = excluded.kdf_algorithm,
                kdf_salt = excluded.kdf_salt, kdf_opslimit = excluded.kdf_opslimit,
                kdf_memlimit = excluded.kdf_memlimit, key_id = excluded.key_id, wrapped_key = excluded.wrapped_key,
                key_epoch = excluded.key_epoch
            """,
            [
                .integer(Int64(formatVersion)), .text(algorithm), StoreValue(salt, StoreValue.blob),
                StoreValue(ops, StoreValue.integer), StoreValue(mem, StoreValue.integer), .blob(keyID),
                .blob(wrappedKey), .integer(keyEpoch),
            ])
    }

    /// Whether `storage`'s `vault_meta` has `key_epoch` yet: before a vault is unlocked its
    /// schema may be an older release's, and migrations run only after the unlock. Asked in a
    /// transaction of its own, since the statement fails on a table without the column.
    static func hasKeyEpoch(_ storage: any VaultStorage, schema: SchemaState) -> Bool {
        schema == .current
            || (try? storage.read { db in try db.value("SELECT key_epoch FROM vault_meta WHERE id = 1") }) != nil
    }

    /// The current key id, cheaply, to notice a rotation by another process.
    static func currentKeyID(_ db: any StoreReader) throws -> [UInt8]? {
        try db.value("SELECT key_id FROM vault_meta WHERE id = 1")?.blob
    }
}

extension VaultMetadata {
    /// The row a step run at unlock (``FormatUpgrade``, ``SealUpgrade``) finds in its write
    /// transaction: `doneElsewhere` false when it still is the row this process unlocked from (go
    /// on), true when another process did the same step meanwhile (`isDone` says so of the stored
    /// row, and its key still unwraps with this process's wrapping key). Throws `.vaultLocked`
    /// when the key was changed some other way.
    static func readForUnlockStep(
        _ db: any StoreReader, unlockedFrom unlocked: VaultMetadata, keys: VaultKeys, path: String,
        isDone: (VaultMetadata) -> Bool
    ) throws -> (row: VaultMetadata, doneElsewhere: Bool) {
        let stored = try read(db, path: path)
        if stored.keyID == unlocked.keyID, stored.wrappedKey == unlocked.wrappedKey { return (stored, false) }
        if stored.keyID == unlocked.keyID, isDone(stored),
            AuthenticatedEncryption.open(
                stored.wrappedKey, key: keys.wrappingKey,
                associatedData: VaultKeys.wrappedKeyAssociatedData(
                    keyID: stored.keyID, protection: stored.protection, epoch: stored.keyEpoch))
                != nil
        {
            return (stored, true)
        }
        throw SharedWebCredentialsError(
            .vaultLocked,
            "Another process changed the key of \(path) while this one unlocked it; nothing was changed. Run the command again."
        )
    }
}
