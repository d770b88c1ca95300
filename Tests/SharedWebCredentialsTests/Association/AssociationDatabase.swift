import Foundation
import GRDB
import TestSupport

/// A real SQLite file with migration 0002 applied, for store tests.
struct AssociationDatabase {
    let directory: TemporaryDirectory
    let queue: DatabaseQueue

    init() throws {
        directory = try TemporaryDirectory()
        queue = try DatabaseQueue(path: directory.path("vault.sqlite"))
        let migration = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Migrations/0002_associations.sql")
        let sql = try String(contentsOf: migration, encoding: .utf8)
        try queue.write { try $0.execute(sql: sql) }
    }
}
