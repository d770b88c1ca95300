import Foundation
import GRDB

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

    /// Reads the row; throws `.integrityFailure` if it is missing or malformed.
    static func read(_ db: Database, path: String) throws -> VaultMetadata {
        guard try db.tableExists("vault_meta"),
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT format_version, kdf_algorithm, kdf_salt, kdf_opslimit, kdf_memlimit, key_id, wrapped_key
                    FROM vault_meta WHERE id = 1
                    """)
        else {
            throw SharedWebCredentialsError(
                .integrityFailure, "\(path) is not a swcred vault (it has no vault metadata). Check the --vault path.")
        }
        let damaged = SharedWebCredentialsError(
            .integrityFailure, "The vault metadata in \(path) is damaged; restore the vault from a backup.")
        guard let version = row["format_version"] as Int64?, let keyID = (row["key_id"] as Data?).map(Array.init),
            let wrapped = (row["wrapped_key"] as Data?).map(Array.init)
        else { throw damaged }
        let protection: Protection
        switch row["kdf_algorithm"] as String? {
        case "raw-key":
            protection = .rawKey
        case "argon2id13":
            guard let salt = (row["kdf_salt"] as Data?).map(Array.init), salt.count == PasswordHashing.saltLength,
                let ops = row["kdf_opslimit"] as Int64?, let mem = row["kdf_memlimit"] as Int64?
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
        return VaultMetadata(formatVersion: UInt32(version), protection: protection, keyID: keyID, wrappedKey: wrapped)
    }

    /// Inserts the row, or updates it in place (keeping the record commitment, which the caller
    /// rewrites when the key changes).
    func write(_ db: Database) throws {
        var salt: Data?
        var ops: Int64?
        var mem: Int64?
        let algorithm: String
        switch protection {
        case .rawKey:
            algorithm = "raw-key"
        case .passphrase(let kdfSalt, let parameters):
            algorithm = "argon2id13"
            salt = Data(kdfSalt)
            ops = Int64(parameters.opslimit)
            mem = Int64(parameters.memlimit)
        }
        try db.execute(
            sql: """
                INSERT INTO vault_meta
                    (id, format_version, kdf_algorithm, kdf_salt, kdf_opslimit, kdf_memlimit, key_id, wrapped_key)
                VALUES (1, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET
                    format_version = excluded.format_version, kdf_algorithm = excluded.kdf_algorithm,
                    kdf_salt = excluded.kdf_salt, kdf_opslimit = excluded.kdf_opslimit,
                    kdf_memlimit = excluded.kdf_memlimit, key_id = excluded.key_id, wrapped_key = excluded.wrapped_key
                """,
            arguments: [Int64(formatVersion), algorithm, salt, ops, mem, Data(keyID), Data(wrappedKey)])
    }

    /// The current key id, cheaply, to notice a rotation by another process.
    static func currentKeyID(_ db: Database) throws -> [UInt8]? {
        try Data.fetchOne(db.cachedStatement(sql: "SELECT key_id FROM vault_meta WHERE id = 1")).map(Array.init)
    }
}
