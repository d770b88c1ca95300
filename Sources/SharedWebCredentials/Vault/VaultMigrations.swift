import GRDB
import SharedWebCredentialsData

/// Applies every embedded `Migrations/NNNN_*.sql` in order, each once, with GRDB's migrator.
enum VaultMigrations {
    /// The migrator holding every embedded migration.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for migration in EmbeddedMigrations.all {
            let sql = migration.sql
            migrator.registerMigration(migration.identifier) { db in
                try db.execute(sql: sql)
            }
        }
        return migrator
    }

    /// Brings the schema up to date (does nothing when it already is).
    static func apply(to writer: some DatabaseWriter) throws {
        try migrator.migrate(writer)
    }
}
