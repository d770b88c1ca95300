import Foundation
import GRDB

/// A GRDB connection inside a transaction, as the stores see it: every query through the
/// connection's statement cache (compiled once per connection), every value as a ``StoreValue``.
struct SQLiteStoreConnection: StoreWriter {
    let db: Database

    func forEachRow(_ sql: String, _ arguments: [StoreValue], _ body: (StoreRow) throws -> Void) throws {
        let statement = try db.cachedStatement(sql: sql)
        let columns = statement.columnCount
        let rows = try Row.fetchCursor(statement, arguments: Self.arguments(arguments))
        while let row = try rows.next() {
            var values: [StoreValue] = []
            values.reserveCapacity(columns)
            for index in 0..<columns { values.append(Self.value(row[index] as DatabaseValue)) }
            try body(StoreRow(values))
        }
    }

    @discardableResult
    func execute(_ sql: String, _ arguments: [StoreValue]) throws -> Int {
        try db.cachedStatement(sql: sql).execute(arguments: Self.arguments(arguments))
        return db.changesCount
    }

    /// Through GRDB's existential initialiser: its generic one maps with a key path that the
    /// runtime instantiates on every call (a tenth of a request's time in the engine's threads).
    private static func arguments(_ values: [StoreValue]) -> StatementArguments {
        StatementArguments(values.map { databaseValue($0) as (any DatabaseValueConvertible)? })
    }

    /// GRDB's value for `value`.
    static func databaseValue(_ value: StoreValue) -> DatabaseValue {
        switch value {
        case .null: .null
        case .integer(let integer): integer.databaseValue
        case .real(let real): real.databaseValue
        case .text(let text): text.databaseValue
        case .blob(let bytes): Data(bytes).databaseValue
        }
    }

    /// The ``StoreValue`` for GRDB's `value`.
    static func value(_ value: DatabaseValue) -> StoreValue {
        switch value.storage {
        case .null: .null
        case .int64(let integer): .integer(integer)
        case .double(let real): .real(real)
        case .string(let text): .text(text)
        case .blob(let data): .blob(Array(data))
        }
    }
}
