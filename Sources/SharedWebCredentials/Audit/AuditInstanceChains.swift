import Foundation

/// The audit chains of running instances (``AuditScope/instance(_:)``): one row of
/// `audit_chains` each (its head and anchor, each with a MAC bound to the key id and the chain's
/// name) and its entries in `audit_chain_log`.
///
/// An instance appends to its own chain in a transaction that writes only that chain's rows
/// (``append(_:to:after:replacing:at:db:keys:path:)``), so requests of several instances write
/// no row in common. Every write of the vault's chain seals a checkpoint of the chains' heads into
/// the state seal (``checkpoint(_:keys:old:)``), so that a chain's head set back with its tail
/// cut off is caught by `audit verify` once any change was sealed after the entries cut off;
/// the process that appends to a chain refuses a head behind the highest it wrote.
enum AuditInstanceChains {
    /// Which link of a chain's row.
    enum Column: String {
        case head
        case anchor
    }

    /// The columns of `vault_meta` and of the chain's row that an append reads, in one statement:
    /// the key id, the chain's head and its last stored sequence number.
    static let appendColumns =
        "SELECT key_id, (SELECT head FROM audit_chains WHERE chain = ?), (SELECT max(seq) FROM audit_chain_log WHERE chain = ?) FROM vault_meta WHERE id = 1"

    /// Every chain's row: its name, head and anchor, in the order of the names.
    static let selectChains = "SELECT chain, head, anchor FROM audit_chains ORDER BY chain"

    /// The head of the chain moved under an append (a change of key, or a writer behind
    /// swcred's back): the append is rolled back and may be tried once more.
    struct HeadMoved: StoreBodySignal {}

    /// The error for a chain whose head did not move with its entries twice in a row, the second
    /// time from the head just read: a trigger or another writer keeps it.
    static func headStuck(_ name: [UInt8], path: String) -> SharedWebCredentialsError {
        SharedWebCredentialsError(
            .integrityFailure,
            "The head of the audit log's \(AuditScope.instance(name).described) in \(path) did not move with its entries: something in the store (a trigger, another writer) keeps or changes it. Nothing was released or recorded; run `swcred audit verify`, and remove what changes the table."
        )
    }

    // MARK: Links

    /// The link `stored` holds in `column` of chain `name`'s row, its MAC checked.
    static func link(
        _ stored: [UInt8]?, as column: Column, chain name: [UInt8], keys: VaultKeys, path: String
    ) throws -> AuditChain.Link {
        let described = AuditScope.instance(name).described
        guard let stored, stored.count == 8 + 2 * KeyedHash.digestLength else {
            throw SharedWebCredentialsError(
                .integrityFailure,
                "The sealed \(column.rawValue) of the audit log's \(described) is missing from \(path): the audit log was altered. Run `swcred audit verify`."
            )
        }
        let link = AuditChain.Link(stored: stored)
        guard AuditChain.equal(Array(stored[40..<72]), mac(of: link, as: column, chain: name, keys: keys)) else {
            throw SharedWebCredentialsError(
                .integrityFailure,
                "The sealed \(column.rawValue) of the audit log's \(described) in \(path) failed authentication: the audit log was altered. Run `swcred audit verify`."
            )
        }
        return link
    }

    /// A link as its column stores it: sequence number, tag, MAC.
    static func sealedLink(
        _ link: AuditChain.Link, as column: Column, chain name: [UInt8], keys: VaultKeys
    ) -> [UInt8] {
        AuditChain.integer(link.sequence) + link.tag + mac(of: link, as: column, chain: name, keys: keys)
    }

    private static func mac(
        of link: AuditChain.Link, as column: Column, chain name: [UInt8], keys: VaultKeys
    ) -> [UInt8] {
        keys.stateMAC(
            table: "audit_chains",
            fields: [Array(column.rawValue.utf8), keys.keyID, name, AuditChain.integer(link.sequence), link.tag])
    }

    /// A link that fails authentication under any key (for one that failed before a rotation).
    private static let failing = [UInt8](repeating: 0, count: 72)

    // MARK: Append

    /// Where an append that did not write the chain's last head itself goes on from: `stored` is
    /// ``appendColumns``' row as its transaction read it, `highest` the highest sequence number
    /// this process committed to the chain (nil before its first append). Returns the link to
    /// append after (after the last stored entry if the head was set back: never a reused
    /// number) and the head as stored (nil: the chain has no row yet). Throws
    /// `.integrityFailure` when the head fails its MAC, is behind `highest`, or the chain's row
    /// is gone after this process wrote it (fail closed: nothing is released).
    static func resume(
        _ stored: StoreRow?, chain name: [UInt8], keys: VaultKeys, path: String, highest: Int64?
    ) throws -> (previous: AuditChain.Link, storedHead: [UInt8]?) {
        let described = AuditScope.instance(name).described
        guard let storedHead = stored?.blob(1) else {
            if let highest {
                throw SharedWebCredentialsError(
                    .integrityFailure,
                    "The audit log's \(described), where this process had written \(highest) entries, is gone from \(path): it was deleted behind swcred's back. Nothing was released; run `swcred audit verify`."
                )
            }
            return (.genesis, nil)
        }
        let head = try link(storedHead, as: .head, chain: name, keys: keys, path: path)
        if let highest, head.sequence < highest {
            throw SharedWebCredentialsError(
                .integrityFailure,
                "\(path) was rolled back while this process used it: the head of its audit log's \(described) went back from entry \(highest) to \(head.sequence) (entries were cut off its end). Nothing was released; find out who wrote to the vault, then restore it from a backup."
            )
        }
        let lastStored = stored?.integer(2) ?? 0
        return (AuditChain.Link(sequence: max(head.sequence, lastStored), tag: head.tag), storedHead)
    }

    /// Appends `events` to chain `name` after `previous`, in the caller's transaction, which need
    /// not hold the writers' lock: inserts them and moves the head from `storedHead`, only if it
    /// is still stored as it was (``HeadMoved`` otherwise), in one statement where the engine can;
    /// with no `storedHead`, writes the chain's row. Returns the entries' sequence numbers and
    /// the head as now stored.
    static func append(
        _ events: [AuditEvent], to name: [UInt8], after previous: AuditChain.Link, replacing storedHead: [UInt8]?,
        at date: Date, db: any StoreWriter, keys: VaultKeys, path: String
    ) throws -> (sequences: [Int64], head: [UInt8]) {
        let scope = AuditScope.instance(name)
        let appended = try AuditChain.entries(events, after: previous, at: date, scope: scope, keys: keys, path: path)
        let entries = StoreStatement(AuditChain.insert(count: events.count, scope: scope), appended.rows)
        let newHead = sealedLink(appended.last, as: .head, chain: name, keys: keys)
        if let storedHead {
            let moved = try db.rows(
                after: [entries],
                returning: StoreStatement(
                    "UPDATE audit_chains SET head = ? WHERE chain = ? AND head = ? RETURNING chain",
                    [.blob(newHead), .blob(name), .blob(storedHead)]))
            guard moved.count == 1 else { throw HeadMoved() }
        } else {
            try db.perform(together: [
                entries,
                StoreStatement(
                    "INSERT INTO audit_chains (chain, head, anchor) VALUES (?, ?, ?)",
                    [
                        .blob(name), .blob(newHead),
                        .blob(sealedLink(.genesis, as: .anchor, chain: name, keys: keys)),
                    ]),
            ])
        }
        return (appended.sequences, newHead)
    }

    // MARK: Checkpoint

    /// One chain's head in a checkpoint: its name, sequence number and tag.
    struct Mark: Equatable {
        var chain: [UInt8]
        var sequence: Int64
        var tag: [UInt8]

        static let length = AuditScope.nameLength + 8 + KeyedHash.digestLength
    }

    /// The marks a checkpoint column holds (malformed bytes give none past them).
    static func marks(_ stored: [UInt8]?) -> [Mark] {
        guard let stored else { return [] }
        return stride(from: 0, to: stored.count - Mark.length + 1, by: Mark.length).map { start in
            var sequence: Int64 = 0
            withUnsafeMutableBytes(of: &sequence) {
                $0.copyBytes(from: stored[(start + AuditScope.nameLength)..<(start + AuditScope.nameLength + 8)])
            }
            return Mark(
                chain: Array(stored[start..<(start + AuditScope.nameLength)]),
                sequence: Int64(littleEndian: sequence),
                tag: Array(stored[(start + AuditScope.nameLength + 8)..<(start + Mark.length)]))
        }
    }

    /// The marks a checkpoint column holds, by their chains' names.
    static func marksByChain(_ stored: [UInt8]?) -> [[UInt8]: Mark] {
        Dictionary(marks(stored).map { ($0.chain, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The bytes of `marks`, in the order of their chains' names.
    static func bytes(of marks: [Mark]) -> [UInt8] {
        marks.sorted { $0.chain.lexicographicallyPrecedes($1.chain) }.flatMap {
            $0.chain + AuditChain.integer($0.sequence) + $0.tag
        }
    }

    /// The checkpoint to seal now, in a write of the vault's chain: each chain's head, where it
    /// still holds the entry its mark in `old` (the sealed checkpoint) names; otherwise that old
    /// mark, unchanged, so that a chain set back or altered is never blessed by the next change
    /// and `audit verify` keeps finding it. A chain whose head fails its MAC keeps its old mark
    /// (or gets none). Never throws for a damaged chain: the owner's changes go on.
    static func checkpoint(_ db: any StoreReader, keys: VaultKeys, old: [UInt8]?) throws -> [UInt8] {
        var kept = marksByChain(old)
        for row in try db.rows(selectChains) {
            guard let name = row.blob(0), name.count == AuditScope.nameLength,
                let head = try? link(row.blob(1), as: .head, chain: name, keys: keys, path: ""),
                let anchor = try? link(row.blob(2), as: .anchor, chain: name, keys: keys, path: "")
            else { continue }
            if let mark = kept[name], try !holds(mark, head: head, anchor: anchor, db: db) { continue }
            kept[name] = Mark(chain: name, sequence: head.sequence, tag: head.tag)
        }
        return bytes(of: Array(kept.values))
    }

    /// Whether a chain whose head and anchor are these still holds the entry `mark` names: its
    /// head at or past it, and the entry there with that tag (the anchor's, if it is the anchor;
    /// anything, if it was pruned before the anchor).
    static func holds(
        _ mark: Mark, head: AuditChain.Link, anchor: AuditChain.Link, db: any StoreReader
    ) throws -> Bool {
        guard head.sequence >= mark.sequence else { return false }
        if mark.sequence < anchor.sequence { return true }
        if mark.sequence == anchor.sequence { return AuditChain.equal(anchor.tag, mark.tag) }
        if mark.sequence == head.sequence { return AuditChain.equal(head.tag, mark.tag) }
        let tag = try db.value(
            "SELECT tag FROM audit_chain_log WHERE chain = ? AND seq = ?", [.blob(mark.chain), .integer(mark.sequence)]
        )?.blob
        return tag.map { AuditChain.equal($0, mark.tag) } ?? false
    }

    // MARK: Verification

    /// Walks every instance chain from its anchor to its head, and checks each against its mark
    /// in the sealed checkpoint (a chain in it is still there, at or past it, holding its entry).
    /// Entries of a chain that has no row are reported too.
    static func verify(_ db: any StoreReader, keys: VaultKeys, path: String) throws -> AuditVerification {
        var pending: [[UInt8]: Mark]
        do {
            pending = marksByChain(try SealedState.load(db, keys: keys, path: path).auditCheckpoint)
        } catch let error as SharedWebCredentialsError where error.code == .integrityFailure {
            return AuditVerification(entriesChecked: 0, firstBadEntry: nil, problem: error.message)
        }
        var checked = 0
        for row in try db.rows(selectChains) {
            guard let name = row.blob(0), name.count == AuditScope.nameLength else { continue }
            let scope = AuditScope.instance(name)
            let head: AuditChain.Link
            let anchor: AuditChain.Link
            do {
                head = try link(row.blob(1), as: .head, chain: name, keys: keys, path: path)
                anchor = try link(row.blob(2), as: .anchor, chain: name, keys: keys, path: path)
            } catch let error as SharedWebCredentialsError where error.code == .integrityFailure {
                return AuditVerification(
                    entriesChecked: checked, chain: scope.displayName, firstBadEntry: nil, problem: error.message)
            }
            let walked = try AuditChain.walk(scope, from: anchor, to: head, db: db, keys: keys)
            checked += walked.entriesChecked
            guard walked.isIntact else {
                return AuditVerification(
                    entriesChecked: checked, chain: walked.chain, firstBadEntry: walked.firstBadEntry,
                    problem: walked.problem)
            }
            if let mark = pending.removeValue(forKey: name), try !holds(mark, head: head, anchor: anchor, db: db) {
                return AuditVerification(
                    entriesChecked: checked, chain: scope.displayName, firstBadEntry: head.sequence + 1,
                    problem:
                        "\(scope.described): its head is entry #\(head.sequence), but entry #\(mark.sequence) was sealed in it: its head was set back and entries cut off its end, or the entry sealed was replaced"
                )
            }
        }
        if let missing = pending.values.min(by: { $0.chain.lexicographicallyPrecedes($1.chain) }) {
            let scope = AuditScope.instance(missing.chain)
            return AuditVerification(
                entriesChecked: checked, chain: scope.displayName, firstBadEntry: nil,
                problem:
                    "\(scope.described), sealed at entry #\(missing.sequence), is missing: its row was deleted, and its entries with it or left without a head"
            )
        }
        if let orphan = try db.row(
            "SELECT chain, min(seq) FROM audit_chain_log WHERE chain NOT IN (SELECT chain FROM audit_chains) GROUP BY chain ORDER BY chain LIMIT 1"
        ), let name = orphan.blob(0) {
            let scope = AuditScope.instance(name)
            return AuditVerification(
                entriesChecked: checked, chain: scope.displayName, firstBadEntry: orphan.integer(1),
                problem: "\(scope.described) has entries but no sealed head: its row was deleted")
        }
        return AuditVerification(entriesChecked: checked, firstBadEntry: nil, problem: nil)
    }

    // MARK: Changes of key and prunes

    /// Locks every chain's row (on PostgreSQL; SQLite's writer holds the whole file), so that an
    /// instance append under way commits before this transaction reads the chains, or finds its
    /// head moved (``HeadMoved``) after it.
    static func lockAll(_ db: any StoreWriter) throws {
        try db.perform("UPDATE audit_chains SET head = head", [])
    }

    /// Re-seals and re-tags every instance chain under `newKeys` as
    /// ``AuditChain/reencryptAll(_:from:to:path:)`` does the vault's, and the checkpoint with
    /// them: a mark whose entry was authentic gets its new tag, any other a random one (it keeps
    /// failing).
    static func reencryptAll(_ db: any StoreWriter, from oldKeys: VaultKeys, to newKeys: VaultKeys, path: String) throws
    {
        try lockAll(db)
        let stored = try db.value("SELECT audit_checkpoint FROM vault_meta WHERE id = 1")?.blob
        var marks = marksByChain(stored)
        for row in try db.rows(selectChains) {
            guard let name = row.blob(0), name.count == AuditScope.nameLength else { continue }
            let anchor = try? link(row.blob(2), as: .anchor, chain: name, keys: oldKeys, path: path)
            let head = try? link(row.blob(1), as: .head, chain: name, keys: oldKeys, path: path)
            let mark = marks[name]
            let retagged = try AuditChain.retag(
                .instance(name), anchor: anchor, head: head, db: db, from: oldKeys, to: newKeys,
                watching: mark?.sequence)
            if var mark, mark.sequence > (anchor?.sequence ?? 0) {
                if let watched = retagged.watched, AuditChain.equal(watched.old, mark.tag) {
                    mark.tag = watched.new
                } else {
                    mark.tag = RandomBytes.array(count: KeyedHash.digestLength)
                }
                marks[name] = mark
            }
            try db.perform(
                "UPDATE audit_chains SET head = ?, anchor = ? WHERE chain = ?",
                [
                    .blob(retagged.head.map { sealedLink($0, as: .head, chain: name, keys: newKeys) } ?? failing),
                    .blob(anchor.map { sealedLink($0, as: .anchor, chain: name, keys: newKeys) } ?? failing),
                    .blob(name),
                ])
        }
        if stored != nil {
            try db.perform(
                "UPDATE vault_meta SET audit_checkpoint = ? WHERE id = 1", [.blob(bytes(of: Array(marks.values)))])
        }
    }

    /// Drops the entries of every instance chain written before `cutoff` (milliseconds since
    /// 1970), oldest first up to the first one that is not older, and moves each chain's anchor
    /// to the last one dropped. The caller has checked every chain first. Returns how many.
    static func prune(_ db: any StoreWriter, before cutoff: Int64, keys: VaultKeys, path: String) throws -> Int {
        try lockAll(db)
        var dropped = 0
        for row in try db.rows(selectChains) {
            guard let name = row.blob(0), name.count == AuditScope.nameLength else { continue }
            let anchor = try link(row.blob(2), as: .anchor, chain: name, keys: keys, path: path)
            let firstKept = try db.integer(
                "SELECT min(seq) FROM audit_chain_log WHERE chain = ? AND at >= ?", [.blob(name), .integer(cutoff)])
            guard
                let last = try db.row(
                    "SELECT seq, tag FROM audit_chain_log WHERE chain = ? AND seq < ? ORDER BY seq DESC LIMIT 1",
                    [.blob(name), .integer(firstKept ?? Int64.max)]),
                let sequence = last.integer(0), let tag = last.blob(1)
            else { continue }
            try db.execute(
                "DELETE FROM audit_chain_log WHERE chain = ? AND seq <= ?", [.blob(name), .integer(sequence)])
            dropped += Int(sequence - anchor.sequence)
            try db.perform(
                "UPDATE audit_chains SET anchor = ? WHERE chain = ?",
                [
                    .blob(
                        sealedLink(AuditChain.Link(sequence: sequence, tag: tag), as: .anchor, chain: name, keys: keys)),
                    .blob(name),
                ])
        }
        return dropped
    }
}
