import Foundation
import Synchronization

/// The set of every authentic row that grants access without being a record: the registered apps
/// (`apps`), the stored verdicts (`associations`), the app tokens (`app_tokens`) and the
/// browsers the owner approved (`browser_associations`).
///
/// Each of those rows carries its own MAC, which stops a forged or edited row but not an older
/// row put back: a revoked token, a removed app or an app's wider entitlement inserted again from
/// a copy of the file. The set holds the MAC of every row swcred wrote and has not deleted since,
/// one row of `grant_members` each, and `vault_meta.grant_set` holds their sum (``MultisetSum``
/// of a keyed element per MAC) followed by a MAC of the sum; the state seal covers the sum
/// (``StateSeal``). So:
///
/// - every read that lets a row grant access checks that the row's MAC is in the set
///   (``GrantCheck``), the members having been checked against the sealed sum once for that sum:
///   a row put back is refused however it got there;
/// - every write of those tables changes the set by the rows it wrote and deleted itself
///   (``GrantChanges``), never by what the tables hold afterwards, adding and deleting members and
///   moving the sum by their elements in the same transaction (``Vault/write(grants:)``): a write
///   costs what it touches, not what the set holds, and a row nobody wrote through swcred never
///   enters the set, however it got into the table, even during swcred's own transaction;
/// - a member row put back as well leaves members whose sum is not the sealed one: the whole set
///   then fails closed (nothing it would grant is released) until the owner rotates the key
///   (``Vault/rotateKey()``), which keeps no token, browser or verdict and only the apps that are
///   authentic members;
/// - revoking, removing and changing the key delete every row the set does not hold, audited
///   (``removeUngranted(_:members:keys:)``), so a row put back never stops the owner from taking
///   access away;
/// - `status --verify` reports rows put back, rows removed and members that do not match their
///   sum (``Vault/integrityReport()``).
enum GrantSet {
    /// The MACs of every authentic row of the four tables, as `db` holds them. A row whose MAC
    /// fails is left out: it grants nothing anyway (it counts as missing, or fails closed, where
    /// it is read), and `status --verify` reports it.
    static func liveMACs(_ db: any StoreReader, keys: VaultKeys) throws -> Set<[UInt8]> {
        var macs: Set<[UInt8]> = []
        for table in [AuthenticatedTable.apps, .associations, BrowserAssociationStore.table] {
            for row in try db.rows(table.select) where table.isAuthentic(row, keys: keys) {
                if let mac = row.blob(table.columns.count) { macs.insert(mac) }
            }
        }
        for row in try db.rows(AppTokenStore.select) where AppTokenStore.authentic(row, keys: keys) != nil {
            if let mac = row.blob(7) { macs.insert(mac) }
        }
        return macs
    }

    // MARK: The sealed sum

    /// The element a member adds to the sum: a keyed hash of its MAC under the state key.
    static func element(of mac: [UInt8], keys: VaultKeys) -> [UInt8] {
        keys.stateMAC(table: "live:grants", fields: [mac])
    }

    /// The sum of `members`' elements.
    static func sum(of members: some Sequence<[UInt8]>, keys: VaultKeys) -> MultisetSum {
        var sum = MultisetSum.empty
        for mac in members { sum.insert(element(of: mac, keys: keys)) }
        return sum
    }

    /// The MAC of a sum, which binds it to the key.
    private static func tag(of sum: MultisetSum, keys: VaultKeys) -> [UInt8] {
        keys.stateMAC(table: "vault_meta", fields: [Array("grant_members".utf8), keys.keyID, sum.bytes])
    }

    /// The column value for a sum: the sum (which the state seal covers), then its MAC.
    static func columnValue(of sum: MultisetSum, keys: VaultKeys) -> [UInt8] {
        sum.bytes + tag(of: sum, keys: keys)
    }

    /// The stored sum; throws `.integrityFailure` when it is missing or its MAC fails.
    static func loadSum(_ db: any StoreReader, keys: VaultKeys, path: String) throws -> MultisetSum {
        guard let sum = parseSum(try db.value("SELECT grant_set FROM vault_meta WHERE id = 1")?.blob, keys: keys)
        else { throw mismatch(path) }
        return sum
    }

    /// The sum a stored column value holds, or nil when it is not one (a list of the format
    /// before migration 0012, or a value whose MAC fails).
    static func parseSum(_ stored: [UInt8]?, keys: VaultKeys) -> MultisetSum? {
        let width = KeyedHash.digestLength
        guard let stored, stored.count == 2 * width, let sum = MultisetSum(bytes: stored[0..<width]) else {
            return nil
        }
        guard AuditChain.equal(Array(stored[width...]), tag(of: sum, keys: keys)) else { return nil }
        return sum
    }

    /// Stores `sum` under the state seal.
    static func store(_ sum: MultisetSum, db: any StoreWriter, keys: VaultKeys, path: String) throws {
        try StateSeal.update(.grantSet, to: columnValue(of: sum, keys: keys), db: db, keys: keys, path: path)
    }

    // MARK: Members

    /// The members as `grant_members` holds them, unchecked.
    static func memberRows(_ db: any StoreReader) throws -> Set<[UInt8]> {
        var members: Set<[UInt8]> = []
        try db.forEachRow("SELECT mac FROM grant_members", []) { row in
            if let mac = row.blob(0) { members.insert(mac) }
        }
        return members
    }

    /// The members, checked against the stored sum: throws `.integrityFailure` when the sum is
    /// missing, its MAC fails, or the members are not those it sums (one was put back, inserted
    /// or deleted behind swcred's back). O(members) to read; given members already checked
    /// against an earlier sum (`known`), only the elements of the members that differ from them
    /// are computed: the sum of the rest is the earlier one.
    static func verifiedMembers(
        _ db: any StoreReader, keys: VaultKeys, path: String,
        known: (sum: MultisetSum, members: Set<[UInt8]>)? = nil
    ) throws -> Set<[UInt8]> {
        let stored = try loadSum(db, keys: keys, path: path)
        let members = try memberRows(db)
        var computed: MultisetSum
        if let known {
            computed = known.sum
            for mac in members.subtracting(known.members) { computed.insert(element(of: mac, keys: keys)) }
            for mac in known.members.subtracting(members) { computed.remove(element(of: mac, keys: keys)) }
        } else {
            computed = sum(of: members, keys: keys)
        }
        guard computed.matches(stored) else { throw mismatch(path) }
        return members
    }

    /// Replaces the members with `members` and stores their sum without touching the seal: for
    /// the steps that reseal the whole state themselves (a new vault, the first seal of an older
    /// one, a change of key, the move from the list of the format before migration 0012).
    static func replaceUnsealed(with members: Set<[UInt8]>, db: any StoreWriter, keys: VaultKeys) throws {
        try db.execute("DELETE FROM grant_members", [])
        for mac in members { try db.execute("INSERT INTO grant_members (mac) VALUES (?)", [.blob(mac)]) }
        try db.perform(
            "UPDATE vault_meta SET grant_set = ? WHERE id = 1",
            [.blob(columnValue(of: sum(of: members, keys: keys), keys: keys))])
    }

    /// Makes the set of every authentic row as the tables hold it now, without touching the
    /// seal: only where the vault's first set is made (a new vault, the first seal of an older
    /// one), whose rows there is no earlier set to judge by.
    static func storeFirstUnsealed(_ db: any StoreWriter, keys: VaultKeys) throws {
        try replaceUnsealed(with: liveMACs(db, keys: keys), db: db, keys: keys)
    }

    // MARK: What differs

    /// How the rows differ from the set.
    struct Difference: Equatable {
        /// Authentic rows the set does not hold: put back from an older copy.
        var putBack: Int
        /// Members that are not in the tables, or are no longer authentic.
        var removed: Int
        /// Whether the members are those the sealed sum sums (false: a member row was put back,
        /// inserted or deleted behind swcred's back, and the set as a whole grants nothing).
        var membersMatchSum: Bool
    }

    /// How the rows differ from the set; nil when the stored sum is missing or its MAC fails.
    static func difference(_ db: any StoreReader, keys: VaultKeys, path: String) throws -> Difference? {
        guard let stored = try? loadSum(db, keys: keys, path: path) else { return nil }
        let members = try memberRows(db)
        let live = try liveMACs(db, keys: keys)
        return Difference(
            putBack: live.subtracting(members).count, removed: members.subtracting(live).count,
            membersMatchSum: sum(of: members, keys: keys).matches(stored))
    }

    /// Deletes every row of the four tables that is not both authentic and in `members` (put
    /// back from an older copy, forged, or altered behind swcred's back), and returns how many
    /// it deleted from each table, in order, leaving out tables with none. Such a row grants
    /// nothing already, and is not a member, so the sum does not move; deleting it is what lets
    /// the owner's revocations, removals and key changes always go through instead of failing
    /// on it.
    static func removeUngranted(
        _ db: any StoreWriter, members: Set<[UInt8]>, keys: VaultKeys
    ) throws -> [(table: String, count: Int)] {
        var removed: [(table: String, count: Int)] = []
        // Verdicts before apps: an app's deletion would take its verdicts with it uncounted.
        for table in [AuthenticatedTable.associations, .apps, BrowserAssociationStore.table] {
            let ungranted = try db.rows(table.select).filter { row in
                !(table.isAuthentic(row, keys: keys) && row.blob(table.columns.count).map(members.contains) == true)
            }
            for row in ungranted {
                try db.execute("DELETE FROM \(table.name) WHERE \(table.whereIdentity)", table.identity(of: row))
            }
            if !ungranted.isEmpty { removed.append((table.name, ungranted.count)) }
        }
        let tokens = try db.rows(AppTokenStore.select).filter { row in
            !(AppTokenStore.authentic(row, keys: keys) != nil && row.blob(7).map(members.contains) == true)
        }
        for row in tokens { try db.execute("DELETE FROM app_tokens WHERE id = ?", [row[0]]) }
        if !tokens.isEmpty { removed.append(("app_tokens", tokens.count)) }
        return removed
    }

    /// The audit entry for what ``removeUngranted(_:members:keys:)`` deleted during the owner's
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
    /// the set does not hold: rows that grant nothing, which listings mark instead of showing
    /// them as live. Throws `.integrityFailure` when the members do not match their sealed sum.
    static func ungranted(
        _ select: String, macColumn: Int, db: any StoreReader, keys: VaultKeys, path: String
    ) throws -> Set<String> {
        let members = try verifiedMembers(db, keys: keys, path: path)
        return Set(
            try db.rows(select).filter { row in !(row.blob(macColumn).map(members.contains) ?? false) }
                .compactMap { $0.text(0) })
    }

    /// The error for a set that no longer holds the rows.
    static func mismatch(_ path: String) -> SharedWebCredentialsError {
        SharedWebCredentialsError(
            .integrityFailure,
            "The registered apps, stored verdicts, app tokens and browsers of \(path) do not match their sealed grant set: a row was put back from an older copy or rolled back behind swcred's back. Nothing was released or changed. Restore the vault from a backup, or run `swcred rekey`, which revokes every app token and browser, drops every verdict and keeps the apps the set still vouches for."
        )
    }
}

/// Checks, in a read transaction, that a row about to grant access is in the grant set. The
/// members are read and checked against the sealed sum once per vault location and sum, then
/// kept until the sum changes, so that each check costs one read of `vault_meta`, one small MAC
/// and a lookup. A write of grants by this process moves the kept members with the sum
/// (``advance(_:keyID:from:to:added:removed:)``), so only another process's write makes the next
/// check read them all again.
enum GrantCheck {
    private struct Verified {
        let keyID: [UInt8]
        let sum: [UInt8]
        let members: Set<[UInt8]>
    }

    private static let verified = Mutex<[String: Verified]>([:])

    /// Throws `.integrityFailure` unless the state seal holds and `mac` is in the grant set it
    /// seals. `what` names the row for the error.
    static func require(
        _ mac: [UInt8]?, what: @autoclosure () -> String, db: any StoreReader, keys: VaultKeys, path: String
    ) throws {
        let state = try sealedState(db, keys: keys, path: path)
        guard let sealedSum = state.grantTag else { throw GrantSet.mismatch(path) }
        let members: Set<[UInt8]>
        let known = verified.withLock { $0[path] }.flatMap { $0.keyID == keys.keyID ? $0 : nil }
        if let known, known.sum == sealedSum {
            members = known.members
        } else {
            // Another process changed the set: what this one checked before is the start.
            members = try GrantSet.verifiedMembers(
                db, keys: keys, path: path,
                known: known.flatMap { known in MultisetSum(bytes: known.sum).map { ($0, known.members) } })
            verified.withLock { $0[path] = Verified(keyID: keys.keyID, sum: sealedSum, members: members) }
        }
        guard let mac, members.contains(mac) else {
            throw SharedWebCredentialsError(
                .integrityFailure,
                "\(what()) in \(path) is not in its sealed grant set: it was put back from an older copy or rolled back behind swcred's back, so it grants nothing. Restore the vault from a backup."
            )
        }
    }

    /// The sealed state as the read transaction `db` sees it, its seal checked under `keys`:
    /// read once per read transaction (``ReadTransactionMemo``), in every check of a write.
    private static func sealedState(_ db: any StoreReader, keys: VaultKeys, path: String) throws -> SealedState {
        let memo = db.readMemo
        if let known = memo?.sealedState, known.keyID == keys.keyID { return known.state }
        let state = try SealedState.load(db, keys: keys, path: path)
        StateHighWater.raise(to: state, path: path)
        memo?.sealedState = (keys.keyID, state)
        return state
    }

    /// Checks the sealed state in `row` (``StateSeal/columns``, read by the transaction `db` in a
    /// statement of its own choosing) and keeps it as the transaction's (``ReadTransactionMemo``),
    /// so that the grant checks after it read `vault_meta` no more. Throws `.integrityFailure`
    /// when the seal fails; does nothing in a write transaction.
    static func remember(sealedState row: StoreRow, db: any StoreReader, keys: VaultKeys, path: String) throws {
        guard let memo = db.readMemo else { return }
        let state = try SealedState(row, keys: keys, path: path)
        StateHighWater.raise(to: state, path: path)
        memo.sealedState = (keys.keyID, state)
    }

    /// Moves the members kept for `path` from the sum `old` to `new` by what a write of grants
    /// in this process added and removed, if they are the members of `old`; otherwise leaves
    /// them (the next check reads the members again). Kept members of a sum that never commits
    /// are never used: a check uses them only when the vault shows that sum under its seal.
    static func advance(
        _ path: String, keyID: [UInt8], from old: MultisetSum, to new: MultisetSum, added: Set<[UInt8]>,
        removed: Set<[UInt8]>
    ) {
        verified.withLock { verified in
            guard let known = verified[path], known.keyID == keyID, known.sum == old.bytes else { return }
            verified[path] = Verified(
                keyID: keyID, sum: new.bytes, members: known.members.subtracting(removed).union(added))
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
