import Foundation
import GRDB
import Synchronization

/// How a new vault's key is protected.
public enum VaultProtection: Sendable {
    /// Wrapped under Argon2id(passphrase) with these parameters.
    case passphrase(SecureBytes, KDFParameters)
    /// Wrapped under a raw 32-byte key written to a new key file (mode 0600, never overwritten).
    case newKeyFile(path: String)
    /// Wrapped under a raw 32-byte key the caller holds (for embedding and benchmarks).
    case rawKey(SecureBytes)
}

/// What unlocks an existing vault.
public enum VaultSecret: Sendable {
    /// A passphrase (for vaults protected by Argon2id).
    case passphrase(SecureBytes)
    /// The 32 bytes of a key file (for vaults made with a key file), see ``KeyFile/read(at:)``.
    case key(SecureBytes)
}

/// Settings for opening a vault.
public struct VaultConfiguration: Sendable {
    /// How long to wait for another process's write lock before failing with `.vaultBusy`.
    public var busyTimeout: TimeInterval = 10

    /// The default settings.
    public init() {}
}

/// An unlocked vault: one SQLite file whose records are sealed under a random vault key.
///
/// This is the owner's API: whoever holds the passphrase or key file reads and writes every
/// credential without any app or site gate. Apps go through the gated facade instead.
public final class Vault: Sendable {
    /// The vault file's path.
    public let path: String
    /// The SQLite connection (WAL, busy timeout). Other stores of the package share it.
    package let database: DatabaseQueue
    private let currentKeys: Mutex<VaultKeys>
    private let currentProtection: Mutex<VaultMetadata.Protection>

    private init(path: String, database: DatabaseQueue, keys: VaultKeys, protection: VaultMetadata.Protection) {
        self.path = path
        self.database = database
        currentKeys = Mutex(keys)
        currentProtection = Mutex(protection)
    }

    /// The credentials in this vault (ungated).
    public var credentials: CredentialStore { CredentialStore(vault: self) }

    /// The "Never for this website" markers in this vault.
    public var neverSave: NeverSaveStore { NeverSaveStore(vault: self) }

    var keys: VaultKeys { currentKeys.withLock { $0 } }

    // MARK: Create and open

    /// Creates a new vault at `path`; throws `.vaultExists` if a file is already there.
    public static func create(
        at path: String, protection: VaultProtection, configuration: VaultConfiguration = VaultConfiguration()
    ) throws -> Vault {
        try VaultDatabase.createFile(path: path)
        do {
            let wrappingKey: SecureBytes
            let stored: VaultMetadata.Protection
            switch protection {
            case .passphrase(let passphrase, let parameters):
                try requireNonEmpty(passphrase)
                let salt = RandomBytes.array(count: PasswordHashing.saltLength)
                wrappingKey = try PasswordHashing.deriveKey(
                    length: AuthenticatedEncryption.keyLength, passphrase: passphrase, salt: salt,
                    parameters: parameters)
                stored = .passphrase(salt: salt, parameters: parameters)
            case .newKeyFile(let keyPath):
                wrappingKey = try KeyFile.create(at: keyPath)
                stored = .rawKey
            case .rawKey(let key):
                try requireKeyLength(key)
                wrappingKey = key
                stored = .rawKey
            }
            let keys = VaultKeys.generate(wrappingKey: wrappingKey)
            let database = try VaultDatabase.open(path: path, busyTimeout: configuration.busyTimeout)
            try VaultDatabase.mappingErrors(path: path) {
                try VaultMigrations.apply(to: database)
                try database.write { db in try metadata(for: keys, protection: stored).write(db) }
            }
            return Vault(path: path, database: database, keys: keys, protection: stored)
        } catch {
            VaultDatabase.removeFiles(path: path)
            throw error
        }
    }

    /// Opens and unlocks the vault at `path`. A wrong passphrase or key throws `.vaultLocked`
    /// and changes nothing; newer schema migrations are applied only after a successful unlock.
    public static func open(
        at path: String, secret: VaultSecret, configuration: VaultConfiguration = VaultConfiguration()
    ) throws -> Vault {
        try VaultDatabase.requireExisting(path: path)
        let database = try VaultDatabase.open(path: path, busyTimeout: configuration.busyTimeout)
        let metadata = try VaultDatabase.mappingErrors(path: path) {
            try database.read { db in try VaultMetadata.read(db, path: path) }
        }
        let wrappingKey = try unwrappingKey(for: metadata, secret: secret)
        let associatedData = VaultKeys.wrappedKeyAssociatedData(keyID: metadata.keyID, protection: metadata.protection)
        guard
            let vaultKey = AuthenticatedEncryption.open(
                metadata.wrappedKey, key: wrappingKey, associatedData: associatedData),
            vaultKey.count == KeyDerivation.keyLength
        else {
            let what = if case .rawKey = metadata.protection { "key file" } else { "passphrase" }
            throw SharedWebCredentialsError(
                .vaultLocked, "Wrong \(what) for \(path) (or its stored key was altered); nothing was changed.")
        }
        try VaultDatabase.mappingErrors(path: path) { try VaultMigrations.apply(to: database) }
        let keys = VaultKeys(keyID: metadata.keyID, vaultKey: vaultKey, wrappingKey: wrappingKey)
        return Vault(path: path, database: database, keys: keys, protection: metadata.protection)
    }

    private static func unwrappingKey(for metadata: VaultMetadata, secret: VaultSecret) throws -> SecureBytes {
        switch (metadata.protection, secret) {
        case (.passphrase(let salt, let parameters), .passphrase(let passphrase)):
            try requireNonEmpty(passphrase)
            return try PasswordHashing.deriveKey(
                length: AuthenticatedEncryption.keyLength, passphrase: passphrase, salt: salt, parameters: parameters)
        case (.rawKey, .key(let key)):
            try requireKeyLength(key)
            return key
        case (.passphrase, .key):
            throw SharedWebCredentialsError(
                .vaultLocked,
                "This vault is protected by a passphrase, not a key file: give the passphrase with SWCRED_PASSPHRASE, --passphrase-file or the prompt."
            )
        case (.rawKey, .passphrase):
            throw SharedWebCredentialsError(
                .vaultLocked, "This vault is unlocked with a key file, not a passphrase: pass --key-file PATH.")
        }
    }

    private static func requireNonEmpty(_ passphrase: SecureBytes) throws {
        guard !passphrase.isEmpty else {
            throw SharedWebCredentialsError(.vaultLocked, "The passphrase is empty: give a non-empty passphrase.")
        }
    }

    private static func requireKeyLength(_ key: SecureBytes) throws {
        guard key.count == KeyFile.length else {
            throw SharedWebCredentialsError(
                .invalidInput, "A vault key must be exactly \(KeyFile.length) bytes; this one has \(key.count).")
        }
    }

    private static func metadata(for keys: VaultKeys, protection: VaultMetadata.Protection) -> VaultMetadata {
        let associatedData = VaultKeys.wrappedKeyAssociatedData(keyID: keys.keyID, protection: protection)
        let wrapped = AuthenticatedEncryption.seal(keys.vaultKey, key: keys.wrappingKey, associatedData: associatedData)
        return VaultMetadata(
            formatVersion: VaultKeys.formatVersion, protection: protection, keyID: keys.keyID, wrappedKey: wrapped)
    }

    // MARK: Key management

    /// Re-wraps the vault key under a new passphrase (records are untouched). `parameters`
    /// defaults to the current Argon2id parameters. The old passphrase stops working.
    public func changePassphrase(to newPassphrase: SecureBytes, parameters: KDFParameters? = nil) throws {
        guard case .passphrase(_, let currentParameters) = currentProtection.withLock({ $0 }) else {
            throw SharedWebCredentialsError(
                .invalidInput, "This vault is unlocked with a key file; it has no passphrase to change.")
        }
        try Self.requireNonEmpty(newPassphrase)
        let chosen = parameters ?? currentParameters
        let salt = RandomBytes.array(count: PasswordHashing.saltLength)
        let wrappingKey = try PasswordHashing.deriveKey(
            length: AuthenticatedEncryption.keyLength, passphrase: newPassphrase, salt: salt, parameters: chosen)
        let protection = VaultMetadata.Protection.passphrase(salt: salt, parameters: chosen)
        let newKeys = keys.rewrapped(under: wrappingKey)
        try write { db, _ in try Self.metadata(for: newKeys, protection: protection).write(db) }
        currentKeys.withLock { $0 = newKeys }
        currentProtection.withLock { $0 = protection }
    }

    /// Replaces the vault key with a new random one and re-encrypts every record and marker in
    /// one transaction. If anything fails (such as a damaged record) nothing changes.
    ///
    /// App tokens are revoked in the same transaction (their hashes are keyed by the old key and
    /// the tokens themselves are not stored); the result says how many.
    @discardableResult
    public func rotateKey() throws -> KeyRotation {
        let protection = currentProtection.withLock { $0 }
        let (newKeys, revoked) = try write { db, oldKeys in
            let newKeys = VaultKeys.generate(wrappingKey: oldKeys.wrappingKey)
            try CredentialStore.reencryptAll(db, from: oldKeys, to: newKeys, path: path)
            try NeverSaveStore.reencryptAll(db, from: oldKeys, to: newKeys, path: path)
            let revoked = try AppTokenStore.deleteAll(db)
            try Self.metadata(for: newKeys, protection: protection).write(db)
            return (newKeys, revoked)
        }
        currentKeys.withLock { $0 = newKeys }
        return KeyRotation(revokedAppTokens: revoked)
    }

    /// Whether the vault key this instance holds is still the vault's key: false once another
    /// process rotated it (`swcred rekey`), after which this instance can neither read nor write.
    /// A long-running holder (the service) checks it to lock itself instead of serving stale data.
    public func isKeyCurrent() throws -> Bool {
        let keyID = keys.keyID
        return try VaultDatabase.mappingErrors(path: path) {
            try database.read { db in try VaultMetadata.currentKeyID(db) == keyID }
        }
    }

    /// The vault's format, key protection and record counts.
    public func status() throws -> VaultStatus {
        try read { db, _ in try Self.status(db, path: path, metadata: VaultMetadata.read(db, path: path)) }
    }

    /// The status of the vault at `path` without unlocking it: nothing read here is secret.
    public static func inspect(
        at path: String, configuration: VaultConfiguration = VaultConfiguration()
    ) throws -> VaultStatus {
        try VaultDatabase.requireExisting(path: path)
        let database = try VaultDatabase.open(path: path, busyTimeout: configuration.busyTimeout)
        return try VaultDatabase.mappingErrors(path: path) {
            try database.read { db in
                let metadata = try VaultMetadata.read(db, path: path)
                return try status(db, path: path, metadata: metadata)
            }
        }
    }

    private static func status(_ db: Database, path: String, metadata: VaultMetadata) throws -> VaultStatus {
        let protection: VaultStatus.Protection =
            switch metadata.protection {
            case .rawKey: .keyFile
            case .passphrase(_, let parameters): .passphrase(parameters)
            }
        return VaultStatus(
            path: path, formatVersion: Int(metadata.formatVersion), protection: protection,
            credentialCount: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM credentials") ?? 0,
            neverSaveCount: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM never_save") ?? 0)
    }

    // MARK: Transactions

    /// Runs `body` in a read transaction with the current keys.
    func read<T>(_ body: (Database, VaultKeys) throws -> T) throws -> T {
        let keys = keys
        return try VaultDatabase.mappingErrors(path: path) {
            try database.read { db in try body(db, keys) }
        }
    }

    /// Runs `body`, which must run a single SELECT (atomic on its own), outside an explicit
    /// transaction: the fast path for lookups, which skips BEGIN/COMMIT and the read-only pragmas.
    func readSingleStatement<T>(_ body: (Database, VaultKeys) throws -> T) throws -> T {
        let keys = keys
        return try VaultDatabase.mappingErrors(path: path) {
            try database.inDatabase { db in try body(db, keys) }
        }
    }

    /// Runs `body` in an immediate write transaction with the current keys, after checking that
    /// no other process rotated the vault key since this one unlocked it.
    func write<T>(_ body: (Database, VaultKeys) throws -> T) throws -> T {
        let keys = keys
        return try VaultDatabase.mappingErrors(path: path) {
            try database.write { db in
                guard try VaultMetadata.currentKeyID(db) == keys.keyID else { throw rotatedElsewhere }
                return try body(db, keys)
            }
        }
    }

    /// The error for a record that failed authentication: integrity, unless the key was rotated
    /// by another process in the meantime.
    func recordFailure(_ db: Database, keys: VaultKeys, what: String) -> SharedWebCredentialsError {
        if let current = try? VaultMetadata.currentKeyID(db), current != keys.keyID { return rotatedElsewhere }
        return SharedWebCredentialsError(
            .integrityFailure,
            "\(what) in \(path) failed authentication: it was altered or damaged. Other records are unaffected; delete or restore this one."
        )
    }

    private var rotatedElsewhere: SharedWebCredentialsError {
        SharedWebCredentialsError(
            .vaultLocked, "The vault key of \(path) was rotated by another process; unlock the vault again.")
    }
}

/// What a vault key rotation did beyond re-encrypting records.
public struct KeyRotation: Sendable, Equatable {
    /// The app tokens it revoked.
    public let revokedAppTokens: Int
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
