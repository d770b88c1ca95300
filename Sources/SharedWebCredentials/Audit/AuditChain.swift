import Foundation

/// The audit log's storage: a chain of entries in `audit_log`, each authenticated by a keyed MAC
/// over its own columns and the previous entry's tag, between a sealed anchor and a sealed head
/// in `vault_meta`.
///
/// - An entry's tag is keyed BLAKE2b (the state key) over its sequence number, time, actor,
///   operation, outcome, error code, sealed subject and the previous tag; the first entry after
///   the anchor chains from the anchor's tag. Altering, removing, reordering or inserting an
///   entry breaks the tag of that entry or of the next one.
/// - The head (the last sequence number and tag) carries a MAC bound to the key id, so cutting
///   entries off the end is caught too; the anchor (where the kept entries start, after a prune)
///   is sealed the same way.
/// - The domain, account, app, released credentials and detail are sealed (XChaCha20-Poly1305
///   under the record key, bound to the sequence number), like every other record.
enum AuditChain {
    /// A point in the chain: a sequence number and the tag of the entry there (the anchor of a
    /// chain with nothing pruned is sequence 0 with an all-zero tag).
    struct Link: Equatable {
        var sequence: Int64
        var tag: [UInt8]

        static let genesis = Link(sequence: 0, tag: [UInt8](repeating: 0, count: KeyedHash.digestLength))
    }

    /// Which stored link.
    enum LinkColumn: String {
        case head = "audit_head"
        case anchor = "audit_anchor"
    }

    /// The columns every entry query selects, in the order ``tag(of:keys:previous:)`` reads.
    static let columns = "SELECT \(entryColumns) FROM audit_log"

    /// An entry's columns, in the order ``covered(_:)`` and ``open(_:keys:scope:)`` read them, in
    /// both chains' tables.
    static let entryColumns = "seq, at, actor, operation, outcome, error_code, sealed, tag"

    // MARK: Links

    /// Starts an empty chain: anchor and head at the genesis link.
    static func initialize(_ db: any StoreWriter, keys: VaultKeys) throws {
        try store(.genesis, as: .anchor, db: db, keys: keys)
        try store(.genesis, as: .head, db: db, keys: keys)
    }

    /// The stored link; throws `.integrityFailure` when it is missing or its MAC fails.
    static func load(_ column: LinkColumn, db: any StoreReader, keys: VaultKeys, path: String) throws -> Link {
        try link(
            try db.value("SELECT \(column.rawValue) FROM vault_meta WHERE id = 1")?.blob, as: column, keys: keys,
            path: path)
    }

    /// The link `stored` holds in `column`, its MAC checked.
    private static func link(_ stored: [UInt8]?, as column: LinkColumn, keys: VaultKeys, path: String) throws -> Link {
        let what = column == .head ? "head" : "anchor"
        guard let stored, stored.count == 8 + 2 * KeyedHash.digestLength else {
            throw SharedWebCredentialsError(
                .integrityFailure,
                "The audit log's sealed \(what) is missing from \(path): the vault metadata was altered. Restore the vault from a backup."
            )
        }
        let link = Link(stored: stored)
        guard equal(Array(stored[40..<72]), mac(of: link, as: column, keys: keys)) else {
            throw SharedWebCredentialsError(
                .integrityFailure,
                "The audit log's sealed \(what) in \(path) failed authentication: the vault metadata was altered. Restore the vault from a backup."
            )
        }
        return link
    }

    /// Writes a link with its MAC.
    static func store(_ link: Link, as column: LinkColumn, db: any StoreWriter, keys: VaultKeys) throws {
        let statement = storing(link, as: column, keys: keys)
        try db.perform(statement.sql, statement.arguments)
    }

    /// The statement that writes a link with its MAC.
    private static func storing(_ link: Link, as column: LinkColumn, keys: VaultKeys) -> StoreStatement {
        StoreStatement(column == .head ? updateHead : updateAnchor, [.blob(sealedLink(link, as: column, keys: keys))])
    }

    /// A link as its column stores it: sequence number, tag, MAC.
    private static func sealedLink(_ link: Link, as column: LinkColumn, keys: VaultKeys) -> [UInt8] {
        integer(link.sequence) + link.tag + mac(of: link, as: column, keys: keys)
    }

    private static let updateHeadAndSeal =
        "UPDATE vault_meta SET \(LinkColumn.head.rawValue) = ?, audit_checkpoint = ?, state_seal = ? WHERE id = 1"

    private static let updateHead = "UPDATE vault_meta SET \(LinkColumn.head.rawValue) = ? WHERE id = 1"
    private static let updateAnchor = "UPDATE vault_meta SET \(LinkColumn.anchor.rawValue) = ? WHERE id = 1"

    private static func mac(of link: Link, as column: LinkColumn, keys: VaultKeys) -> [UInt8] {
        keys.stateMAC(
            table: "vault_meta", fields: [Array(column.rawValue.utf8), keys.keyID, integer(link.sequence), link.tag])
    }

    // MARK: Entries

    /// Appends `event` after the head, inside the caller's write transaction; returns its sequence
    /// number. Throws `.integrityFailure` when the head fails authentication (fail closed).
    @discardableResult
    static func append(
        _ event: AuditEvent, at date: Date, db: any StoreWriter, keys: VaultKeys, path: String
    ) throws
        -> Int64
    {
        try append([event], at: date, db: db, keys: keys, path: path)[0]
    }

    /// Appends `events` in order after the head, inside the caller's write transaction, and
    /// moves the sealed head once, past the last; returns their sequence numbers. Group commit
    /// appends the entries of many requests this way, in one transaction.
    static func append(
        _ events: [AuditEvent], at date: Date, db: any StoreWriter, keys: VaultKeys, path: String
    )
        throws -> [Int64]
    {
        // The head and the last stored number in one statement (one round trip to a server).
        let stored = try db.row("SELECT \(headColumns) FROM vault_meta WHERE id = 1")
        return try append(events, at: date, db: db, keys: keys, path: path, head: stored)
    }

    /// The columns of `vault_meta`'s row that ``append(_:at:db:keys:path:head:)`` takes: the
    /// sealed head, the last stored sequence number, the sealed state and how many instance
    /// chains there are.
    static let headColumns =
        "audit_head, (SELECT max(seq) FROM audit_log), key_epoch, record_commitment, substr(grant_set, 1, 32), state_seal, audit_checkpoint, (SELECT count(*) FROM audit_chains)"

    /// ``append(_:at:db:keys:path:)`` with the head already read, in this transaction, as
    /// ``headColumns`` of `vault_meta` (nil when the row is missing).
    static func append(
        _ events: [AuditEvent], at date: Date, db: any StoreWriter, keys: VaultKeys, path: String,
        head stored: StoreRow?
    )
        throws -> [Int64]
    {
        let head = try link(stored?.blob(0), as: .head, keys: keys, path: path)
        // The head is sealed with the record commitment and the grant set: the seal is checked
        // before the head moves on (a rolled-back state is never sealed again), and resealed with it.
        var state = try SealedState(
            stored.map { StoreRow([$0[2], $0[3], $0[4], $0[0], $0[5], $0[6]]) }, keys: keys, path: path)
        try StateHighWater.check(state, path: path)
        guard !events.isEmpty else { return [] }
        // After the head, or after the last entry if the head was set back: never a reused number
        // (`audit verify` reports the set-back head either way).
        let lastStored = stored?.integer(1) ?? 0
        let appended = try entries(
            events, after: Link(sequence: max(head.sequence, lastStored), tag: head.tag), at: date, scope: .vault,
            keys: keys, path: path)
        // Every entry in one INSERT, and the head with it: one round trip to a server. The
        // instance chains' heads are sealed with it as this transaction reads them (the checkpoint).
        let newHead = sealedLink(appended.last, as: .head, keys: keys)
        state.replace(.auditHead, with: newHead)
        if stored?.integer(7) ?? 0 > 0 || state.auditCheckpoint != nil {
            state.replace(
                .auditCheckpoint, with: try AuditInstanceChains.checkpoint(db, keys: keys, old: state.auditCheckpoint))
        }
        try db.perform(together: [
            StoreStatement(insert(count: events.count, scope: .vault), appended.rows),
            StoreStatement(
                updateHeadAndSeal,
                [.blob(newHead), StoreValue(state.auditCheckpoint, StoreValue.blob), .blob(state.seal(keys: keys))]),
        ])
        return appended.sequences
    }

    /// The rows of `events` appended in order after `previous` in the chain `scope`, written at
    /// `date`: their sequence numbers, the values of their rows (as ``insert(count:scope:)`` takes
    /// them) and the new last link.
    static func entries(
        _ events: [AuditEvent], after previous: Link, at date: Date, scope: AuditScope, keys: VaultKeys, path: String
    ) throws -> (sequences: [Int64], rows: [StoreValue], last: Link) {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        var previous = previous
        var sequences: [Int64] = []
        sequences.reserveCapacity(events.count)
        var rows: [StoreValue] = []
        rows.reserveCapacity(events.count * 9)
        for event in events {
            let sequence = try StoredNumber.adding(
                1, to: previous.sequence, "The audit log's last entry number", path: path)
            let subject = try AuditSubject(event).sealed(
                associatedData: scope.associatedData(sequence: sequence), keys: keys)
            let values: [StoreValue] = [
                .integer(sequence), .integer(milliseconds), .text(event.actor.name), .text(event.operation.rawValue),
                .text(event.outcome.name), StoreValue(event.outcome.errorCode?.rawValue, StoreValue.text),
                .blob(subject),
            ]
            let entryTag = scope.tag(of: values, keys: keys, previous: previous.tag)
            if case .instance(let name) = scope { rows.append(.blob(name)) }
            rows += values + [.blob(entryTag)]
            previous = Link(sequence: sequence, tag: entryTag)
            sequences.append(sequence)
        }
        return (sequences, rows, previous)
    }

    /// The INSERT of `count` entries into the chain `scope`.
    static func insert(count: Int, scope: AuditScope) -> String {
        if count == 1, scope == .vault { return insertOne }
        switch scope {
        case .vault:
            let placeholders = Array(repeating: "(?, ?, ?, ?, ?, ?, ?, ?)", count: count).joined(separator: ", ")
            return "INSERT INTO audit_log (\(entryColumns)) VALUES \(placeholders)"
        case .instance:
            let placeholders = Array(repeating: "(?, ?, ?, ?, ?, ?, ?, ?, ?)", count: count).joined(separator: ", ")
            return "INSERT INTO audit_chain_log (chain, \(entryColumns)) VALUES \(placeholders)"
        }
    }

    /// The INSERT of one entry of the vault's chain, the most frequent (written once).
    private static let insertOne = "INSERT INTO audit_log (\(entryColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"

    /// The first seven columns of an entry row, what its tag covers besides the previous tag.
    static func covered(_ row: StoreRow) -> [StoreValue] {
        Array(row.values.prefix(7))
    }

    /// Opens an entry row of the chain `scope`; nil when its sealed subject fails authentication
    /// or a column is malformed.
    static func open(_ row: StoreRow, keys: VaultKeys, scope: AuditScope = .vault) -> AuditEntry? {
        guard let sequence = row.integer(0), let milliseconds = row.integer(1), let actor = row.text(2),
            let operation = row.text(3).flatMap(AuditOperation.init(rawValue:)),
            let outcomeName = row.text(4), let sealed = row.blob(6),
            let subject = AuditSubject.open(
                sealed, associatedData: scope.associatedData(sequence: sequence), keys: keys)
        else { return nil }
        let outcome: AuditOutcome
        switch (outcomeName, row.text(5).map(SharedWebCredentialsError.Code.init(rawValue:))) {
        case ("done", nil): outcome = .done
        case ("refused", .some(.some(let code))): outcome = .refused(code)
        default: return nil
        }
        return AuditEntry(
            chain: scope.displayName, sequence: sequence,
            date: Date(timeIntervalSince1970: Double(milliseconds) / 1000),
            event: AuditEvent(
                actor: AuditActor(name: actor), operation: operation, domain: subject.domain,
                account: subject.account, app: subject.app, released: subject.released, outcome: outcome,
                detail: subject.detail))
    }

    // MARK: Verification

    /// Walks every chain from its anchor to its head, the vault's first, then the instance
    /// chains against their sealed checkpoint (``AuditInstanceChains/verify(_:keys:path:)``).
    /// O(entries).
    static func verify(_ db: any StoreReader, keys: VaultKeys, path: String) throws -> AuditVerification {
        let anchor: Link
        let head: Link
        do {
            anchor = try load(.anchor, db: db, keys: keys, path: path)
            head = try load(.head, db: db, keys: keys, path: path)
        } catch let error as SharedWebCredentialsError where error.code == .integrityFailure {
            return AuditVerification(entriesChecked: 0, firstBadEntry: nil, problem: error.message)
        }
        let vault = try walk(.vault, from: anchor, to: head, db: db, keys: keys)
        guard vault.isIntact else { return vault }
        let instances = try AuditInstanceChains.verify(db, keys: keys, path: path)
        return AuditVerification(
            entriesChecked: vault.entriesChecked + instances.entriesChecked, chain: instances.chain,
            firstBadEntry: instances.firstBadEntry, problem: instances.problem)
    }

    /// Walks the chain `scope` from `anchor` to `head`: every entry numbered one past the one
    /// before it and tagged over its columns and that one's tag, the last one the head.
    static func walk(
        _ scope: AuditScope, from anchor: Link, to head: Link, db: any StoreReader, keys: VaultKeys
    ) throws -> AuditVerification {
        var previous = anchor
        var checked = 0
        var failure: AuditVerification?
        func failed(_ entry: Int64?, _ problem: String) -> AuditVerification {
            AuditVerification(
                entriesChecked: checked, chain: scope.displayName, firstBadEntry: entry,
                problem: scope == .vault ? problem : "\(scope.described): \(problem)")
        }
        let query = scope.selectEntries
        try db.forEachRow(query.sql, query.arguments) { row in
            guard failure == nil else { return }
            checked += 1
            guard let sequence = row.integer(0) else {
                failure = failed(nil, "an entry after #\(previous.sequence) has no sequence number")
                return
            }
            guard sequence == previous.sequence + 1 else {
                let missing =
                    sequence == previous.sequence + 2
                    ? "entry #\(previous.sequence + 1) before it is missing"
                    : sequence > previous.sequence + 2
                        ? "entries #\(previous.sequence + 1) to #\(sequence - 1) before it are missing"
                        : "it repeats or comes before entry #\(previous.sequence)"
                failure = failed(sequence, "entry #\(sequence): \(missing)")
                return
            }
            let stored = row.blob(7) ?? []
            guard equal(stored, scope.tag(of: covered(row), keys: keys, previous: previous.tag)) else {
                failure = failed(
                    sequence,
                    "entry #\(sequence) failed authentication: it, or the entry before it, was altered, swapped or replaced"
                )
                return
            }
            previous = Link(sequence: sequence, tag: stored)
        }
        if let failure { return failure }
        guard previous.sequence == head.sequence, equal(previous.tag, head.tag) else {
            return failed(
                min(previous.sequence, head.sequence) + 1,
                previous.sequence < head.sequence
                    ? "the log ends at entry #\(previous.sequence), but its sealed head is entry #\(head.sequence): entries #\(previous.sequence + 1) to #\(head.sequence) were cut off the end"
                    : "the last entry #\(previous.sequence) is not the sealed head (entry #\(head.sequence)): the log was replaced or rolled back"
            )
        }
        return AuditVerification(entriesChecked: checked, firstBadEntry: nil, problem: nil)
    }

    /// Throws `.integrityFailure` naming the first bad entry unless the chain verifies.
    static func requireIntact(_ db: any StoreReader, keys: VaultKeys, path: String, doing what: String) throws {
        let verification = try verify(db, keys: keys, path: path)
        if let problem = verification.problem {
            throw SharedWebCredentialsError(
                .integrityFailure,
                "The audit log of \(path) is broken (\(problem)), so \(what) was refused: nothing was changed. Run `swcred audit verify`, and restore the vault from a backup."
            )
        }
    }

    /// Re-seals and re-tags every entry, the anchor and the head under `newKeys`, faithfully: an
    /// entry whose tag verifies under `oldKeys` gets a tag that verifies under `newKeys`, and one
    /// that does not (or whose sealed part does not open) gets a random tag, so the chain breaks
    /// at the same entries as before; an anchor or head that fails, or a head that is not the last
    /// entry, fails after the rotation too. A key rotation neither blesses a tampered log nor is
    /// blocked by one (it is how the owner recovers from a leaked passphrase), with one exception:
    /// the head is part of the sealed state, so a head replaced behind swcred's back refuses the
    /// rotation before this runs (``StateSeal``), and only an anchor can fail here. The instance
    /// chains go the same way (``AuditInstanceChains/reencryptAll(_:from:to:path:)``).
    static func reencryptAll(_ db: any StoreWriter, from oldKeys: VaultKeys, to newKeys: VaultKeys, path: String) throws
    {
        let anchor = try? load(.anchor, db: db, keys: oldKeys, path: path)
        let head = try? load(.head, db: db, keys: oldKeys, path: path)
        let retagged = try retag(.vault, anchor: anchor, head: head, db: db, from: oldKeys, to: newKeys)
        if let anchor {
            try store(anchor, as: .anchor, db: db, keys: newKeys)
        } else {
            try storeFailing(.anchor, db: db)
        }
        if let newHead = retagged.head {
            try store(newHead, as: .head, db: db, keys: newKeys)
        } else {
            try storeFailing(.head, db: db)
        }
        try AuditInstanceChains.reencryptAll(db, from: oldKeys, to: newKeys, path: path)
    }

    /// Re-seals and re-tags the entries of `scope` under `newKeys` faithfully (see
    /// ``reencryptAll(_:from:to:path:)``); returns the head to store under `newKeys` (nil when
    /// `head` is: it failed authentication) and, for the entry numbered `watched`, its old tag and
    /// its new one (a random one unless it was authentic).
    static func retag(
        _ scope: AuditScope, anchor: Link?, head: Link?, db: any StoreWriter, from oldKeys: VaultKeys,
        to newKeys: VaultKeys, watching watched: Int64? = nil
    ) throws -> (head: Link?, watched: (old: [UInt8], new: [UInt8])?) {
        var previousOld = anchor?.tag ?? Link.genesis.tag
        var previousNew = previousOld
        var last: Link?
        var seen: (old: [UInt8], new: [UInt8])?
        let query = scope.selectEntries
        for row in try db.rows(query.sql, query.arguments) {
            guard let sequence = row.integer(0) else { continue }
            let oldTag = row.blob(7) ?? []
            var values = covered(row)
            var authentic = equal(oldTag, scope.tag(of: values, keys: oldKeys, previous: previousOld))
            let associatedData = scope.associatedData(sequence: sequence)
            if let sealed = row.blob(6),
                let subject = AuditSubject.open(sealed, associatedData: associatedData, keys: oldKeys)
            {
                values[6] = .blob(try subject.sealed(associatedData: associatedData, keys: newKeys))
            } else {
                authentic = false
            }
            let newTag =
                authentic
                ? scope.tag(of: values, keys: newKeys, previous: previousNew)
                : RandomBytes.array(count: KeyedHash.digestLength)
            let update = scope.retagging(sequence: sequence, sealed: values[6], tag: newTag)
            try db.execute(update.sql, update.arguments)
            if sequence == watched { seen = (oldTag, newTag) }
            last = Link(sequence: sequence, tag: oldTag)
            previousOld = oldTag
            previousNew = newTag
        }
        guard let head else { return (nil, seen) }
        let headIsLast = last.map { $0 == head } ?? (anchor == head)
        let headTag = headIsLast ? previousNew : RandomBytes.array(count: KeyedHash.digestLength)
        return (Link(sequence: head.sequence, tag: headTag), seen)
    }

    /// Writes a link that fails authentication under any key (for one that failed before a rotation).
    private static func storeFailing(_ column: LinkColumn, db: any StoreWriter) throws {
        try db.execute(
            "UPDATE vault_meta SET \(column.rawValue) = ? WHERE id = 1", [.blob([UInt8](repeating: 0, count: 72))])
    }

    // MARK: Helpers

    static func integer(_ value: Int64) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }

    static func equal(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        lhs.count == rhs.count
            && lhs.withUnsafeBytes { given in rhs.withUnsafeBytes { ConstantTime.equals(given, $0) } }
    }
}

/// The sealed part of an audit entry: domain, account, app, released credentials and detail.
///
/// Encoded as length-prefixed fields (integers little-endian): domain, account and app each as a
/// presence byte (0 or 1) then u32 length and UTF-8 bytes, then u32 count of released credentials,
/// each as domain and account (u32 length, bytes), then, only when there is a detail, a presence
/// byte 1 and the detail (u32 length, bytes). An entry without a detail (every entry written
/// before detail existed) ends after the released credentials, so old entries open unchanged and
/// new entries without a detail are sealed exactly as before. A request releasing a thousand
/// credentials encodes in microseconds, where a JSON encoder took milliseconds.
struct AuditSubject {
    var domain: String?
    var account: String?
    var app: String?
    var released: [AuditCredential]
    var detail: String?

    init(_ event: AuditEvent) {
        domain = event.domain
        account = event.account
        app = event.app
        released = event.released
        detail = event.detail
    }

    private init(domain: String?, account: String?, app: String?, released: [AuditCredential], detail: String?) {
        self.domain = domain
        self.account = account
        self.app = app
        self.released = released
        self.detail = detail
    }

    /// Sealed under the record key, bound to `associatedData` (``AuditScope/associatedData(sequence:)``).
    func sealed(associatedData: [UInt8], keys: VaultKeys) throws -> [UInt8] {
        let texts = [domain, account, app].map { ($0?.utf8.count ?? 0) + 5 }.reduce(0, +)
        let releasedBytes = released.reduce(4) { $0 + 8 + $1.domain.utf8.count + $1.account.utf8.count }
        var plain: [UInt8] = []
        plain.reserveCapacity(texts + releasedBytes + (detail.map { $0.utf8.count + 5 } ?? 0))
        for optional in [domain, account, app] {
            plain.append(optional == nil ? 0 : 1)
            Self.append(optional ?? "", to: &plain)
        }
        withUnsafeBytes(of: UInt32(released.count).littleEndian) { plain.append(contentsOf: $0) }
        for credential in released {
            Self.append(credential.domain, to: &plain)
            Self.append(credential.account, to: &plain)
        }
        if let detail {
            plain.append(1)
            Self.append(detail, to: &plain)
        }
        defer { plain.withUnsafeMutableBytes { if let base = $0.baseAddress { memset(base, 0, $0.count) } } }
        // Sealed where it is: a locked copy of bytes already in ordinary memory protects nothing,
        // and for a request that released a thousand credentials it cost a `sodium_malloc` of
        // 40 KB (mapping, guard pages, two locks) and its unmapping.
        return plain.withUnsafeBytes {
            AuthenticatedEncryption.seal(
                $0, key: keys.recordKey, associatedData: associatedData)
        }
    }

    /// Appends `text` as a u32 length and its UTF-8 bytes, copied from the string's own storage.
    private static func append(_ text: String, to plain: inout [UInt8]) {
        var text = text
        text.withUTF8 { bytes in
            withUnsafeBytes(of: UInt32(bytes.count).littleEndian) { plain.append(contentsOf: $0) }
            plain.append(contentsOf: bytes)
        }
    }

    /// Opens a sealed subject bound to `associatedData`; nil if it fails authentication or does not decode.
    static func open(_ sealed: [UInt8], associatedData: [UInt8], keys: VaultKeys) -> AuditSubject? {
        guard
            let plain = AuthenticatedEncryption.open(
                sealed, key: keys.recordKey, associatedData: associatedData)
        else { return nil }
        return plain.withUnsafeBytes { bytes -> AuditSubject? in
            var offset = 0
            func integer() -> UInt32? {
                guard offset + 4 <= bytes.count else { return nil }
                defer { offset += 4 }
                return (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + $1]) << (8 * UInt32($1)) }
            }
            func text() -> String? {
                guard let length = integer().map(Int.init), offset + length <= bytes.count else { return nil }
                defer { offset += length }
                return String(
                    decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)]), as: UTF8.self)
            }
            var optionals: [String?] = []
            for _ in 0..<3 {
                guard offset < bytes.count, bytes[offset] <= 1 else { return nil }
                let present = bytes[offset] == 1
                offset += 1
                guard let value = text() else { return nil }
                optionals.append(present ? value : nil)
            }
            guard let count = integer() else { return nil }
            var released: [AuditCredential] = []
            for _ in 0..<count {
                guard let domain = text(), let account = text() else { return nil }
                released.append(AuditCredential(domain: domain, account: account))
            }
            // Entries without a detail (and all written before it existed) end here.
            var detail: String?
            if offset < bytes.count {
                guard bytes[offset] == 1 else { return nil }
                offset += 1
                guard let value = text() else { return nil }
                detail = value
            }
            guard offset == bytes.count else { return nil }
            return AuditSubject(
                domain: optionals[0], account: optionals[1], app: optionals[2], released: released, detail: detail)
        }
    }
}

extension AuditChain.Link {
    /// The link a stored link's first 40 bytes hold (sequence number, tag), its MAC not
    /// checked; `stored` has at least 40 bytes.
    init(stored: [UInt8]) {
        var sequence: Int64 = 0
        withUnsafeMutableBytes(of: &sequence) { $0.copyBytes(from: stored[0..<8]) }
        self.init(sequence: Int64(littleEndian: sequence), tag: Array(stored[8..<40]))
    }
}
