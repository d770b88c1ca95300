import Foundation
import Synchronization

/// Group commit for the audit entries of operations that change no record (releases, refusals,
/// generated passwords): entries appended side by side share one write transaction.
///
/// The first caller to find no commit under way leads: it takes every entry queued behind it (at
/// most ``maximumBatch``), appends them in queue order in one transaction, and wakes each caller
/// with its sequence number once that transaction has committed, or with its error. Entries that
/// arrive while it commits wait for the next round, which it leads too, until the queue is empty.
/// Nothing waits on a timer: a lone caller commits at once. A caller that is itself a task on the
/// engine's threads (``EngineThreads/inPlace(_:)``, as every gated operation is) and finds no
/// commit under way commits its own entry there, in place, and leaves the entries queued meanwhile
/// to a leader of their own.
///
/// Fail closed: ``append(_:)`` returns only after the transaction holding the entry committed, so
/// a caller releases nothing (and acknowledges nothing) before its entry is durable as
/// ``CommitDurability/ordered`` makes it; a failed commit fails every entry in it. The chain stays
/// one linear chain, in the order of commit, as ``AuditChain/append(_:at:db:keys:path:)`` writes it.
final class AuditGroupCommit: Sendable {
    /// The most entries one transaction takes: bounds a transaction's time and the memory held.
    static let maximumBatch = 256

    private struct Waiter {
        let event: AuditEvent
        let continuation: CheckedContinuation<Int64, any Error>
    }

    private struct State {
        var queue: [Waiter] = []
        var leading = false
        var statistics = AuditCommitStatistics()
        /// The highest sequence number committed to this process's chain; nil before the first.
        var highestInChain: Int64?
        /// The head this process last stored in its chain, as stored; nil before its first append
        /// and after any failure.
        var chainHead: [UInt8]?
    }

    private let state = Mutex(State())

    /// The name of this process's own audit chain (``AuditInstanceChains``), or nil when the
    /// entries go to the vault's chain (``VaultConfiguration/appendsToInstanceChain``).
    let chain: [UInt8]?

    init(chain: [UInt8]?) {
        self.chain = chain
    }

    /// Appends `event` as part of the next group; returns its sequence number once committed.
    func append(_ event: AuditEvent, vault: Vault) async throws -> Int64 {
        if vault.storage.threads.isCurrent, let sequence = try leadInPlace(event, vault: vault) {
            return sequence
        }
        return try await withCheckedThrowingContinuation { continuation in
            let leads = state.withLock { state -> Bool in
                state.queue.append(Waiter(event: event, continuation: continuation))
                guard !state.leading else { return false }
                state.leading = true
                return true
            }
            if leads { vault.storage.threads.submit { self.commitQueued(vault: vault) } }
        }
    }

    /// How many transactions and entries the groups have had so far.
    var statistics: AuditCommitStatistics { state.withLock { $0.statistics } }

    /// Leads from the calling task, already on the engine's threads, when no commit is under way
    /// (the queue is then empty): commits `event` on this thread and returns its sequence number,
    /// with no hand-off to another thread and back. Entries that arrive meanwhile are left to a
    /// leader of their own (``commitQueued(vault:)``), so that this caller is not held while others
    /// keep coming. Returns nil, committing nothing, when a commit is under way: the caller then
    /// queues behind it.
    private func leadInPlace(_ event: AuditEvent, vault: Vault) throws -> Int64? {
        let leads = state.withLock { state -> Bool in
            guard !state.leading else { return false }
            state.leading = true
            return true
        }
        guard leads else { return nil }
        defer { handOverLeadership(vault: vault) }
        return try commit([event], vault: vault)[0]
    }

    /// Ends an in-place leader's turn: a leader of its own commits what queued meanwhile.
    private func handOverLeadership(vault: Vault) {
        let more = state.withLock { state -> Bool in
            guard !state.queue.isEmpty else {
                state.leading = false
                return false
            }
            return true
        }
        if more { vault.storage.threads.submit { self.commitQueued(vault: vault) } }
    }

    /// Commits the queue, one bounded group at a time, until it is empty; runs on the storage
    /// engine's threads, where a synchronous transaction blocks no cooperative thread.
    private func commitQueued(vault: Vault) {
        while true {
            let group = state.withLock { state -> [Waiter] in
                guard !state.queue.isEmpty else {
                    state.leading = false
                    return []
                }
                let count = min(state.queue.count, Self.maximumBatch)
                defer { state.queue.removeFirst(count) }
                return Array(state.queue.prefix(count))
            }
            guard !group.isEmpty else { return }
            do {
                let sequences = try commit(group.map(\.event), vault: vault)
                for (waiter, sequence) in zip(group, sequences) { waiter.continuation.resume(returning: sequence) }
            } catch {
                for waiter in group { waiter.continuation.resume(throwing: error) }
            }
        }
    }

    /// Appends `events` in one transaction, in order; returns their sequence numbers.
    private func commit(_ events: [AuditEvent], vault: Vault) throws -> [Int64] {
        let sequences: [Int64]
        if let chain {
            do {
                sequences = try commit(events, to: chain, vault: vault)
            } catch is AuditInstanceChains.HeadMoved {
                // A change of key re-tagged the chain under this append: once more, under it,
                // reading the head. A head that will not move from what was just read is kept
                // by something in the store: fail closed, saying so.
                do {
                    sequences = try commit(events, to: chain, vault: vault)
                } catch is AuditInstanceChains.HeadMoved {
                    throw AuditInstanceChains.headStuck(chain, path: vault.path)
                }
            }
        } else {
            sequences = try vault.write(durability: .ordered, readingMetadata: AuditChain.headColumns) {
                db, keys, head in
                try AuditChain.append(events, at: Date(), db: db, keys: keys, path: vault.path, head: head)
            }
        }
        state.withLock { $0.statistics.record(groupOf: events.count) }
        return sequences
    }

    /// Appends `events` to this process's chain `name`, in a transaction that writes that chain's
    /// rows only and, on a database server, waits for no other writer. After its first append
    /// the process goes on from the head it stored itself, with the keys it holds: the entries
    /// and the head's move are one statement (one round trip), and a head moved since (a change
    /// of key elsewhere, a writer behind swcred's back) fails the move, so that the append is
    /// tried again reading the head and the keys (``AuditInstanceChains/HeadMoved``). Any failure
    /// forgets the head kept: the next append reads it.
    private func commit(_ events: [AuditEvent], to name: [UInt8], vault: Vault) throws -> [Int64] {
        let (knownHead, highest) = state.withLock { ($0.chainHead, $0.highestInChain) }
        do {
            let appended = try vault.storage.writeBeside(durability: .ordered) {
                db -> (sequences: [Int64], head: [UInt8]) in
                if let knownHead {
                    return try AuditInstanceChains.append(
                        events, to: name, after: AuditChain.Link(stored: knownHead), replacing: knownHead,
                        at: Date(), db: db, keys: vault.keys, path: vault.path)
                }
                let stored = try db.row(AuditInstanceChains.appendColumns, [.blob(name), .blob(name)])
                let keys = try vault.currentKeys(db, keyID: stored?.blob(0))
                let (previous, storedHead) = try AuditInstanceChains.resume(
                    stored, chain: name, keys: keys, path: vault.path, highest: highest)
                return try AuditInstanceChains.append(
                    events, to: name, after: previous, replacing: storedHead, at: Date(), db: db, keys: keys,
                    path: vault.path)
            }
            state.withLock { state in
                state.chainHead = appended.head
                if let last = appended.sequences.last { state.highestInChain = max(state.highestInChain ?? 0, last) }
            }
            return appended.sequences
        } catch {
            state.withLock { $0.chainHead = nil }
            throw error
        }
    }
}

/// How audit entries were grouped into transactions (``AuditLog/commitStatistics``).
public struct AuditCommitStatistics: Sendable, Equatable {
    /// No group committed yet.
    public init() {}

    /// Transactions that committed a group.
    public private(set) var commits = 0
    /// Entries committed in groups.
    public private(set) var entries = 0
    /// The largest group committed.
    public private(set) var largestGroup = 0

    /// Entries per commit on average; 0 before the first.
    public var meanGroup: Double { commits == 0 ? 0 : Double(entries) / Double(commits) }

    mutating func record(groupOf count: Int) {
        commits += 1
        entries += count
        largestGroup = max(largestGroup, count)
    }
}
