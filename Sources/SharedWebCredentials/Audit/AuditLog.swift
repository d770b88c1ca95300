import Foundation

/// The vault's tamper-evident audit log (``Vault/audit``): one entry for every operation done for
/// an app and every change the owner makes. See ``AuditChain`` for how it is chained and sealed.
///
/// Integrators: append an entry for a change inside the change's own transaction with
/// ``CredentialBatch/recordAudit(_:)`` (all or nothing), and for an operation that changes no
/// record (a release, an export, a refusal) with ``append(_:)`` before handing anything out.
public struct AuditLog: Sendable {
    let vault: Vault

    /// Appends `event` in a transaction of its own, committed without waiting for an fsync
    /// (`synchronous=NORMAL` for this transaction only): the entry survives a crash of the
    /// process, but a power loss may take the entries of the last moments with it, together with
    /// the head that seals them (so the chain still verifies). Changes to records are committed
    /// with a full sync, and their entries with them. Throws when the entry cannot be written:
    /// the caller must then not release or do what it records (fail closed).
    @discardableResult
    public func append(_ event: AuditEvent) throws -> Int64 {
        try vault.write(durability: .ordered) { db, keys in
            try AuditChain.append(event, at: Date(), db: db, keys: keys, path: vault.path)
        }
    }

    /// Appends `event` with the entries of other operations running side by side, in one write
    /// transaction (``AuditGroupCommit``), committed as ``append(_:)`` commits; returns its
    /// sequence number once that transaction has committed. The transaction runs on the storage
    /// engine's threads, so the caller suspends instead of blocking (or, when the caller is a task
    /// on those threads and no commit is under way, commits there in place). Throws when the
    /// entry cannot be written: the caller must then not release or do what it records (fail
    /// closed).
    @discardableResult
    public func append(_ event: AuditEvent) async throws -> Int64 {
        try await vault.auditGroupCommit.append(event, vault: vault)
    }

    /// How the entries appended with ``append(_:)-(AuditEvent)async`` were grouped so far, in this process.
    public var commitStatistics: AuditCommitStatistics { vault.auditGroupCommit.statistics }

    /// The entries that match every filter given, oldest first. Throws `.integrityFailure`
    /// naming the entry when one's sealed part fails authentication (``verify()`` checks the chain).
    public func entries(
        actor: AuditActor? = nil, since: Date? = nil, operation: AuditOperation? = nil
    ) throws
        -> [AuditEntry]
    {
        var conditions: [String] = []
        var arguments: [StoreValue] = []
        if let actor {
            conditions.append("actor = ?")
            arguments.append(.text(actor.name))
        }
        if let since {
            conditions.append("at >= ?")
            arguments.append(.integer(Int64((since.timeIntervalSince1970 * 1000).rounded(.down))))
        }
        if let operation {
            conditions.append("operation = ?")
            arguments.append(.text(operation.rawValue))
        }
        let filter = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        return try vault.read { db, keys in
            var chains: [[AuditEntry]] = [[]]
            try db.forEachRow("\(AuditChain.columns)\(filter) ORDER BY seq", arguments) { row in
                chains[0].append(try opened(row, keys: keys, scope: .vault))
            }
            var name: [UInt8]?
            try db.forEachRow(
                "SELECT chain, \(AuditChain.entryColumns) FROM audit_chain_log\(filter) ORDER BY chain, seq", arguments
            ) { row in
                let chain = row.blob(0) ?? []
                if chain != name {
                    chains.append([])
                    name = chain
                }
                chains[chains.count - 1].append(
                    try opened(StoreRow(Array(row.values.dropFirst())), keys: keys, scope: .instance(chain)))
            }
            return Self.merged(chains)
        }
    }

    /// The entries of several chains, each in its own order, merged by time: at each step the
    /// earliest of the chains' next entries (the first chain's at equal times). A chain's own
    /// order is kept even where its times go back (a clock set back).
    static func merged(_ chains: [[AuditEntry]]) -> [AuditEntry] {
        guard chains.count > 1 else { return chains.first ?? [] }
        var next = [Int](repeating: 0, count: chains.count)
        var merged: [AuditEntry] = []
        merged.reserveCapacity(chains.reduce(0) { $0 + $1.count })
        while true {
            var earliest: Int?
            for (index, chain) in chains.enumerated() where next[index] < chain.count {
                if let current = earliest, chains[current][next[current]].date <= chain[next[index]].date { continue }
                earliest = index
            }
            guard let earliest else { return merged }
            merged.append(chains[earliest][next[earliest]])
            next[earliest] += 1
        }
    }

    /// An entry row of the chain `scope`, opened; throws `.integrityFailure` naming it when its
    /// sealed part fails authentication.
    private func opened(_ row: StoreRow, keys: VaultKeys, scope: AuditScope) throws -> AuditEntry {
        guard let entry = AuditChain.open(row, keys: keys, scope: scope) else {
            let chain = scope.displayName.map { " of instance chain \($0)" } ?? ""
            throw SharedWebCredentialsError(
                .integrityFailure,
                "Audit entry #\(row.integer(0) ?? -1)\(chain) in \(vault.path) failed authentication: it was altered. Run `swcred audit verify`."
            )
        }
        return entry
    }

    /// Checks the whole chain, from the anchor through every entry to the sealed head. O(entries).
    public func verify() throws -> AuditVerification {
        try vault.read { db, keys in try AuditChain.verify(db, keys: keys, path: vault.path) }
    }

    /// Drops the entries written before `date`, in every chain oldest first up to the first one
    /// that is not older, and moves each chain's sealed anchor to the last one dropped, so the
    /// rest still verifies.
    /// Refuses (`.integrityFailure`, nothing dropped) when the chain is broken: pruning must not
    /// hide tampering. Records itself as an `audit-prune` entry. Returns how many were dropped.
    @discardableResult
    public func prune(before date: Date) throws -> Int {
        let cutoff = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        return try vault.write { db, keys in
            try AuditChain.requireIntact(db, keys: keys, path: vault.path, doing: "the prune")
            let anchor = try AuditChain.load(.anchor, db: db, keys: keys, path: vault.path)
            let firstKept = try db.integer("SELECT min(seq) FROM audit_log WHERE at >= ?", [.integer(cutoff)])
            let lastDropped = try db.row(
                "SELECT seq, tag FROM audit_log WHERE seq < ? ORDER BY seq DESC LIMIT 1",
                [.integer(firstKept ?? Int64.max)])
            var dropped = try AuditInstanceChains.prune(db, before: cutoff, keys: keys, path: vault.path)
            if let lastDropped, let sequence = lastDropped.integer(0), let tag = lastDropped.blob(1) {
                try db.execute("DELETE FROM audit_log WHERE seq <= ?", [.integer(sequence)])
                dropped += Int(sequence - anchor.sequence)
                try AuditChain.store(AuditChain.Link(sequence: sequence, tag: tag), as: .anchor, db: db, keys: keys)
            }
            try AuditChain.append(
                AuditEvent(actor: .owner, operation: .auditPrune), at: Date(), db: db, keys: keys, path: vault.path)
            return dropped
        }
    }
}

/// What ``AuditLog/verify()`` found.
public struct AuditVerification: Sendable, Equatable {
    /// The entries whose tags were checked, in every chain.
    public let entriesChecked: Int
    /// The instance chain (``AuditEntry/chain``) where the problem is; nil when it is in the
    /// vault's chain, or when the chain verifies.
    public let chain: String?
    /// The sequence number of the first entry that failed (for entries cut off the end, the
    /// first one missing); nil when the chain is intact or its anchor or head is what failed.
    public let firstBadEntry: Int64?
    /// One sentence naming what is wrong; nil when the chain verifies.
    public let problem: String?

    /// Whether the whole chain verified.
    public var isIntact: Bool { problem == nil }

    init(entriesChecked: Int, chain: String? = nil, firstBadEntry: Int64?, problem: String?) {
        self.entriesChecked = entriesChecked
        self.chain = chain
        self.firstBadEntry = firstBadEntry
        self.problem = problem
    }
}

extension Vault {
    /// The audit log.
    public var audit: AuditLog { AuditLog(vault: self) }
}

extension CredentialBatch {
    /// Appends `event` to the audit log in this batch's transaction, so that the change and its
    /// entry are committed together or not at all. Throws `.integrityFailure` when the log's
    /// sealed head fails authentication (then nothing in the batch is committed).
    public func recordAudit(_ event: AuditEvent) throws {
        try AuditChain.append(event, at: Date(), db: db, keys: keys, path: vault.path)
    }
}
