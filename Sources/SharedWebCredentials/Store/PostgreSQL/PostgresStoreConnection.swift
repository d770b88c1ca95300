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
    let session: PostgresSession
    var connection: PostgresConnection { session.connection }
    let logger: Logger
    /// The longest wait for one statement's answer: longer than any lock wait the server allows
    /// (`lock_timeout`, the busy timeout).
    let answerTimeout: TimeAmount
    /// Whether queries are prepared (``PostgresSession``).
    var prepares = true
    /// This read transaction's memo; nil in a write transaction.
    package var readMemo: ReadTransactionMemo? = nil

    /// This connection with every query sent unnamed, never prepared.
    var unprepared: Self {
        var copy = self
        copy.prepares = false
        return copy
    }

    func forEachRow(_ sql: String, _ arguments: [StoreValue], _ body: (StoreRow) throws -> Void) throws {
        // The rows are collected on the event loop, then handed to `body` here: the future API
        // has no back pressure, and `body` must not run on the event loop.
        let rows: [PostgresRow]
        let prepared = try preparedStatement(sql, arguments)
        if let prepared {
            rows = try bounded(prepared.execute(arguments.map(Self.data)))
        } else {
            rows = try query(sql, arguments).rows
        }
        for row in rows {
            var values: [StoreValue] = []
            values.reserveCapacity(row.count)
            for var cell in row {
                // postgres-nio (1.33) labels a prepared statement's cells with the text format
                // its Describe reported, though its Bind asked for (and got) every column in
                // binary, as an unnamed statement's are.
                if prepared != nil { cell.format = .binary }
                values.append(try Self.value(cell))
            }
            try body(StoreRow(values))
        }
    }

    /// The statement prepared on this connection for `sql` with arguments of these types,
    /// preparing it now (one more round trip, once) if the connection has room for it; nil when
    /// it has not. ``execute(_:_:)`` never prepares: postgres-nio's prepared statements do not
    /// tell how many rows a statement changed (``perform(_:_:)`` does, not needing the count).
    private func preparedStatement(_ sql: String, _ arguments: [StoreValue]) throws -> PreparedQuery? {
        guard prepares, arguments.count <= PostgresSession.maximumParameters else { return nil }
        let types = arguments.map(Self.parameterType)
        let key = types.map { $0 ?? "unknown" }.joined(separator: ",") + "|" + sql
        if let statement = session.statement(for: key) { return statement }
        guard session.hasRoom else { return nil }
        let text = PostgresSQLText.numberingPlaceholders(sql, types: types)
        let statement = try bounded(connection.prepare(query: text))
        session.remember(statement, for: key)
        return statement
    }

    @discardableResult
    func execute(_ sql: String, _ arguments: [StoreValue]) throws -> Int {
        try query(sql, arguments).metadata.rows ?? 0
    }

    /// Runs the statement prepared, as ``forEachRow(_:_:_:)`` runs a query.
    func perform(_ sql: String, _ arguments: [StoreValue]) throws {
        try forEachRow(sql, arguments) { _ in }
    }

    /// Runs `statements` as one: the last is the main statement and the others its data-modifying
    /// `WITH` parts, which PostgreSQL runs on the same snapshot, each seeing none of the others'
    /// changes (hence ``StoreWriter/perform(together:)``'s rule that they touch different rows).
    func perform(together statements: [StoreStatement]) throws {
        guard statements.count > 1 else {
            for statement in statements { try perform(statement.sql, statement.arguments) }
            return
        }
        try perform(PostgresSQLText.combining(statements.map(\.sql)), statements.flatMap(\.arguments))
    }

    func rows(after statements: [StoreStatement], returning last: StoreStatement) throws -> [StoreRow] {
        guard !statements.isEmpty else { return try rows(last.sql, last.arguments) }
        return try rows(
            PostgresSQLText.combining(statements.map(\.sql) + [last.sql]),
            statements.flatMap(\.arguments) + last.arguments)
    }

    /// Runs one statement of the engine's own (BEGIN, COMMIT, SET LOCAL, ...), without arguments.
    func run(_ sql: String) throws {
        try wait(for: send(sql))
    }

    /// Sends one statement of the engine's own without waiting for its answer: the statements
    /// sent after it queue behind it on the connection, and ``wait(for:)`` checks the answer.
    func send(_ sql: String) -> EventLoopFuture<PostgresQueryResult> {
        connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)
    }

    /// Waits for the answer of a statement ``send(_:)`` sent; throws its error.
    func wait(for answer: EventLoopFuture<PostgresQueryResult>) throws {
        _ = try bounded(answer)
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

    /// The type a parameter is prepared with for `value` (nil for NULL: the server infers it).
    private static func parameterType(_ value: StoreValue) -> String? {
        switch value {
        case .null: nil
        case .integer: "int8"
        case .real: "float8"
        case .text: "text"
        case .blob: "bytea"
        }
    }

    /// `value` as a prepared statement's parameter, of the type ``parameterType(_:)`` names.
    private static func data(_ value: StoreValue) -> PostgresData {
        switch value {
        case .null: .null
        case .integer(let integer): PostgresData(int64: integer)
        case .real(let real): PostgresData(double: real)
        case .text(let text): PostgresData(string: text)
        case .blob(let bytes): PostgresData(bytes: bytes)
        }
    }

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
