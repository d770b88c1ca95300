import Logging
import NIOCore
import PostgresNIO

/// A PostgreSQL connection inside a transaction, as the stores see it: each query's `?`
/// placeholders numbered for the extended protocol, every value a ``StoreValue`` (bigint for
/// integers, bytea for blobs, text for texts), and every query waited for on the calling thread.
///
/// The caller is never an event-loop thread nor a cooperative one: ``PostgresStorage`` runs the
/// transaction on its own threads (or the CLI's), and `wait()` blocks only that thread while
/// postgres-nio's event loop does the I/O.
struct PostgresStoreConnection: StoreWriter {
    let connection: PostgresConnection
    let logger: Logger

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
        _ = try connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).wait()
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
        return try connection.query(query, logger: logger).wait()
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
