/// What one write of grants (``Vault/write(grants:)``) did to the rows of the grant set's
/// tables through swcred: the MACs of the rows it wrote and of the rows it deleted. The set
/// changes by these alone, never by what the tables hold afterwards, so a row that anything
/// else put there during the transaction (a trigger, a rule, another writer of the database) is
/// never sealed: it grants nothing, and is refused where it is read (``GrantCheck``). The cost of
/// the change is that of the rows it touched, whatever the size of the set.
final class GrantChanges {
    /// The sum as it was sealed before the transaction, its MAC checked.
    private let sealed: MultisetSum
    private var added: Set<[UInt8]> = []
    private var removed: Set<[UInt8]> = []

    init(sealed: MultisetSum) {
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

    /// Deletes every row that is not a member of the set (``GrantSet/removeUngranted(_:members:keys:)``)
    /// and returns the audit entry that says so for the owner's `operation`, or nil when there
    /// was none: what every revocation and removal does after its own deletion. Such rows are not
    /// members, so the sum does not move.
    func removeUngranted(db: any StoreWriter, keys: VaultKeys, operation: AuditOperation) throws -> AuditEvent? {
        GrantSet.removalEntry(
            try GrantSet.removeUngranted(db, members: GrantSet.memberRows(db), keys: keys), operation: operation)
    }

    /// Applies the changes to the members and the sum, seals the new sum in the same
    /// transaction (the stored seal checked first, as at every write of a sealed column), and
    /// moves this process's checked members with it (``GrantCheck``). A row written and deleted
    /// in the same transaction (an upsert that changed nothing) leaves the set as it was. A
    /// deleted row's element leaves the sum only if it had a member row: a row put back without
    /// one was never in the sum. It leaves even if the database then keeps the member row (a
    /// PostgreSQL table owner's trigger or rule): the members no longer match the sum, and the
    /// whole set fails closed rather than keep granting what the owner took away.
    func commit(db: any StoreWriter, keys: VaultKeys, path: String) throws {
        var sum = sealed
        var left: Set<[UInt8]> = []
        for mac in removed.subtracting(added)
        where try db.row("SELECT 1 FROM grant_members WHERE mac = ?", [.blob(mac)]) != nil {
            try db.execute("DELETE FROM grant_members WHERE mac = ?", [.blob(mac)])
            sum.remove(GrantSet.element(of: mac, keys: keys))
            left.insert(mac)
        }
        let new = added.subtracting(removed)
        for mac in new {
            try db.execute("INSERT INTO grant_members (mac) VALUES (?) ON CONFLICT (mac) DO NOTHING", [.blob(mac)])
            sum.insert(GrantSet.element(of: mac, keys: keys))
        }
        try GrantSet.store(sum, db: db, keys: keys, path: path)
        GrantCheck.advance(path, keyID: keys.keyID, from: sealed, to: sum, added: new, removed: left)
    }
}
