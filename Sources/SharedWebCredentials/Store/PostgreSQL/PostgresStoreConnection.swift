import Dispatch
import Logging
import NIOCore
import PostgresNIO
import Synchronization

/// A PostgreSQL connection inside a transaction, as the stores see it: each query's `?`
/// placeholders numbered for the extended protocol, every value a ``StoreValue`` (bigint for
/// integers, bytea for blobs, text for texts), and every query waited for on the calling thread.
///
/// The caller is never an event-loop thread nor a cooperative one: ``PostgresStorage`` runs the
/// transaction on its own threads (or the CLI's), and `wait()` blocks only that thread while
/// postgres-nio's event loop does the I/O.
///
/// No wait is unbounded: a server that goes away in the middle of a transaction (a restart under
/// load) can leave a statement's answer pending for ever on a connection postgres-nio has already
/// closed, which would hold the request, and the engine thread, with it. After
/// ``answerTimeout`` the connection is closed and the statement fails as storage that cannot be
/// reached (exit 13, HTTP 503).
struct PostgresStoreConnection: StoreWriter {
    let connection: PostgresConnection
    let logger: Logger
    /// The longest wait for one statement's answer: longer than any lock wait the server allows
    /// (`lock_timeout`, the busy timeout).
    let answerTimeout: TimeAmount

    func forEachRow(_ sql: String, _ arguments: [StoreValue], _ body: (StoreRow) throws -> Void) throws {
        // The rows are collected on the event loop, then handed to `body` here: the future API
        // has no back pressure, and `body` must not run on the event loop.
        for row in try query(sql, arguments).rows {
            var values: [StoreValue] = []
            values.reserveCapacity(row.count)
            for cell in row { values.append(try Self.value(cell)) }
            try body(StoreRow(values))
        }
    }

    @discardableResult
    func execute(_ sql: String, _ arguments: [StoreValue]) throws -> Int {
        try query(sql, arguments).metadata.rows ?? 0
    }

    /// Runs one statement of the engine's own (BEGIN, COMMIT, SET LOCAL, ...), without arguments.
    func run(_ sql: String) throws {
        _ = try bounded(connection.query(PostgresQuery(unsafeSQL: sql), logger: logger))
    }

    private func query(_ sql: String, _ arguments: [StoreValue]) throws -> PostgresQueryResult {
        var bindings = PostgresBindings(capacity: arguments.count)
        for argument in arguments {
            switch argument {
            case .null: bindings.appendNull()
            case .integer(let integer): bindings.append(integer)
            case .real(let real): bindings.append(real)
            case .text(let text): bindings.append(text)
            case .blob(let bytes): bindings.append(ByteBuffer(bytes: bytes))
            }
        }
        let query = PostgresQuery(unsafeSQL: PostgresSQLText.numberingPlaceholders(sql), binds: bindings)
        return try bounded(connection.query(query, logger: logger))
    }

    /// The answer of `future`; ``Unanswered`` as soon as the connection is found closed with
    /// the answer still pending (postgres-nio can drop a statement sent while its connection
    /// closes), or when none comes within ``answerTimeout`` (the connection is then closed).
    /// The calling thread looks every ``watchInterval`` while it waits, so the watch costs the
    /// event loop nothing beyond what `wait()` costs.
    private func bounded<T: Sendable>(_ future: EventLoopFuture<T>) throws -> T {
        let answered = DispatchSemaphore(value: 0)
        let answer = Mutex<Result<T, any Error>?>(nil)
        future.whenComplete { result in
            answer.withLock { $0 = result }
            answered.signal()
        }
        let deadline = DispatchTime.now() + .nanoseconds(Int(answerTimeout.nanoseconds))
        while answered.wait(timeout: .now() + Self.watchInterval) == .timedOut {
            if connection.isClosed { throw Unanswered() }
            if DispatchTime.now() >= deadline {
                connection.close().whenComplete { [connection] _ in withExtendedLifetime(connection) {} }
                throw Unanswered()
            }
        }
        return try answer.withLock { $0! }.get()
    }

    /// How often a waiting thread looks whether its connection closed.
    private static let watchInterval = DispatchTimeInterval.milliseconds(100)

    /// No answer came from the server in time.
    struct Unanswered: Error {}

    /// The ``StoreValue`` of one cell: the types the vault's schema and queries produce.
    static func value(_ cell: PostgresCell) throws -> StoreValue {
        guard cell.bytes != nil else { return .null }
        switch cell.dataType {
        case .int2, .int4, .int8: return .integer(try cell.decode(Int64.self))
        case .text, .varchar, .name, .bpchar: return .text(try cell.decode(String.self))
        case .bytea:
            var buffer = try cell.decode(ByteBuffer.self)
            return .blob(buffer.readBytes(length: buffer.readableBytes) ?? [])
        case .float4, .float8: return .real(try cell.decode(Double.self))
        case .bool: return .integer(try cell.decode(Bool.self) ? 1 : 0)
        default:
            throw SharedWebCredentialsError(
                .internalError,
                "PostgreSQL returned a value of type \(cell.dataType) in column \(cell.columnName), which swcred does not read; please report this."
            )
        }
    }
}
