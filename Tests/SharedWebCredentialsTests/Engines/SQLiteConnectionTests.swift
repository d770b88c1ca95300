import Foundation
import GRDB
import GRDBSQLite
import TestSupport
import Testing

@testable import SharedWebCredentials

/// The SQLite engine's own statement and transaction handling (`SQLiteStoreConnection`,
/// `SQLiteStorage`), on a real vault file: values go in and come back exactly, a statement with
/// the wrong number of arguments is refused, and a transaction that fails leaves nothing behind
/// and the connection ready for the next.
@Suite("SQLite engine: binding, reading and transactions")
struct SQLiteConnectionTests {
    let directory: TemporaryDirectory
    let vault: Vault

    init() throws {
        directory = try TemporaryDirectory()
        vault = try VaultTestSupport.makeVault(in: directory)
    }

    @Test("every kind of value comes back as it was bound: empty text and blob are not NULL")
    func valuesRoundTrip() throws {
        let large = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let values: [StoreValue] = [
            .text(""), .blob([]), .null, .integer(.min), .integer(.max), .real(-0.5), .text("a\u{0}b é 🔑"),
            .blob([0, 255, 0]), .blob(large),
        ]
        let placeholders = Array(repeating: "?", count: values.count).joined(separator: ", ")
        let types = Array(repeating: "typeof(?)", count: values.count).joined(separator: ", ")
        let query = "SELECT \(placeholders), \(types)"
        let read = try vault.storage.read { db in try db.row(query, values + values) }
        let written = try vault.storage.write(durability: .synced) { db in try db.returningRow(query, values + values) }
        let kinds: [StoreValue] = ["text", "blob", "null", "integer", "integer", "real", "text", "blob", "blob"].map {
            .text($0)
        }
        for row in [read, written] {
            #expect(row?.values.prefix(values.count).elementsEqual(values) == true)
            #expect(row?.values.suffix(values.count).elementsEqual(kinds) == true, "\(String(describing: row))")
        }
    }

    @Test("a row read in place: an empty blob is a blob, NULL, text and integers are not blobs")
    func rowInPlace() throws {
        let values: [StoreValue] = [.blob([]), .null, .text("x"), .integer(7), .blob([1, 2, 3])]
        let read = try vault.storage.read { db in
            var rows: [(blobs: [[UInt8]?], integers: [Int64?])] = []
            try db.forEachRowInPlace("SELECT ?, ?, ?, ?, ?", values) { row in
                rows.append(((0..<5).map { row.withBlob($0) { Array($0) } }, (0..<5).map { row.integer($0) }))
            }
            return rows
        }
        #expect(read.count == 1)
        #expect(read.first?.blobs == [[], nil, nil, nil, [1, 2, 3]])
        #expect(read.first?.integers == [nil, nil, nil, 7, nil])
    }

    @Test("a statement keeps no copy of the values bound to it once it has run")
    func bindingsDropped() throws {
        let sql = "SELECT length(?) AS bound"
        let row = try vault.storage.write(durability: .synced) { db in
            try db.returningRow(sql, [.text("bound-value-7Q2")])
        }
        #expect(row?.values == [.integer(15)])
        // The writer's cached statement, with its parameters as SQLite would now bind them.
        let expanded = try vault.database.inDatabase { db in
            let text = try #require(sqlite3_expanded_sql(try db.cachedStatement(sql: sql).sqliteStatement))
            defer { sqlite3_free(text) }
            return String(cString: text)
        }
        #expect(expanded == "SELECT length(NULL) AS bound")
    }

    @Test("a statement given more or fewer arguments than it has placeholders is refused, not run")
    func wrongArgumentCount() throws {
        for arguments: [StoreValue] in [[], [.integer(1), .integer(2)]] {
            let error = failure { _ = try vault.storage.read { db in try db.row("SELECT ?", arguments) } }
            #expect(error?.code == .internalError, "\(String(describing: error))")
        }
        let head = try vault.storage.read { db in try db.value("SELECT audit_head FROM vault_meta WHERE id = 1") }
        let error = failure {
            _ = try vault.storage.write(durability: .synced) { db in
                try db.execute("UPDATE vault_meta SET audit_head = ? WHERE id = ?", [.blob([1])])
            }
        }
        #expect(error?.code == .internalError)
        #expect(try vault.storage.read { db in try db.value("SELECT audit_head FROM vault_meta WHERE id = 1") } == head)
    }

    @Test("a write transaction that throws, or whose statement fails, is rolled back; the next one commits")
    func failedTransactionsRollBack() throws {
        let read = { try vault.storage.read { db in try db.value("SELECT audit_head FROM vault_meta WHERE id = 1") } }
        let head = try read()
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try vault.storage.write(durability: .ordered) { db -> Void in
                try db.execute(
                    "UPDATE vault_meta SET audit_head = ? WHERE id = 1", [.blob(Array(repeating: 1, count: 72))])
                throw Stop()
            }
        }
        #expect(try read() == head)
        // A constraint fails the second statement: the first one's change goes too.
        let error = failure {
            try vault.storage.write(durability: .synced) { db -> Void in
                try db.execute(
                    "UPDATE vault_meta SET audit_head = ? WHERE id = 1", [.blob(Array(repeating: 2, count: 72))])
                try db.execute("INSERT INTO vault_meta (id) VALUES (1)", [])
            }
        }
        #expect(error?.code == .internalError, "\(String(describing: error))")
        #expect(try read() == head)
        // The connection is out of the failed transactions: the vault still works and verifies.
        try vault.credentials.upsert(server: "a.example", account: "a", password: SecureBytes(utf8: "p"))
        #expect(try vault.credentials.find(server: "a.example").map(\.account) == ["a"])
        #expect(try vault.audit.verify().isIntact)
    }
}
