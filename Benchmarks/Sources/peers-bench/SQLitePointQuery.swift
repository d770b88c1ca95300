import Foundation
import GRDBSQLite

/// The floor under a vault lookup: the same row fetch through SQLite's C API alone, with one
/// prepared statement, no blind-index hashing, no decryption and no GRDB.
///
/// It reads the `credentials` table of a vault file, selecting the columns
/// `CredentialStore.find(server:)` selects, by the same primary-key prefix (`server_index`).
final class SQLitePointQuery {
    private var connection: OpaquePointer?
    private var statement: OpaquePointer?

    /// Opens `path` read-only and prepares the query.
    init(path: String) throws {
        guard sqlite3_open_v2(path, &connection, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else {
            throw SQLiteFailure(message: "cannot open \(path)")
        }
        let sql = "SELECT id, server_index, account_index, sealed FROM credentials WHERE server_index = ?"
        guard sqlite3_prepare_v3(connection, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK
        else { throw SQLiteFailure(message: String(cString: sqlite3_errmsg(connection))) }
    }

    deinit {
        sqlite3_finalize(statement)
        sqlite3_close(connection)
    }

    /// Every row's `server_index`, to pick lookup keys from.
    func serverIndexes() throws -> [[UInt8]] {
        var all: OpaquePointer?
        guard sqlite3_prepare_v2(connection, "SELECT server_index FROM credentials", -1, &all, nil) == SQLITE_OK else {
            throw SQLiteFailure(message: String(cString: sqlite3_errmsg(connection)))
        }
        defer { sqlite3_finalize(all) }
        var indexes: [[UInt8]] = []
        while sqlite3_step(all) == SQLITE_ROW {
            let bytes = sqlite3_column_blob(all, 0).assumingMemoryBound(to: UInt8.self)
            indexes.append(Array(UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(all, 0)))))
        }
        return indexes
    }

    /// Runs the query for `serverIndex`; returns the rows found, after copying each sealed blob
    /// out (as a caller would, to decrypt it).
    func rows(serverIndex: [UInt8]) -> Int {
        serverIndex.withUnsafeBytes { key in
            // No destructor (SQLITE_STATIC): the key outlives the binding, cleared below.
            sqlite3_bind_blob(statement, 1, key.baseAddress, Int32(key.count), nil)
            var found = 0
            while sqlite3_step(statement) == SQLITE_ROW {
                let sealed = sqlite3_column_blob(statement, 3).assumingMemoryBound(to: UInt8.self)
                let copy = Array(UnsafeBufferPointer(start: sealed, count: Int(sqlite3_column_bytes(statement, 3))))
                found += copy.isEmpty ? 0 : 1
            }
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
            return found
        }
    }
}

/// A failure of the floor query's SQLite calls.
struct SQLiteFailure: Error, CustomStringConvertible {
    /// SQLite's message.
    let message: String
    var description: String { message }
}
