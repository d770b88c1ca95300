import Foundation

extension Vault {
    /// Runs `body`, which adds, changes or deletes rows of `apps`, `associations`, `app_tokens`
    /// or `browser_associations` and records each in its ``GrantChanges``, in a write transaction
    /// with the current keys. The grant set changes by what `body` recorded and nothing else (a
    /// row that appeared in the tables otherwise stays out of it), and its sum is sealed in the
    /// same transaction (``GrantSet``).
    func write<T>(grants body: (any StoreWriter, VaultKeys, GrantChanges) throws -> T) throws -> T {
        try sealedWrite { db in try self.inGrantsTransaction(db, body) }
    }

    /// ``write(grants:)`` on the engine's own threads.
    func write<T: Sendable>(
        grants body: @escaping @Sendable (any StoreWriter, VaultKeys, GrantChanges) throws -> T
    ) async throws -> T {
        try await sealedWrite { db in try self.inGrantsTransaction(db, body) }
    }

    private func inGrantsTransaction<T>(
        _ db: any StoreWriter, _ body: (any StoreWriter, VaultKeys, GrantChanges) throws -> T
    ) throws
        -> T
    {
        let keys = try currentKeys(db)
        let changes = GrantChanges(sealed: try GrantSet.loadSum(db, keys: keys, path: path))
        let result = try body(db, keys, changes)
        try changes.commit(db: db, keys: keys, path: path)
        return result
    }
}
