import Synchronization

/// How many transactions a vault's database ran since the vault was opened, by kind.
public struct StoreTransactionCounts: Sendable, Equatable {
    /// Read transactions.
    public var reads = 0
    /// Write transactions, those beside the writers' lock included.
    public var writes = 0
}

/// A vault's storage that counts the transactions it passes on to `inner`, so that what a request
/// costs in reads is seen (`swcred serve`'s metrics), not guessed: DESIGN asks for one read per
/// request. Every other requirement goes straight to `inner`.
final class CountedStorage: VaultStorage {
    /// The engine whose transactions are counted.
    let inner: any VaultStorage
    private let reads = Atomic<Int>(0)
    private let writes = Atomic<Int>(0)

    init(_ inner: any VaultStorage) {
        self.inner = inner
    }

    /// The transactions run so far.
    var counts: StoreTransactionCounts {
        StoreTransactionCounts(reads: reads.load(ordering: .relaxed), writes: writes.load(ordering: .relaxed))
    }

    var location: String { inner.location }
    var threads: EngineThreads { inner.threads }

    func read<T>(_ body: (any StoreReader) throws -> T) throws -> T {
        reads.add(1, ordering: .relaxed)
        return try inner.read(body)
    }

    func read<T: Sendable>(_ body: @escaping @Sendable (any StoreReader) throws -> T) async throws -> T {
        reads.add(1, ordering: .relaxed)
        return try await inner.read(body)
    }

    func write<T>(durability: CommitDurability, _ body: (any StoreWriter) throws -> T) throws -> T {
        writes.add(1, ordering: .relaxed)
        return try inner.write(durability: durability, body)
    }

    func write<T: Sendable>(
        durability: CommitDurability, _ body: @escaping @Sendable (any StoreWriter) throws -> T
    ) async throws -> T {
        writes.add(1, ordering: .relaxed)
        return try await inner.write(durability: durability, body)
    }

    func writeBeside<T>(durability: CommitDurability, _ body: (any StoreWriter) throws -> T) throws -> T {
        writes.add(1, ordering: .relaxed)
        return try inner.writeBeside(durability: durability, body)
    }

    func alone<T: Sendable>(_ duty: ExclusiveDuty, _ body: @Sendable () async throws -> T) async throws -> T? {
        try await inner.alone(duty, body)
    }

    func migrate() throws { try inner.migrate() }

    @discardableResult
    func verifySchema() throws -> SchemaState { try inner.verifySchema() }
}
