import Foundation
import Synchronization

/// The set of every authentic row that grants access without being a record: the registered apps
/// (`apps`), the stored verdicts (`associations`), the app tokens (`app_tokens`) and the
/// browsers the owner approved (`browser_associations`).
///
/// Each of those rows carries its own MAC, which stops a forged or edited row but not an older
/// row put back: a revoked token, a removed app or an app's wider entitlement inserted again from
/// a copy of the file. `vault_meta.grant_set` holds the sorted MACs of every such row after a tag
/// (keyed BLAKE2b under the state key over them), and the state seal covers the tag
/// (``StateSeal``), so:
///
/// - every read that lets a row grant access checks that the row's MAC is in the set
///   (``GrantCheck``): a row put back is refused however it got there;
/// - every write of those tables changes the set by the rows it wrote and deleted itself
///   (``GrantChanges``), never by what the tables hold afterwards, and seals the new set in the
///   same transaction (``Vault/write(grants:)``): a row nobody wrote through swcred never enters
///   the set, however it got into the table, even during swcred's own transaction;
/// - revoking, removing and changing the key delete every row the set does not hold, audited
///   (``removeUngranted(_:granted:keys:)``), so a row put back never stops the owner from taking
///   access away;
/// - `status --verify` reports rows put back and rows removed (``Vault/integrityReport()``).
enum GrantSet {
    /// The MACs of every authentic row of the three tables, as `db` holds them. A row whose MAC
    /// fails is left out: it grants nothing anyway (it counts as missing, or fails closed, where
    /// it is read), and `status --verify` reports it.
    static func macs(_ db: any StoreReader, keys: VaultKeys) throws -> [[UInt8]] {
        var macs: [[UInt8]] = []
        for table in [AuthenticatedTable.apps, .associations, BrowserAssociationStore.table] {
            for row in try db.rows(table.select) where table.isAuthentic(row, keys: keys) {
                if let mac = row.blob(table.columns.count) { macs.append(mac) }
            }
        }
        for row in try db.rows(AppTokenStore.select) where AppTokenStore.authentic(row, keys: keys) != nil {
            if let mac = row.blob(7) { macs.append(mac) }
        }
        return macs
    }

    /// The tag of a set of MACs given in sorted order.
    private static func tag(ofSorted macs: [[UInt8]], keys: VaultKeys) -> [UInt8] {
        keys.stateMAC(table: "vault_meta", fields: [Array("grant_set".utf8), keys.keyID] + macs)
    }

    /// The column value for a set of MACs: the tag, then the MACs in order.
    static func columnValue(of macs: [[UInt8]], keys: VaultKeys) -> [UInt8] {
        let sorted = macs.sorted { $0.lexicographicallyPrecedes($1) }
        return tag(ofSorted: sorted, keys: keys) + sorted.joined()
    }

    /// The stored set; throws `.integrityFailure` when it is missing or its tag fails.
    static func load(_ db: any StoreReader, keys: VaultKeys, path: String) throws -> Set<[UInt8]> {
        try parse(db.value("SELECT grant_set FROM vault_meta WHERE id = 1")?.blob, keys: keys, path: path)
    }

    /// The set a stored column value holds, its tag checked.
    static func parse(_ stored: [UInt8]?, keys: VaultKeys, path: String) throws -> Set<[UInt8]> {
        let width = KeyedHash.digestLength
        guard let stored, stored.count >= width, stored.count % width == 0 else { throw mismatch(path) }
        let macs = stride(from: width, to: stored.count, by: width).map { Array(stored[$0..<($0 + width)]) }
        guard AuditChain.equal(Array(stored[0..<width]), tag(ofSorted: macs, keys: keys)) else { throw mismatch(path) }
        return Set(macs)
    }

    /// How the authentic rows differ from the stored set.
    struct Difference: Equatable {
        /// Authentic rows the set does not hold: put back from an older copy.
        var putBack = 0
        /// Rows the set holds that are not in the tables, or are no longer authentic.
        var removed = 0
    }

    /// How the rows differ from the stored set; nil when the stored set is missing or its tag fails.
    static func difference(_ db: any StoreReader, keys: VaultKeys, path: String) throws -> Difference? {
        guard let stored = try? load(db, keys: keys, path: path) else { return nil }
        let live = Set(try macs(db, keys: keys))
        return Difference(putBack: live.subtracting(stored).count, removed: stored.subtracting(live).count)
    }

    /// Stores `macs` as the set under the state seal.
    static func store(_ macs: Set<[UInt8]>, db: any StoreWriter, keys: VaultKeys, path: String) throws {
        try StateSeal.update(.grantSet, to: columnValue(of: Array(macs), keys: keys), db: db, keys: keys, path: path)
    }

    /// Stores `macs` as the set without touching the seal: for the steps that reseal the whole
    /// state themselves (``StateSeal/reseal(_:keys:path:)``).
    static func storeUnsealed(_ macs: Set<[UInt8]>, db: any StoreWriter, keys: VaultKeys) throws {
        try db.perform(
            "UPDATE vault_meta SET grant_set = ? WHERE id = 1", [.blob(columnValue(of: Array(macs), keys: keys))])
    }

    /// Stores the set of every authentic row as the tables hold it now, without touching the
    /// seal: only where the vault's first set is made (a new vault, the first seal of an older
    /// one), whose rows there is no earlier set to judge by.
    static func storeFirstUnsealed(_ db: any StoreWriter, keys: VaultKeys) throws {
        try storeUnsealed(Set(macs(db, keys: keys)), db: db, keys: keys)
    }

    /// Deletes every row of the four tables that is not both authentic and in `granted` (put
    /// back from an older copy, forged, or altered behind swcred's back), and returns how many
    /// it deleted from each table, in order, leaving out tables with none. Such a row grants
    /// nothing already; deleting it is what lets the owner's revocations, removals and key changes
    /// always go through instead of failing on it.
    static func removeUngranted(
        _ db: any StoreWriter, granted: Set<[UInt8]>, keys: VaultKeys
    ) throws -> [(table: String, count: Int)] {
        var removed: [(table: String, count: Int)] = []
        // Verdicts before apps: an app's deletion would take its verdicts with it uncounted.
        for table in [AuthenticatedTable.associations, .apps, BrowserAssociationStore.table] {
            let ungranted = try db.rows(table.select).filter { row in
                !(table.isAuthentic(row, keys: keys) && row.blob(table.columns.count).map(granted.contains) == true)
            }
            for row in ungranted {
                try db.execute("DELETE FROM \(table.name) WHERE \(table.whereIdentity)", table.identity(of: row))
            }
            if !ungranted.isEmpty { removed.append((table.name, ungranted.count)) }
        }
        let tokens = try db.rows(AppTokenStore.select).filter { row in
            !(AppTokenStore.authentic(row, keys: keys) != nil && row.blob(7).map(granted.contains) == true)
        }
        for row in tokens { try db.execute("DELETE FROM app_tokens WHERE id = ?", [row[0]]) }
        if !tokens.isEmpty { removed.append(("app_tokens", tokens.count)) }
        return removed
    }

    /// The audit entry for what ``removeUngranted(_:granted:keys:)`` deleted during the owner's
    /// `operation`, or nil when it deleted nothing.
    static func removalEntry(_ removed: [(table: String, count: Int)], operation: AuditOperation) -> AuditEvent? {
        guard !removed.isEmpty else { return nil }
        let counts = removed.map { "\($0.table) \($0.count)" }.joined(separator: ", ")
        return AuditEvent(
            actor: .owner, operation: operation,
            detail:
                "removed \(removed.map(\.count).reduce(0, +)) row(s) the sealed grant set does not hold (put back, forged or altered behind swcred's back; they granted nothing): \(counts)"
        )
    }

    /// The first column (the name or id) of each row `select` reads whose MAC (column `macColumn`)
    /// the stored set does not hold: rows that grant nothing, which listings mark instead of
    /// showing them as live. Throws `.integrityFailure` when the set is missing or its tag fails.
    static func ungranted(
        _ select: String, macColumn: Int, db: any StoreReader, keys: VaultKeys, path: String
    ) throws -> Set<String> {
        let stored = try load(db, keys: keys, path: path)
        return Set(
            try db.rows(select).filter { row in !(row.blob(macColumn).map(stored.contains) ?? false) }
                .compactMap { $0.text(0) })
    }

    /// The error for a set that no longer holds the rows.
    static func mismatch(_ path: String) -> SharedWebCredentialsError {
        SharedWebCredentialsError(
            .integrityFailure,
            "The registered apps, stored verdicts and app tokens of \(path) do not match their sealed set: a row was put back from an older copy or rolled back behind swcred's back. Nothing was released or changed; restore the vault from a backup."
        )
    }
}

/// Checks, in a read transaction, that a row about to grant access is in the grant set. The set
/// is read and its tag checked once per vault location, then kept until its tag changes, so
/// that each check costs one read of `vault_meta`, one small MAC and a lookup.
enum GrantCheck {
    private struct Verified {
        let keyID: [UInt8]
        let tag: [UInt8]
        let macs: Set<[UInt8]>
    }

    private static let verified = Mutex<[String: Verified]>([:])

    /// Throws `.integrityFailure` unless the state seal holds and `mac` is in the grant set it
    /// seals. `what` names the row for the error.
    static func require(
        _ mac: [UInt8]?, what: @autoclosure () -> String, db: any StoreReader, keys: VaultKeys, path: String
    ) throws {
        let state = try SealedState.load(db, keys: keys, path: path)
        StateHighWater.raise(to: state, path: path)
        guard let tag = state.grantTag else { throw GrantSet.mismatch(path) }
        let macs: Set<[UInt8]>
        if let known = verified.withLock({ $0[path] }), known.keyID == keys.keyID, known.tag == tag {
            macs = known.macs
        } else {
            macs = try GrantSet.load(db, keys: keys, path: path)
            verified.withLock { $0[path] = Verified(keyID: keys.keyID, tag: tag, macs: macs) }
        }
        guard let mac, macs.contains(mac) else {
            throw SharedWebCredentialsError(
                .integrityFailure,
                "\(what()) in \(path) is not in its sealed grant set: it was put back from an older copy or rolled back behind swcred's back, so it grants nothing. Restore the vault from a backup."
            )
        }
    }
}

/// The highest key epoch and audit head each vault location showed this process: a vault that
/// shows less was set back (a copy of it put back, or its audit log cut with its head), which no
/// MAC inside it can reveal. A long-running service holds this across locks and unlocks.
///
/// Checked where a transaction sees the latest state: at unlock and in every write that moves a
/// sealed column (every audit entry among them). A read transaction may run on a snapshot older
/// than a commit this process already saw, so reads only raise the marks; writes raise them after
/// their commit.
enum StateHighWater {
    private static let seen = Mutex<[String: (epoch: Int64, audit: Int64)]>([:])

    /// Throws `.integrityFailure` when `state` is behind what `path` showed before. Raises
    /// nothing: a state read inside a write transaction may hold that transaction's own writes,
    /// which are not committed yet (``raise(to:path:)`` takes committed states only).
    static func check(_ state: SealedState, path: String) throws {
        let problem: String? = seen.withLock { seen in
            let before = seen[path] ?? (0, 0)
            if state.epoch < before.epoch {
                return
                    "its key epoch went back from \(before.epoch) to \(state.epoch) (a copy from before a change of passphrase or key was put back)"
            }
            if state.auditSequence < before.audit {
                return
                    "its audit log's head went back from entry \(before.audit) to \(state.auditSequence) (entries were cut off its end)"
            }
            return nil
        }
        if let problem {
            throw SharedWebCredentialsError(
                .integrityFailure,
                "\(path) was rolled back while this process used it: \(problem). Nothing was released or changed; find out who wrote to the vault, then restore it from a backup."
            )
        }
    }

    /// Raises the marks of `path` to `state` without checking: a committed state (a read
    /// transaction's snapshot, or what a write committed), which may be older than one already seen.
    static func raise(to state: SealedState, path: String) {
        seen.withLock { seen in
            let before = seen[path] ?? (0, 0)
            seen[path] = (max(before.epoch, state.epoch), max(before.audit, state.auditSequence))
        }
    }

    /// Forgets `path`: a new vault was made there.
    static func forget(_ path: String) {
        _ = seen.withLock { $0.removeValue(forKey: path) }
    }
}
