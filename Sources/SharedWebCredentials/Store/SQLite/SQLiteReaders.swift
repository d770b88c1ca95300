import Dispatch
import GRDB
import Synchronization

/// The vault's read-only connections: each a GRDB `DatabaseQueue`, opened when a read finds none
/// idle, kept for the next read, at most ``maximumCount`` reading at once.
///
/// Not GRDB's `DatabasePool`, whose every read first runs `PRAGMA schema_version` outside the
/// caller's transaction (a read transaction of its own, to know whether to drop its schema
/// cache) and takes the pool's locks twice: together a tenth of a request's instructions. Each
/// connection checked the schema when it opened (``SQLiteStorage/openReader(path:busyTimeout:number:)``)
/// and each transaction checks it again when its schema cookie changed
/// (``SQLiteSchema/requireUnchanged(_:path:)``).
final class SQLiteReaders: Sendable {
    /// How many reads run at once; more wait for a connection (the engine has four threads).
    static let maximumCount = 5

    private let open: @Sendable (_ number: Int) throws -> DatabaseQueue
    private let idle = Mutex<[DatabaseQueue]>([])
    private let opened = Mutex(0)
    private let available = DispatchSemaphore(value: maximumCount)

    /// A pool that opens each connection with `open`, given its number (1, 2, ...: for its label).
    init(open: @escaping @Sendable (_ number: Int) throws -> DatabaseQueue) {
        self.open = open
    }

    /// Runs `body` on an idle connection (opened if none is), outside any transaction.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        available.wait()
        defer { available.signal() }
        let connection = try idle.withLock { $0.popLast() } ?? openNext()
        defer { idle.withLock { $0.append(connection) } }
        return try connection.inDatabase(body)
    }

    /// Opens one more connection.
    private func openNext() throws -> DatabaseQueue {
        let number = opened.withLock { count in
            count += 1
            return count
        }
        return try open(number)
    }

    /// Closes every idle connection (all are idle once the vault is no longer read).
    func close() throws {
        let connections = idle.withLock { idle in
            defer { idle = [] }
            return idle
        }
        for connection in connections { try connection.close() }
    }
}
