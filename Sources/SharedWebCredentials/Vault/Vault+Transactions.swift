import Foundation
import Synchronization

extension Vault {
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
    func sealedWrite<T>(
        durability: CommitDurability = .synced, _ body: (any StoreWriter) throws -> T
    ) throws -> T {
        let result = try storage.write(durability: durability, body)
        raiseMarks()
        return result
    }

    /// ``sealedWrite(durability:_:)`` on the engine's own threads.
    func sealedWrite<T: Sendable>(
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
    func currentKeys(_ db: any StoreReader) throws -> VaultKeys {
        try currentKeys(db, keyID: VaultMetadata.currentKeyID(db))
    }

    /// ``currentKeys(_:)`` given the key id the transaction read (nil: no metadata row).
    func currentKeys(_ db: any StoreReader, keyID: [UInt8]?) throws -> VaultKeys {
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

    var rotatedElsewhere: SharedWebCredentialsError {
        SharedWebCredentialsError(
            .vaultLocked, "The vault key of \(path) was changed by another process; unlock the vault again.")
    }
}
