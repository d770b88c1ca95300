/// How a write transaction's commit reaches the disk.
package enum CommitDurability: Sendable {
    /// Synced before the commit returns: for changes to records, keys and the gate's state.
    case synced
    /// Ordered but not synced (SQLite's `synchronous=NORMAL` in WAL mode): a power cut may lose
    /// the last commits, never corrupt or reorder them. For audit entries of operations that
    /// change no record.
    case ordered
}

/// One vault's database, on one engine: transactions over the vault's tables, schema migration
/// and the schema check. Every store of the library reaches the database through this and
/// ``StoreReader``/``StoreWriter`` only; GRDB and SQLite live in `Store/SQLite`.
///
/// The synchronous methods run the transaction on the calling thread (the CLI, which has no
/// other work to do). The `async` ones run it on the engine's own threads and suspend the
/// caller, so that no cooperative thread of the service ever waits for the database; work that
/// no caller awaits (a group commit's leader) is started there with ``submit(_:)``.
package protocol VaultStorage: Sendable {
    /// Where the vault is, for messages (a file path, or a database URL without its password).
    var location: String { get }

    /// Runs `body` in a read transaction: a consistent snapshot of every transaction committed
    /// before it began. Readers run side by side, and beside the writer.
    func read<T>(_ body: (any StoreReader) throws -> T) throws -> T

    /// Runs `body` in a write transaction (one writer at a time); commits when it returns and
    /// rolls back when it throws.
    func write<T>(durability: CommitDurability, _ body: (any StoreWriter) throws -> T) throws -> T

    /// A write transaction that does not wait for the other writers, for rows that only the
    /// calling process writes (its own audit chain, ``AuditInstanceChains``): on a database
    /// server, it takes no writers' lock, and rows another transaction changes meanwhile are
    /// those its statements must check for themselves. SQLite's writer holds the whole file
    /// whatever is written, so there it is ``write(durability:_:)``.
    func writeBeside<T>(durability: CommitDurability, _ body: (any StoreWriter) throws -> T) throws -> T

    /// ``read(_:)`` on the engine's own threads (``threads``): in place when the caller is on one.
    ///
    /// Each engine implements this itself: the engine's synchronous ``read(_:)`` would otherwise
    /// witness it, and run the transaction on the caller's thread.
    func read<T: Sendable>(_ body: @escaping @Sendable (any StoreReader) throws -> T) async throws -> T

    /// ``write(durability:_:)`` on the engine's own threads (``threads``): in place when the
    /// caller is on one. Each engine implements this itself, for the reason the async read gives.
    func write<T: Sendable>(
        durability: CommitDurability, _ body: @escaping @Sendable (any StoreWriter) throws -> T
    ) async throws -> T

    /// The engine's own threads: where the `async` transactions run, work that no caller awaits
    /// is started (a group commit's leader), and a task may run itself to have its transactions
    /// run in place (``EngineThreads/inPlace(_:)``).
    var threads: EngineThreads { get }

    /// Runs `body` unless another process already does `duty` on this database; returns nil,
    /// without running it, when one does. For work that one of several service instances should
    /// do, not each of them (re-verifying due verdicts). `body` runs outside any transaction.
    func alone<T: Sendable>(_ duty: ExclusiveDuty, _ body: @Sendable () async throws -> T) async throws -> T?

    /// Applies the embedded migrations that the database lacks, each in its own transaction.
    func migrate() throws

    /// Throws `.integrityFailure`, naming the object, unless the schema is exactly what the
    /// migrations it records as applied make; returns how far it is migrated.
    @discardableResult
    func verifySchema() throws -> SchemaState
}

/// Work that one process at a time does on a shared database (``VaultStorage/alone(_:_:)``).
package enum ExclusiveDuty: Int64, Sendable {
    /// Fetching the association files of due verdicts again: "swcred" and 2, as a PostgreSQL
    /// advisory lock key (the writers' lock is "swcred" and 1).
    case reverification = 0x7377_6372_6564_0002
}

/// How far a checked schema is migrated.
package enum SchemaState: Sendable {
    /// No migration applied: a new database, or not a vault.
    case empty
    /// Some of the embedded migrations applied: an older swcred's vault.
    case outdated
    /// Every embedded migration applied.
    case current
}

extension VaultStorage {
    /// A synced write transaction.
    package func write<T>(_ body: (any StoreWriter) throws -> T) throws -> T {
        try write(durability: .synced, body)
    }

    /// ``write(durability:_:)``: an engine whose writer holds the whole database has no other.
    package func writeBeside<T>(durability: CommitDurability, _ body: (any StoreWriter) throws -> T) throws -> T {
        try write(durability: durability, body)
    }

    /// A synced write transaction on the engine's own threads.
    package func write<T: Sendable>(_ body: @escaping @Sendable (any StoreWriter) throws -> T) async throws -> T {
        try await write(durability: .synced, body)
    }
}
