import Foundation
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

    /// Whether another process's rotation of the vault key is followed: the new key is unwrapped
    /// with the same passphrase and used from then on, so a command that waited for the lock
    /// finishes under it. A long-running holder (the service) turns it off: another process's
    /// rotation then fails its operations with `.vaultLocked`, and it locks itself instead of
    /// going on under a key, or a passphrase, that its owner did not unlock it with.
    public var followsKeyChanges = true

    /// Whether the entries appended side by side (``AuditLog/append(_:)-(AuditEvent)async``) go
    /// to an audit chain of this process's own, written in transactions that touch no row another
    /// process writes, instead of the vault's chain, whose head every change moves. A long-running
    /// holder (the service) turns it on, so that its requests and those of other instances do not
    /// wait for one another; a one-shot command leaves it off (a chain per command would be a row
    /// per command).
    public var appendsToInstanceChain = false

    /// The default settings.
    public init() {}
}

/// An unlocked vault: a database (one SQLite file by default) whose records are sealed under a
/// random vault key.
///
/// This is the owner's API: whoever holds the passphrase or key file reads and writes every
/// credential without any app or site gate. Apps go through the gated facade instead.
public final class Vault: Sendable {
    /// The vault file's path.
    public let path: String
    /// Where the vault is, as it was opened: what unlocking it again reopens.
    public let store: VaultStore
    /// The database: every store of the package reads and writes through it.
    package let storage: any VaultStorage
    /// ``storage``, which counts its transactions.
    private let counted: CountedStorage
    let unlocked: Mutex<UnlockedKey>
    /// ``VaultConfiguration/followsKeyChanges``.
    let followsKeyChanges: Bool
    private let warningHandler = Mutex<(@Sendable (String) -> Void)?>(nil)
    /// The audit entries appended side by side, committed in groups (``AuditLog/append(_:)``).
    let auditGroupCommit: AuditGroupCommit

    /// The keys in use and the `vault_meta` state they were unlocked from, which passphrase
    /// changes and key rotations compare against (compare and swap) before replacing it.
    struct UnlockedKey {
        var keys: VaultKeys
        var protection: VaultMetadata.Protection
        var wrappedKey: [UInt8]
    }

    private init(store: VaultStore, storage: any VaultStorage, unlocked: UnlockedKey, configuration: VaultConfiguration)
    {
        self.store = store
        self.path = storage.location
        counted = CountedStorage(storage)
        self.storage = counted
        self.unlocked = Mutex(unlocked)
        followsKeyChanges = configuration.followsKeyChanges
        auditGroupCommit = AuditGroupCommit(
            chain: configuration.appendsToInstanceChain ? RandomBytes.array(count: AuditScope.nameLength) : nil)
    }

    /// The credentials in this vault (ungated).
    public var credentials: CredentialStore { CredentialStore(vault: self) }

    /// The "Never for this website" markers in this vault.
    public var neverSave: NeverSaveStore { NeverSaveStore(vault: self) }

    var keys: VaultKeys { unlocked.withLock { $0.keys } }

    /// The read and write transactions this vault ran on its database since it was opened.
    public var transactionCounts: StoreTransactionCounts { counted.counts }

    /// Receives warnings the library cannot act on itself, such as a stored verdict that failed
    /// authentication and is being verified again. The library never prints; the caller decides.
    public func setWarningHandler(_ handler: @escaping @Sendable (String) -> Void) {
        warningHandler.withLock { $0 = handler }
    }

    /// Passes `message` to the warning handler, if any.
    func warn(_ message: String) {
        warningHandler.withLock { $0 }?(message)
    }

    // MARK: Create and open

    /// Creates a new vault at `path`; throws `.vaultExists` if a file is already there.
    public static func create(
        at path: String, protection: VaultProtection, configuration: VaultConfiguration = VaultConfiguration()
    ) throws -> Vault {
        try create(in: .file(path), protection: protection, configuration: configuration)
    }

    /// Creates a new vault in `store`; throws `.vaultExists` if the file is already there, or if
    /// the database already holds a vault. A PostgreSQL database must be empty or hold only what
    /// an earlier, interrupted `create` left (the schema without vault metadata).
    public static func create(
        in store: VaultStore, protection: VaultProtection, configuration: VaultConfiguration = VaultConfiguration()
    ) throws -> Vault {
        switch store {
        case .file(let path):
            return try SQLiteStorage.create(path: path, busyTimeout: configuration.busyTimeout) { storage in
                try setUp(store, storage, protection: protection, configuration: configuration)
            }
        case .postgresql(let url, let password):
            let storage = try PostgresStorage(url: url, password: password, busyTimeout: configuration.busyTimeout)
            if try storage.verifySchema() != .empty,
                try storage.read({ db in try db.row("SELECT 1 FROM vault_meta") }) != nil
            {
                throw SharedWebCredentialsError(
                    .vaultExists, "\(storage.location) already holds a vault; nothing was changed.")
            }
            return try setUp(store, storage, protection: protection, configuration: configuration)
        }
    }

    /// Makes a new vault's key, migrates the empty database and writes its metadata, commitment
    /// and audit head.
    private static func setUp(
        _ store: VaultStore, _ storage: any VaultStorage, protection: VaultProtection,
        configuration: VaultConfiguration
    ) throws -> Vault {
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
        let metadata = Self.metadata(for: keys, protection: stored, epoch: 1)
        try storage.migrate()
        StateHighWater.forget(storage.location)
        try storage.write { db in
            // Two `init`s racing on one database: the writers' lock orders them, and the second
            // finds the first's vault here rather than replacing its key.
            guard try db.row("SELECT 1 FROM vault_meta") == nil else {
                throw SharedWebCredentialsError(
                    .vaultExists, "\(storage.location) already holds a vault; nothing was changed.")
            }
            try metadata.write(db)
            try RecordCommitment.empty().storeUnsealed(db, keys: keys)
            try AuditChain.initialize(db, keys: keys)
            try GrantSet.storeFirstUnsealed(db, keys: keys)
            try StateSeal.reseal(db, keys: keys, path: storage.location)
        }
        return Vault(
            store: store, storage: storage,
            unlocked: UnlockedKey(keys: keys, protection: stored, wrappedKey: metadata.wrappedKey),
            configuration: configuration)
    }

    /// The storage of `store`, opened.
    static func openStorage(_ store: VaultStore, configuration: VaultConfiguration) throws -> any VaultStorage {
        switch store {
        case .file(let path):
            return try SQLiteStorage.open(path: path, busyTimeout: configuration.busyTimeout)
        case .postgresql(let url, let password):
            let storage = try PostgresStorage(url: url, password: password, busyTimeout: configuration.busyTimeout)
            if try storage.verifySchema() == .empty {
                throw SharedWebCredentialsError(
                    .vaultNotFound,
                    "No vault in \(storage.location): create one with `swcred init --store URL`, or check the URL.")
            }
            // The tables without vault metadata: what an `init` or a `store copy` that was
            // interrupted leaves (each writes the metadata in its one transaction).
            if try storage.read({ db in try db.row("SELECT 1 FROM vault_meta") }) == nil {
                throw SharedWebCredentialsError(
                    .vaultNotFound,
                    "No vault in \(storage.location): its tables are empty (an interrupted `init` or `store copy`?). Run `swcred init --store URL` or `swcred store copy` again."
                )
            }
            return storage
        }
    }

    /// Opens and unlocks the vault at `path`. A wrong passphrase or key throws `.vaultLocked`
    /// and changes nothing; newer schema migrations are applied only after a successful unlock,
    /// and a vault of format 1 is then upgraded in place, in one transaction (``FormatUpgrade``).
    public static func open(
        at path: String, secret: VaultSecret, configuration: VaultConfiguration = VaultConfiguration()
    ) throws -> Vault {
        try open(store: .file(path), secret: secret, configuration: configuration)
    }

    /// Opens and unlocks the vault in `store`, as ``open(at:secret:configuration:)`` does.
    public static func open(
        store: VaultStore, secret: VaultSecret, configuration: VaultConfiguration = VaultConfiguration()
    ) throws -> Vault {
        let storage = try openStorage(store, configuration: configuration)
        let path = storage.location
        let schema = try storage.verifySchema()
        try requireVault(schema, path: path)
        // What the vault shows of its sealed state is read with its metadata, in one transaction
        // (a vault migrated before the seal existed shows none), and with it the grant set's
        // column, which says whether the set is still a list to move into members.
        let withEpoch = VaultMetadata.hasKeyEpoch(storage, schema: schema)
        let (unlockedFrom, shown, grantSet) = try storage.read { db in
            let sealed =
                withEpoch
                ? try db.row("SELECT \(StateSeal.columnsBeforeCheckpoint), grant_set FROM vault_meta WHERE id = 1")
                : nil
            return (
                try VaultMetadata.read(db, path: path, withEpoch: withEpoch),
                try sealed.map { try SealedState(unchecked: StoreRow(Array($0.values.dropLast())), path: path) },
                sealed?.values.last?.blob
            )
        }
        let wrappingKey = try unwrappingKey(for: unlockedFrom, secret: secret)
        let vaultKey = try unwrap(unlockedFrom, with: wrappingKey, path: path)
        try storage.migrate()
        let keys = VaultKeys(keyID: unlockedFrom.keyID, vaultKey: vaultKey, wrappingKey: wrappingKey)
        var metadata = unlockedFrom
        if unlockedFrom.formatVersion < VaultKeys.formatVersion {
            metadata = try storage.write { db in
                try FormatUpgrade.run(db, unlockedFrom: unlockedFrom, keys: keys, path: path)
            }
        }
        if metadata.keyEpoch == 0 {
            let unsealed = metadata
            metadata = try storage.write { db in
                try SealUpgrade.run(db, unlockedFrom: unsealed, keys: keys, path: path)
            }
        }
        if schema == .outdated { try BrowserAssociationStore.endClearKeyAssociations(storage, keys: keys, path: path) }
        if let grantSet, GrantListUpgrade.isList(grantSet, keys: keys) {
            try storage.write { db in try GrantListUpgrade.run(db, keys: keys, path: path) }
        }
        // A vault set back behind what this process saw is refused at unlock, before any use. (A
        // broken seal is not: the owner may still read and export; what grants access checks it.)
        if let shown {
            try StateHighWater.check(shown, path: path)
            StateHighWater.raise(to: shown, path: path)
        }
        return Vault(
            store: store, storage: storage,
            unlocked: UnlockedKey(keys: keys, protection: metadata.protection, wrappedKey: metadata.wrappedKey),
            configuration: configuration)
    }

    /// Throws the "not a vault" error for a database with no schema at all.
    static func requireVault(_ state: SchemaState, path: String) throws {
        guard state != .empty else {
            throw SharedWebCredentialsError(
                .integrityFailure, "\(path) is not a swcred vault (it has no vault metadata). Check the --vault path.")
        }
    }

    /// The vault key in `metadata`'s wrapped key, under the associated data of the format the
    /// row claims. A row whose format was set back to an older one is reported as altered.
    private static func unwrap(
        _ metadata: VaultMetadata, with wrappingKey: SecureBytes, path: String
    ) throws
        -> SecureBytes
    {
        let associatedData = VaultKeys.wrappedKeyAssociatedData(
            keyID: metadata.keyID, protection: metadata.protection, format: metadata.formatVersion,
            epoch: metadata.keyEpoch)
        if let vaultKey = AuthenticatedEncryption.open(
            metadata.wrappedKey, key: wrappingKey, associatedData: associatedData),
            vaultKey.count == KeyDerivation.keyLength
        {
            return vaultKey
        }
        if metadata.formatVersion < VaultKeys.formatVersion,
            AuthenticatedEncryption.open(
                metadata.wrappedKey, key: wrappingKey,
                associatedData: VaultKeys.wrappedKeyAssociatedData(
                    keyID: metadata.keyID, protection: metadata.protection, epoch: metadata.keyEpoch))
                != nil
        {
            throw SharedWebCredentialsError(
                .integrityFailure,
                "The vault metadata of \(path) says format \(metadata.formatVersion), but its key is bound to format \(VaultKeys.formatVersion): the format was set back behind swcred's back. Nothing was changed; restore the vault from a backup."
            )
        }
        let what = if case .rawKey = metadata.protection { "key file" } else { "passphrase" }
        throw SharedWebCredentialsError(
            .vaultLocked, "Wrong \(what) for \(path) (or its stored key was altered); nothing was changed.")
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

    static func requireNonEmpty(_ passphrase: SecureBytes) throws {
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

    /// The `vault_meta` row for `keys` at `epoch`, wrapped in the current format.
    static func metadata(for keys: VaultKeys, protection: VaultMetadata.Protection, epoch: Int64) -> VaultMetadata {
        let associatedData = VaultKeys.wrappedKeyAssociatedData(keyID: keys.keyID, protection: protection, epoch: epoch)
        let wrapped = AuthenticatedEncryption.seal(keys.vaultKey, key: keys.wrappingKey, associatedData: associatedData)
        return VaultMetadata(
            formatVersion: VaultKeys.formatVersion, protection: protection, keyID: keys.keyID, wrappedKey: wrapped,
            keyEpoch: epoch)
    }
}
