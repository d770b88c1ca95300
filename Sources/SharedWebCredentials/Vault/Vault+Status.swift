import Foundation

extension Vault {
    /// The vault's format, key protection and record counts.
    public func status() throws -> VaultStatus {
        try read { db, _ in try Self.status(db, path: path, metadata: VaultMetadata.read(db, path: path)) }
    }

    /// The status of the vault at `path` without unlocking it: nothing read here is secret.
    public static func inspect(
        at path: String, configuration: VaultConfiguration = VaultConfiguration()
    ) throws -> VaultStatus {
        try inspect(store: .file(path), configuration: configuration)
    }

    /// The status of the vault in `store` without unlocking it.
    public static func inspect(
        store: VaultStore, configuration: VaultConfiguration = VaultConfiguration()
    ) throws -> VaultStatus {
        let storage = try openStorage(store, configuration: configuration)
        let path = storage.location
        let schema = try storage.verifySchema()
        try requireVault(schema, path: path)
        let withEpoch = VaultMetadata.hasKeyEpoch(storage, schema: schema)
        return try storage.read { db in
            try status(db, path: path, metadata: VaultMetadata.read(db, path: path, withEpoch: withEpoch))
        }
    }

    private static func status(_ db: any StoreReader, path: String, metadata: VaultMetadata) throws -> VaultStatus {
        let protection: VaultStatus.Protection =
            switch metadata.protection {
            case .rawKey: .keyFile
            case .passphrase(_, let parameters): .passphrase(parameters)
            }
        return VaultStatus(
            path: path, formatVersion: Int(metadata.formatVersion), protection: protection,
            credentialCount: Int(try db.integer("SELECT COUNT(*) FROM credentials") ?? 0),
            neverSaveCount: Int(try db.integer("SELECT COUNT(*) FROM never_save") ?? 0))
    }

    var recordSetMismatch: SharedWebCredentialsError {
        SharedWebCredentialsError(
            .integrityFailure,
            "The records of \(path) do not match their sealed commitment: a record was rolled back to an older copy, brought back after it was deleted, or deleted behind swcred's back. Nothing was changed; restore the vault from a backup."
        )
    }
}

/// A summary of a vault, as `swcred status` shows it.
public struct VaultStatus: Sendable, Equatable {
    /// How the vault key is protected.
    public enum Protection: Sendable, Equatable {
        /// By a passphrase through Argon2id with these parameters.
        case passphrase(KDFParameters)
        /// By a raw key file.
        case keyFile
    }

    /// The vault file's path.
    public let path: String
    /// The record format version.
    public let formatVersion: Int
    /// How the vault key is protected.
    public let protection: Protection
    /// The number of credentials.
    public let credentialCount: Int
    /// The number of "never save" markers.
    public let neverSaveCount: Int
}
