/// A transaction's view of the vault's tables: what every store (credentials, the gate's state,
/// tokens, never-save, the audit log) uses to read, whichever engine holds the vault.
///
/// Queries are written once, in the SQL both engines accept: `?` placeholders, `INSERT ... ON
/// CONFLICT ... DO UPDATE`, `RETURNING`; no `INSERT OR REPLACE`, no `rowid`. An engine may
/// rewrite the placeholders for its wire protocol and caches each query's prepared statement
/// per connection.
package protocol StoreReader {
    /// Runs one query and calls `body` with each row in turn, without holding them all.
    func forEachRow(_ sql: String, _ arguments: [StoreValue], _ body: (StoreRow) throws -> Void) throws

    /// Runs one query and calls `body` with each row read in place (``StoreRowView``): the
    /// engine's own bytes, valid only during that call. For queries that open many records.
    func forEachRowInPlace(_ sql: String, _ arguments: [StoreValue], _ body: (any StoreRowView) throws -> Void) throws

    /// This read transaction's memo (``ReadTransactionMemo``); nil in a write transaction.
    var readMemo: ReadTransactionMemo? { get }
}

/// A write transaction's view of the vault's tables.
package protocol StoreWriter: StoreReader {
    /// Runs one statement that returns no rows; returns how many rows it changed.
    @discardableResult
    func execute(_ sql: String, _ arguments: [StoreValue]) throws -> Int

    /// Runs one statement that returns no rows, when the caller needs no count of the rows it
    /// changed: an engine may then run it as a statement prepared once per connection.
    func perform(_ sql: String, _ arguments: [StoreValue]) throws

    /// Runs `statements` (INSERT, UPDATE or DELETE, none returning rows) in order, when none
    /// needs to see what another changed and the caller needs no counts: an engine may then send
    /// them as one statement, in one round trip. Each must touch rows that the others do not.
    func perform(together statements: [StoreStatement]) throws

    /// Runs `statements` as ``perform(together:)`` does, then `last`, a statement with
    /// `RETURNING` that touches rows they do not; returns `last`'s rows. An engine may send them
    /// all as one statement, in one round trip.
    func rows(after statements: [StoreStatement], returning last: StoreStatement) throws -> [StoreRow]
}

/// One statement and its arguments, for ``StoreWriter/perform(together:)``.
package struct StoreStatement: Sendable {
    package let sql: String
    package let arguments: [StoreValue]

    package init(_ sql: String, _ arguments: [StoreValue]) {
        self.sql = sql
        self.arguments = arguments
    }
}

extension StoreReader {
    /// No memo: a reader that keeps none.
    package var readMemo: ReadTransactionMemo? { nil }

    /// Every row of one query.
    package func rows(_ sql: String, _ arguments: [StoreValue] = []) throws -> [StoreRow] {
        var rows: [StoreRow] = []
        try forEachRow(sql, arguments) { rows.append($0) }
        return rows
    }

    /// The first row of one query, or nil when it returns none.
    package func row(_ sql: String, _ arguments: [StoreValue] = []) throws -> StoreRow? {
        var first: StoreRow?
        try forEachRow(sql, arguments) { row in if first == nil { first = row } }
        return first
    }

    /// The first column of the first row of one query, or nil when it returns no row.
    package func value(_ sql: String, _ arguments: [StoreValue] = []) throws -> StoreValue? {
        try row(sql, arguments)?[0]
    }

    /// The first column of the first row as an integer (`COUNT(*)`, `max(...)`), or nil when
    /// there is no row or it is NULL.
    package func integer(_ sql: String, _ arguments: [StoreValue] = []) throws -> Int64? {
        try value(sql, arguments)?.integer
    }
}

extension StoreWriter {
    package func perform(_ sql: String, _ arguments: [StoreValue]) throws {
        try execute(sql, arguments)
    }

    package func perform(together statements: [StoreStatement]) throws {
        for statement in statements { try perform(statement.sql, statement.arguments) }
    }

    package func rows(after statements: [StoreStatement], returning last: StoreStatement) throws -> [StoreRow] {
        try perform(together: statements)
        return try rows(last.sql, last.arguments)
    }

    /// The first row a statement with `RETURNING` gives, after running it to completion.
    package func returningRow(_ sql: String, _ arguments: [StoreValue]) throws -> StoreRow? {
        try rows(sql, arguments).first
    }
}

/// An error a transaction's body throws on purpose, for its caller to act on (``AuditInstanceChains/HeadMoved``):
/// the engine rolls the transaction back and passes the error on unchanged, instead of reporting
/// it as a failure of the storage.
package protocol StoreBodySignal: Error {}
