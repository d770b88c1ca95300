/// What one write of grants (``Vault/write(grants:)``) did to the rows of the grant set's
/// tables through swcred: the MACs of the rows it wrote and of the rows it deleted. The sealed
/// set changes by these alone, never by what the tables hold afterwards, so a row that anything
/// else put there during the transaction (a trigger, a rule, another writer of the database) is
/// never sealed: it grants nothing, and is refused where it is read (``GrantCheck``).
final class GrantChanges {
    /// The set as it was sealed before the transaction, its tag checked.
    let sealed: Set<[UInt8]>
    private var added: Set<[UInt8]> = []
    private var removed: Set<[UInt8]> = []

    init(sealed: Set<[UInt8]>) {
        self.sealed = sealed
    }

    /// Records a row swcred wrote, by its MAC.
    func wrote(_ mac: [UInt8]) {
        added.insert(mac)
    }

    /// Records the rows of `table` matching `condition` as deleted, by their MACs (read before
    /// the caller changes them: an upsert's old row, a row about to be deleted).
    func replacing(_ table: String, where condition: String, _ arguments: [StoreValue], db: any StoreReader) throws {
        removed.formUnion(
            try db.rows("SELECT mac FROM \(table) WHERE \(condition)", arguments).compactMap { $0.blob(0) })
    }

    /// Deletes the rows of `table` matching `condition` and records their MACs as deleted;
    /// returns how many matched. The MACs are read first: a deletion the database then skips or
    /// undoes (a trigger) still takes the rows out of the set.
    @discardableResult
    func delete(
        from table: String, where condition: String, _ arguments: [StoreValue], db: any StoreWriter
    ) throws
        -> Int
    {
        let macs = try db.rows("SELECT mac FROM \(table) WHERE \(condition)", arguments).map { $0.blob(0) }
        removed.formUnion(macs.compactMap { $0 })
        try db.execute("DELETE FROM \(table) WHERE \(condition)", arguments)
        return macs.count
    }

    /// Deletes every row the sealed set does not hold (``GrantSet/removeUngranted(_:granted:keys:)``)
    /// and returns the audit entry that says so for the owner's `operation`, or nil when there
    /// was none: what every revocation and removal does after its own deletion.
    func removeUngranted(db: any StoreWriter, keys: VaultKeys, operation: AuditOperation) throws -> AuditEvent? {
        GrantSet.removalEntry(try GrantSet.removeUngranted(db, granted: sealed, keys: keys), operation: operation)
    }

    /// The set after the transaction: the sealed set without the rows deleted, with the rows
    /// written, and without any row that is no longer in the tables as `live` (their authentic
    /// MACs) shows them. `live` only ever takes rows out.
    func result(live: Set<[UInt8]>) -> Set<[UInt8]> {
        sealed.subtracting(removed).union(added).intersection(live)
    }
}
