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
    private let unlocked: Mutex<UnlockedKey>
    /// ``VaultConfiguration/followsKeyChanges``.
    private let followsKeyChanges: Bool
    private let warningHandler = Mutex<(@Sendable (String) -> Void)?>(nil)
    /// The audit entries appended side by side, committed in groups (``AuditLog/append(_:)``).
    let auditGroupCommit = AuditGroupCommit()

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
        self.storage = storage
        self.unlocked = Mutex(unlocked)
        followsKeyChanges = configuration.followsKeyChanges
    }

    /// The credentials in this vault (ungated).
    public var credentials: CredentialStore { CredentialStore(vault: self) }

    /// The "Never for this website" markers in this vault.
    public var neverSave: NeverSaveStore { NeverSaveStore(vault: self) }

    var keys: VaultKeys { unlocked.withLock { $0.keys } }

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
            try GrantSet.storeUnsealed(db, keys: keys)
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
        // (a vault migrated before the seal existed shows none).
        let withEpoch = VaultMetadata.hasKeyEpoch(storage, schema: schema)
        let (unlockedFrom, shown) = try storage.read { db in
            (
                try VaultMetadata.read(db, path: path, withEpoch: withEpoch),
                withEpoch
                    ? try SealedState(
                        unchecked: db.row("SELECT \(StateSeal.columns) FROM vault_meta WHERE id = 1"), path: path)
                    : nil
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
    private static func requireVault(_ state: SchemaState, path: String) throws {
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

    /// The `vault_meta` row for `keys` at `epoch`, wrapped in the current format.
    static func metadata(for keys: VaultKeys, protection: VaultMetadata.Protection, epoch: Int64) -> VaultMetadata {
        let associatedData = VaultKeys.wrappedKeyAssociatedData(keyID: keys.keyID, protection: protection, epoch: epoch)
        let wrapped = AuthenticatedEncryption.seal(keys.vaultKey, key: keys.wrappingKey, associatedData: associatedData)
        return VaultMetadata(
            formatVersion: VaultKeys.formatVersion, protection: protection, keyID: keys.keyID, wrappedKey: wrapped,
            keyEpoch: epoch)
    }

    // MARK: Key management

    /// Re-wraps the vault key under a new passphrase. `parameters` defaults to the current
    /// Argon2id parameters.
    ///
    /// The vault key itself does not change, so a saved copy of the old `vault_meta` row still
    /// opens the file with the old passphrase: after a passphrase leaked, pass `rotatingKey: true`
    /// to draw a new vault key and re-encrypt every record in the same transaction.
    ///
    /// Throws `.vaultLocked` if another process changed the passphrase or the key since this one
    /// unlocked the vault (nothing is changed then: the other change wins).
    public func changePassphrase(
        to newPassphrase: SecureBytes, parameters: KDFParameters? = nil, rotatingKey: Bool = false
    ) throws {
        guard case .passphrase(_, let currentParameters) = unlocked.withLock({ $0.protection }) else {
            throw SharedWebCredentialsError(
                .invalidInput, "This vault is unlocked with a key file; it has no passphrase to change.")
        }
        try Self.requireNonEmpty(newPassphrase)
        let chosen = parameters ?? currentParameters
        let salt = RandomBytes.array(count: PasswordHashing.saltLength)
        let wrappingKey = try PasswordHashing.deriveKey(
            length: AuthenticatedEncryption.keyLength, passphrase: newPassphrase, salt: salt, parameters: chosen)
        let protection = VaultMetadata.Protection.passphrase(salt: salt, parameters: chosen)
        try replaceKey(protection: protection, operation: .passwd) { db, current in
            guard rotatingKey else { return (current.rewrapped(under: wrappingKey), []) }
            // App tokens and browsers' keys are hashed under the old key: a rotation revokes them,
            // as `rotateKey` does.
            let reason = "revoked by `swcred passwd --rekey`"
            let revocations =
                try AppTokenStore.revokeAll(db, keys: current, vault: self, reason: reason)
                + BrowserAssociationStore.revokeAll(db, reason: reason)
            return (
                try reencryptEverything(db, from: current, to: VaultKeys.generate(wrappingKey: wrappingKey)),
                revocations
            )
        }
    }

    /// Replaces the vault key with a new random one and re-encrypts every record and marker in
    /// one transaction. If anything fails (such as a damaged record, or a record set that does
    /// not match its commitment) nothing changes. Throws `.vaultLocked` if another process
    /// changed the passphrase or the key since this one unlocked the vault.
    ///
    /// App tokens and browser associations are revoked in the same transaction (their hashes are
    /// keyed by the old key, and neither the tokens nor the browsers' keys are stored); the result
    /// says how many.
    @discardableResult
    public func rotateKey() throws -> KeyRotation {
        var revoked = (tokens: 0, browsers: 0)
        try replaceKey(protection: unlocked.withLock { $0.protection }, operation: .rekey) { db, current in
            let tokens = try AppTokenStore.revokeAll(
                db, keys: current, vault: self, reason: "revoked by the vault key's rotation")
            let browsers = try BrowserAssociationStore.revokeAll(db, reason: "revoked by the vault key's rotation")
            revoked = (tokens.count, browsers.count)
            let revocations = tokens + browsers
            let newKeys = try reencryptEverything(
                db, from: current, to: VaultKeys.generate(wrappingKey: current.wrappingKey))
            return (newKeys, revocations)
        }
        return KeyRotation(revokedAppTokens: revoked.tokens, revokedBrowsers: revoked.browsers)
    }

    /// Whether the vault key this instance holds, and its wrapping, are still the vault's: false
    /// once another process changed the passphrase (`swcred passwd`) or rotated the key
    /// (`swcred rekey`). A long-running holder (the service) checks it to lock itself: neither
    /// change leaves an unlock made before it standing.
    public func isUnlockCurrent() throws -> Bool {
        let (keyID, wrappedKey) = unlocked.withLock { ($0.keys.keyID, $0.wrappedKey) }
        return try storage.read { db in
            guard let row = try db.row("SELECT key_id, wrapped_key, \(StateSeal.columns) FROM vault_meta WHERE id = 1")
            else { return false }
            // The epoch a change moved to is one this process has now seen: an older row put back
            // after it is refused at the next unlock (``StateHighWater``).
            StateHighWater.raise(
                to: try SealedState(unchecked: StoreRow(Array(row.values.dropFirst(2))), path: path), path: path)
            return row.blob(0) == keyID && row.blob(1) == wrappedKey
        }
    }

    /// Re-seals every record and re-MACs every authenticated row under `newKeys`, after checking
    /// the records against the commitment under the old keys (a rotation must not bless a
    /// tampered vault).
    private func reencryptEverything(
        _ db: any StoreWriter, from oldKeys: VaultKeys, to newKeys: VaultKeys
    ) throws
        -> VaultKeys
    {
        guard
            try RecordCommitment.compute(db, keys: oldKeys).matches(
                RecordCommitment.load(db, keys: oldKeys, path: path))
        else { throw recordSetMismatch }
        try CredentialStore.reencryptAll(db, from: oldKeys, to: newKeys, path: path)
        try NeverSaveStore.reencryptAll(db, from: oldKeys, to: newKeys, path: path)
        try PasskeyStore.reencryptAll(db, from: oldKeys, to: newKeys, path: path)
        try AuthenticatedRows.remacAll(db, from: oldKeys, to: newKeys, path: path)
        try AuditChain.reencryptAll(db, from: oldKeys, to: newKeys, path: path)
        return newKeys
    }

    /// Writes the key `makeKeys` returns (given the current keys) wrapped as `protection`, in one
    /// transaction, if `vault_meta` still holds what this process unlocked (compare and swap), and
    /// records `operation` in the audit log in the same transaction.
    private func replaceKey(
        protection: VaultMetadata.Protection, operation: AuditOperation,
        _ makeKeys: (any StoreWriter, VaultKeys) throws -> (VaultKeys, revocations: [AuditEvent])
    ) throws {
        let expected = unlocked.withLock { $0 }
        let replaced = try sealedWrite { db -> UnlockedKey in
            let stored = try VaultMetadata.read(db, path: path)
            guard stored.keyID == expected.keys.keyID, stored.wrappedKey == expected.wrappedKey else {
                throw SharedWebCredentialsError(
                    .vaultLocked,
                    "Another process changed the passphrase or the key of \(path) after this one unlocked it; nothing was changed. Run the command again with the current passphrase."
                )
            }
            // The state must be the sealed one before the new key seals it: a change of key never
            // blesses a rollback.
            _ = try SealedState.load(db, keys: expected.keys, path: path)
            try GrantSet.requireNothingPutBack(db, keys: expected.keys, path: path)
            let (newKeys, revocations) = try makeKeys(db, expected.keys)
            // One epoch more at every change, so that a copy of the old row (the old passphrase's
            // wrapping, or the retired key) is behind the epoch every process here saw since.
            let metadata = Self.metadata(for: newKeys, protection: protection, epoch: stored.keyEpoch + 1)
            try metadata.write(db)
            if newKeys.keyID != expected.keys.keyID {
                // A new key: the records were checked against the old commitment before they
                // were re-sealed, so the commitment under the new key starts from them.
                try RecordCommitment.compute(db, keys: newKeys).storeUnsealed(db, keys: newKeys)
            }
            try GrantSet.storeUnsealed(db, keys: newKeys)
            try StateSeal.reseal(db, keys: newKeys, path: path)
            _ = try AuditChain.append(
                revocations + [AuditEvent(actor: .owner, operation: operation)], at: Date(), db: db, keys: newKeys,
                path: path)
            return UnlockedKey(keys: newKeys, protection: protection, wrappedKey: metadata.wrappedKey)
        }
        unlocked.withLock { $0 = replaced }
    }

    // MARK: Status and integrity

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

    // MARK: Transactions

    /// Runs `body` in a read transaction with the current keys (those of another process's
    /// rotation, if one happened since: see ``currentKeys(_:)``). It sees every transaction
    /// committed before it began, this process's writes included.
    func read<T>(_ body: (any StoreReader, VaultKeys) throws -> T) throws -> T {
        try storage.read { db in try body(db, currentKeys(db)) }
    }

    /// ``read(_:)`` with the keys this vault holds, without following another process's rotation
    /// (``currentKeys(_:)``): for checking app tokens, which a rotation revokes, so that a token
    /// that no longer matches is the service's cue to notice the rotation and lock itself
    /// (``isUnlockCurrent()``) rather than go on under the new key.
    func readWithHeldKeys<T: Sendable>(
        _ body: @escaping @Sendable (any StoreReader, VaultKeys) throws -> T
    )
        async throws -> T
    {
        let keys = keys
        return try await storage.read { db in try body(db, keys) }
    }

    /// ``read(_:)`` on the engine's own threads: the caller suspends instead of blocking.
    func read<T: Sendable>(_ body: @escaping @Sendable (any StoreReader, VaultKeys) throws -> T) async throws -> T {
        try await storage.read { db in try body(db, self.currentKeys(db)) }
    }

    /// A write transaction, after whose commit the marks of what this process saw are raised to
    /// what it committed (``StateHighWater``). Raised only after the commit: a transaction that
    /// fails (a database server stopped under it) must not leave marks ahead of the database.
    private func sealedWrite<T>(
        durability: CommitDurability = .synced, _ body: (any StoreWriter) throws -> T
    ) throws -> T {
        let result = try storage.write(durability: durability, body)
        raiseMarks()
        return result
    }

    /// ``sealedWrite(durability:_:)`` on the engine's own threads.
    private func sealedWrite<T: Sendable>(
        durability: CommitDurability = .synced, _ body: @escaping @Sendable (any StoreWriter) throws -> T
    ) async throws -> T {
        let result = try await storage.write(durability: durability, body)
        raiseMarks()
        return result
    }

    /// Raises the marks to the committed state (a read; a failure to read leaves them as they are).
    private func raiseMarks() {
        let path = path
        guard
            let state = try? storage.read({ db in
                try SealedState(
                    unchecked: db.row("SELECT \(StateSeal.columns) FROM vault_meta WHERE id = 1"), path: path)
            })
        else { return }
        StateHighWater.raise(to: state, path: path)
    }

    /// Runs `body` in a write transaction with the current keys, for writes that do not add,
    /// change or delete sealed records (those go through ``write(records:)``). An `.ordered`
    /// commit does not wait for the disk: for audit entries of operations that change no record.
    func write<T>(durability: CommitDurability = .synced, _ body: (any StoreWriter, VaultKeys) throws -> T) throws -> T
    {
        try sealedWrite(durability: durability) { db in try body(db, currentKeys(db)) }
    }

    /// ``write(durability:_:)`` for a body whose first read is `columns` of the vault's metadata
    /// row: they are read in the same statement as the key id that picks the keys (one round trip
    /// fewer to a database server), and `body` gets them as a row (nil when there is no row).
    func write<T>(
        durability: CommitDurability, readingMetadata columns: String,
        _ body: (any StoreWriter, VaultKeys, StoreRow?) throws -> T
    ) throws -> T {
        try sealedWrite(durability: durability) { db in
            let row = try db.row("SELECT \(columns), key_id FROM vault_meta WHERE id = 1")
            let keys = try currentKeys(db, keyID: row?.values.last?.blob)
            return try body(db, keys, row)
        }
    }

    /// ``write(durability:_:)`` on the engine's own threads.
    func write<T: Sendable>(
        durability: CommitDurability = .synced, _ body: @escaping @Sendable (any StoreWriter, VaultKeys) throws -> T
    ) async throws -> T {
        try await sealedWrite(durability: durability) { db in try body(db, self.currentKeys(db)) }
    }

    /// Runs `body`, which adds, changes or deletes rows of `apps`, `associations` or `app_tokens`,
    /// in a write transaction with the current keys: no authentic row may be missing from the
    /// sealed grant set before (a write never blesses a row put back), and the new set is sealed
    /// in the same transaction (``GrantSet``).
    func write<T>(grants body: (any StoreWriter, VaultKeys) throws -> T) throws -> T {
        try sealedWrite { db in try self.inGrantsTransaction(db, body) }
    }

    /// ``write(grants:)`` on the engine's own threads.
    func write<T: Sendable>(grants body: @escaping @Sendable (any StoreWriter, VaultKeys) throws -> T) async throws -> T
    {
        try await sealedWrite { db in try self.inGrantsTransaction(db, body) }
    }

    private func inGrantsTransaction<T>(
        _ db: any StoreWriter, _ body: (any StoreWriter, VaultKeys) throws -> T
    ) throws
        -> T
    {
        let keys = try currentKeys(db)
        try GrantSet.requireNothingPutBack(db, keys: keys, path: path)
        let result = try body(db, keys)
        try GrantSet.store(db, keys: keys, path: path)
        return result
    }

    /// Runs `body` in a write transaction with the current keys and the record commitment,
    /// which `body` updates for every record it adds, changes or deletes; the new commitment is
    /// written in the same transaction.
    func write<T>(records body: (any StoreWriter, VaultKeys, RecordCommitment) throws -> T) throws -> T {
        try sealedWrite { db in try self.inRecordsTransaction(db, body) }
    }

    /// ``write(records:)`` on the engine's own threads.
    func write<T: Sendable>(
        records body: @escaping @Sendable (any StoreWriter, VaultKeys, RecordCommitment) throws -> T
    ) async throws -> T {
        try await sealedWrite { db in try self.inRecordsTransaction(db, body) }
    }

    private func inRecordsTransaction<T>(
        _ db: any StoreWriter, _ body: (any StoreWriter, VaultKeys, RecordCommitment) throws -> T
    ) throws -> T {
        let keys = try currentKeys(db)
        let commitment = try RecordCommitment.load(db, keys: keys, path: path)
        let result = try body(db, keys, commitment)
        if commitment.isChanged { try commitment.store(db, keys: keys, path: path) }
        return result
    }

    /// The keys to use inside a transaction. If another process rotated the vault key since this
    /// one unlocked it (a `rekey` while this process waited for the lock), the new key is
    /// unwrapped with the same wrapping key and used from now on: the operation is retried once
    /// with the new key instead of failing. If the passphrase changed too, that fails, and so
    /// does any rotation when ``VaultConfiguration/followsKeyChanges`` is off.
    private func currentKeys(_ db: any StoreReader) throws -> VaultKeys {
        try currentKeys(db, keyID: VaultMetadata.currentKeyID(db))
    }

    /// ``currentKeys(_:)`` given the key id the transaction read (nil: no metadata row).
    private func currentKeys(_ db: any StoreReader, keyID: [UInt8]?) throws -> VaultKeys {
        let current = unlocked.withLock { $0 }
        guard keyID != current.keys.keyID else { return current.keys }
        guard followsKeyChanges else { throw rotatedElsewhere }
        let stored = try VaultMetadata.read(db, path: path)
        let associatedData = VaultKeys.wrappedKeyAssociatedData(
            keyID: stored.keyID, protection: stored.protection, format: stored.formatVersion, epoch: stored.keyEpoch)
        guard stored.formatVersion == VaultKeys.formatVersion,
            let vaultKey = AuthenticatedEncryption.open(
                stored.wrappedKey, key: current.keys.wrappingKey, associatedData: associatedData),
            vaultKey.count == KeyDerivation.keyLength
        else { throw rotatedElsewhere }
        let keys = VaultKeys(keyID: stored.keyID, vaultKey: vaultKey, wrappingKey: current.keys.wrappingKey)
        unlocked.withLock { $0 = UnlockedKey(keys: keys, protection: stored.protection, wrappedKey: stored.wrappedKey) }
        return keys
    }

    /// The error for a record that failed authentication: integrity, unless the key was rotated
    /// by another process in the meantime.
    func recordFailure(_ db: any StoreReader, keys: VaultKeys, what: String) -> SharedWebCredentialsError {
        if let current = try? VaultMetadata.currentKeyID(db), current != keys.keyID { return rotatedElsewhere }
        return SharedWebCredentialsError(
            .integrityFailure,
            "\(what) in \(path) failed authentication: it was altered or damaged. Other records are unaffected; delete or restore this one."
        )
    }

    private var rotatedElsewhere: SharedWebCredentialsError {
        SharedWebCredentialsError(
            .vaultLocked, "The vault key of \(path) was changed by another process; unlock the vault again.")
    }
}

/// What a vault key rotation did beyond re-encrypting records.
public struct KeyRotation: Sendable, Equatable {
    /// The app tokens it revoked.
    public let revokedAppTokens: Int
    /// The browser associations it revoked.
    public let revokedBrowsers: Int
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
