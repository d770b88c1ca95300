import GRDB
import SharedWebCredentialsData
import Synchronization

/// Checks that a vault file's schema is exactly what the embedded migrations make: the same
/// tables, indexes, and nothing else (no trigger, no view, no extra table). Anything else could
/// run code on swcred's writes (a trigger rewriting verdicts) or change what its reads see.
///
/// The expected schema is computed, not written down: the first N embedded migrations (N being
/// how many the file records as applied) are applied to an in-memory database and its
/// `sqlite_master` is compared with the file's, object by object, SQL text included.
enum SQLiteSchema {
    /// One row of `sqlite_master`.
    struct SchemaObject: Hashable, Sendable {
        let type: String
        let name: String
        let table: String
        let sql: String?
    }

    private static let expectedByCount = Mutex<[Int: Set<SchemaObject>]>([:])

    /// The `schema_version` at which each connection (by its `sqlite3 *`) last found its schema
    /// to be the vault's.
    private static let verifiedVersions = Mutex<[Int: Int]>([:])

    /// Throws `.integrityFailure`, as ``verify(_:path:)`` does, if the schema `db` sees changed
    /// since the connection last checked it and is no longer what the migrations make. Called at
    /// the start of every transaction: a writer of the file can add a trigger, a view or an
    /// index while swcred has it open, and the connection would use it from its next statement
    /// on. Costs one read of the file header's schema cookie when nothing changed.
    static func requireUnchanged(_ db: Database, path: String) throws {
        let version = try Int.fetchOne(db.cachedStatement(sql: "PRAGMA schema_version")) ?? 0
        let connection = Int(bitPattern: db.sqliteConnection)
        guard verifiedVersions.withLock({ $0[connection] }) != version else { return }
        try verify(db, path: path)
        verifiedVersions.withLock { $0[connection] = version }
    }

    /// Throws `.integrityFailure`, naming the object, if the schema of `db` differs from what the
    /// migrations it records as applied make. Returns whether every embedded migration is applied.
    @discardableResult
    static func verify(_ db: Database, path: String) throws -> SchemaState {
        let actual = try objects(db)
        let applied = try appliedMigrations(db, objects: actual, path: path)
        let expected = try applied.map(expectedObjects(migrationCount:)) ?? []
        let expectedByName = Dictionary(expected.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for object in actual.sorted(by: { $0.name < $1.name }) where !expected.contains(object) {
            if let wanted = expectedByName[object.name] {
                throw SharedWebCredentialsError(
                    .integrityFailure,
                    "The \(wanted.type) \(quoted(object.name)) in \(path) differs from what swcred creates (found a \(object.type) defined as \(quoted(object.sql ?? "nothing"))): the vault was altered outside swcred. Restore it from a backup."
                )
            }
            throw SharedWebCredentialsError(
                .integrityFailure,
                "\(path) contains a \(object.type) \(quoted(object.name)) on \(quoted(object.table)) that swcred never creates: the vault was altered outside swcred, and the \(object.type) could change what swcred reads or writes. Nothing was read; restore the vault from a backup."
            )
        }
        let actualNames = Set(actual.map(\.name))
        if let missing = expected.sorted(by: { $0.name < $1.name }).first(where: { !actualNames.contains($0.name) }) {
            throw SharedWebCredentialsError(
                .integrityFailure,
                "The \(missing.type) \(quoted(missing.name)) is missing from \(path): the vault was altered outside swcred or is damaged. Restore it from a backup."
            )
        }
        switch applied {
        case nil, 0: return .empty
        case EmbeddedMigrations.all.count: return .current
        default: return .outdated
        }
    }

    private static func objects(_ db: Database) throws -> Set<SchemaObject> {
        Set(
            try Row.fetchAll(db, sql: "SELECT type, name, tbl_name, sql FROM sqlite_master").map {
                SchemaObject(type: $0[0], name: $0[1], table: $0[2], sql: $0[3])
            })
    }

    /// How many embedded migrations the file records as applied, or nil if it has no migrations
    /// table (a new file, or one where it is not a table, which is then reported). The applied
    /// migrations must be a prefix of the embedded list (a file from a newer swcred is refused).
    private static func appliedMigrations(_ db: Database, objects: Set<SchemaObject>, path: String) throws -> Int? {
        guard objects.contains(where: { $0.name == "grdb_migrations" && $0.type == "table" }) else { return nil }
        let applied = try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY identifier")
        let known = EmbeddedMigrations.all.map(\.identifier)
        guard applied.count <= known.count, Array(known.prefix(applied.count)) == applied else {
            throw SharedWebCredentialsError(
                .internalError,
                "\(path) records schema migrations this swcred does not know (\(applied.filter { !known.contains($0) }.joined(separator: ", "))): it was written by a newer swcred. Upgrade swcred."
            )
        }
        return applied.count
    }

    /// The schema the first `count` migrations make, computed once per process for each count.
    private static func expectedObjects(migrationCount count: Int) throws -> Set<SchemaObject> {
        if let cached = expectedByCount.withLock({ $0[count] }) { return cached }
        let memory = try DatabaseQueue()
        var migrator = DatabaseMigrator()
        for migration in EmbeddedMigrations.all.prefix(count) {
            let sql = migration.sql
            migrator.registerMigration(migration.identifier) { db in try db.execute(sql: sql) }
        }
        try migrator.migrate(memory)
        let expected = try memory.read { db in try objects(db) }
        expectedByCount.withLock { $0[count] = expected }
        return expected
    }

    private static func quoted(_ text: String) -> String {
        String(reflecting: text)
    }
}
