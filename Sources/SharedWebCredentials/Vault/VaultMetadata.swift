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
                let ops = row["kdf_opslimit"] as Int64?, let mem = row["kdf_memlimit"] as Int64?,
                ops > 0, mem > 0,
                let parameters = try? KDFParameters(opslimit: UInt64(ops), memlimit: UInt64(mem))
            else { throw damaged }
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

    /// Inserts or replaces the row.
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
                INSERT OR REPLACE INTO vault_meta
                    (id, format_version, kdf_algorithm, kdf_salt, kdf_opslimit, kdf_memlimit, key_id, wrapped_key)
                VALUES (1, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [Int64(formatVersion), algorithm, salt, ops, mem, Data(keyID), Data(wrappedKey)])
    }

    /// The current key id, cheaply, to notice a rotation by another process.
    static func currentKeyID(_ db: Database) throws -> [UInt8]? {
        try Data.fetchOne(db, sql: "SELECT key_id FROM vault_meta WHERE id = 1").map(Array.init)
    }
}
