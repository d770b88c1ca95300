import GRDB
import GRDBSQLite

/// A GRDB connection inside a transaction, as the stores see it: every query through the
/// connection's statement cache (compiled once per connection), every value as a ``StoreValue``.
///
/// GRDB compiles and caches the statements; this binds, steps and reads them with SQLite's own
/// functions, straight into ``StoreValue``s. GRDB's cursors would build a `Row` of
/// `DatabaseValue`s and `Data` for every row, and its arguments a `StatementArguments` of
/// existentials, only for them to be copied into ``StoreValue``s again: together a third of the
/// instructions of a request (Benchmarks/README.md, "Requests side by side"). The transaction
/// itself, and every statement that begins or ends one, stays GRDB's, which tracks it.
struct SQLiteStoreConnection: StoreWriter {
    let db: Database
    /// This read transaction's memo; nil in a write transaction.
    package var readMemo: ReadTransactionMemo? = nil

    func forEachRow(_ sql: String, _ arguments: [StoreValue], _ body: (StoreRow) throws -> Void) throws {
        let statement = try bound(sql, arguments)
        defer { Self.release(statement) }
        let columns = sqlite3_column_count(statement)
        // One array for every row's values, emptied for the next: a row the body keeps is
        // copied on that write, a row it does not keep costs no allocation of its own.
        var values: [StoreValue] = []
        values.reserveCapacity(Int(columns))
        while try step(statement, sql) {
            values.removeAll(keepingCapacity: true)
            for index in 0..<columns { values.append(Self.column(index, of: statement)) }
            try body(StoreRow(values))
        }
    }

    func forEachRowInPlace(
        _ sql: String, _ arguments: [StoreValue], _ body: (any StoreRowView) throws -> Void
    ) throws {
        let statement = try bound(sql, arguments)
        defer { Self.release(statement) }
        while try step(statement, sql) { try body(SQLiteRowView(statement: statement)) }
    }

    @discardableResult
    func execute(_ sql: String, _ arguments: [StoreValue]) throws -> Int {
        let statement = try bound(sql, arguments)
        defer { Self.release(statement) }
        while try step(statement, sql) {}
        return Int(sqlite3_changes(db.sqliteConnection))
    }

    /// The connection's cached statement for `sql`, reset, with `arguments` bound in order.
    /// Throws when their number is not the number of the statement's parameters.
    private func bound(_ sql: String, _ arguments: [StoreValue]) throws -> SQLiteStatement {
        let statement = try db.cachedStatement(sql: sql).sqliteStatement
        sqlite3_reset(statement)
        let parameters = Int(sqlite3_bind_parameter_count(statement))
        guard arguments.count == parameters else {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE,
                message: "wrong number of statement arguments: \(arguments.count) for \(parameters) parameters",
                sql: sql)
        }
        for (offset, argument) in arguments.enumerated() {
            let code = Self.bind(argument, at: Int32(offset + 1), to: statement)
            guard code == SQLITE_OK else { throw error(code, sql) }
        }
        return statement
    }

    /// Resets `statement` for its next use and drops SQLite's copies of the values bound to it,
    /// so that they do not outlive the statement's use in a long-running process.
    private static func release(_ statement: SQLiteStatement) {
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
    }

    /// Steps `statement`: true when it produced a row, false when it is done.
    private func step(_ statement: SQLiteStatement, _ sql: String) throws -> Bool {
        switch sqlite3_step(statement) {
        case SQLITE_ROW: true
        case SQLITE_DONE: false
        case let code: throw error(code, sql)
        }
    }

    /// GRDB's error for a failed SQLite call (`code`, extended where SQLite gives one), with the
    /// connection's message, so that ``SQLiteStorage/translate(_:path:)`` reads it as GRDB's own.
    private func error(_ code: Int32, _ sql: String) -> DatabaseError {
        DatabaseError(
            resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)),
            sql: sql)
    }

    /// Binds one value; SQLite copies texts and blobs (`SQLITE_TRANSIENT`). An empty text or blob
    /// is bound as empty, never as NULL (a nil pointer would bind NULL).
    private static func bind(_ value: StoreValue, at index: Int32, to statement: SQLiteStatement) -> Int32 {
        switch value {
        case .null:
            return sqlite3_bind_null(statement, index)
        case .integer(let integer):
            return sqlite3_bind_int64(statement, index, integer)
        case .real(let real):
            return sqlite3_bind_double(statement, index, real)
        case .text(var text):
            return text.withUTF8 { bytes in
                guard let start = bytes.baseAddress else {
                    return sqlite3_bind_text(statement, index, "", 0, transient)
                }
                return start.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                    sqlite3_bind_text(statement, index, $0, Int32(bytes.count), transient)
                }
            }
        case .blob(let bytes):
            guard !bytes.isEmpty else { return sqlite3_bind_zeroblob(statement, index, 0) }
            return bytes.withUnsafeBytes { raw in
                sqlite3_bind_blob(statement, index, raw.baseAddress, Int32(raw.count), transient)
            }
        }
    }

    /// Column `index` of the row `statement` is on.
    private static func column(_ index: Int32, of statement: SQLiteStatement) -> StoreValue {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_INTEGER:
            return .integer(sqlite3_column_int64(statement, index))
        case SQLITE_FLOAT:
            return .real(sqlite3_column_double(statement, index))
        case SQLITE_TEXT:
            guard let text = sqlite3_column_text(statement, index) else { return .text("") }
            let count = Int(sqlite3_column_bytes(statement, index))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            guard let blob = sqlite3_column_blob(statement, index) else { return .blob([]) }
            let count = Int(sqlite3_column_bytes(statement, index))
            return .blob(Array(UnsafeRawBufferPointer(start: blob, count: count)))
        default:
            return .null
        }
    }

    /// SQLite's `SQLITE_TRANSIENT`: copy the bytes before the call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}

/// The current row of a stepped statement, read in place: SQLite's bytes, valid until the
/// statement steps again or is reset.
private struct SQLiteRowView: StoreRowView {
    let statement: SQLiteStatement

    func integer(_ index: Int) -> Int64? {
        let column = Int32(index)
        guard sqlite3_column_type(statement, column) == SQLITE_INTEGER else { return nil }
        return sqlite3_column_int64(statement, column)
    }

    func withBlob<Result>(_ index: Int, _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result? {
        let column = Int32(index)
        guard sqlite3_column_type(statement, column) == SQLITE_BLOB else { return nil }
        let bytes = sqlite3_column_blob(statement, column)
        let count = Int(sqlite3_column_bytes(statement, column))
        return try body(UnsafeRawBufferPointer(start: bytes, count: count))
    }
}
