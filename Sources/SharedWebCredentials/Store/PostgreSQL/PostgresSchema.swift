import SharedWebCredentialsData
import Synchronization

/// Migrates a PostgreSQL vault and checks that its schema is exactly what the embedded
/// PostgreSQL migrations make: the same tables, columns (type, nullability, default, collation),
/// constraints and indexes, and nothing else in the vault's schema (no trigger, rule, policy,
/// view, sequence, function, operator or type), no table inheriting from or into a vault table,
/// and no event trigger in the database. Any of these could run code on swcred's writes or change
/// what its reads see.
///
/// As for SQLite (``SQLiteSchema``), the expected schema is computed, not written down: the first
/// N migrations (N being how many the database records as applied) are applied inside a
/// transaction to a scratch schema of the same database, described the same way, and rolled
/// back. That needs the right to create a schema in the database (its owner has it).
enum PostgresSchema {
    /// The schema the vault's tables live in (connections pin `search_path` to it).
    static let schema = "public"

    /// The table that records the applied migrations.
    static let migrationsTable = #"CREATE TABLE swcred_migrations (identifier text COLLATE "C" PRIMARY KEY)"#

    /// One object of the schema: its kind, its name (`table.column` for columns, constraints,
    /// triggers, rules and policies), the table it belongs to, and its definition.
    struct SchemaObject: Hashable, Sendable {
        let type: String
        let name: String
        let table: String
        let definition: String
    }

    private static let expectedByCount = Mutex<[Int: Set<SchemaObject>]>([:])

    // MARK: Migrate

    /// Applies the embedded migrations the database lacks, each in its own write transaction
    /// (the writers' advisory lock: two processes migrating at once apply each migration once).
    static func migrate(_ storage: PostgresStorage) throws {
        for migration in EmbeddedMigrations.postgresql {
            try storage.inWrite(durability: .synced) { db in
                if try db.value("SELECT to_regclass('swcred_migrations')::text")?.isNull ?? true {
                    try db.run(migrationsTable)
                }
                guard
                    try db.row("SELECT 1 FROM swcred_migrations WHERE identifier = ?", [.text(migration.identifier)])
                        == nil
                else { return }
                for statement in PostgresSQLText.statements(migration.sql) { try db.run(statement) }
                try db.execute("INSERT INTO swcred_migrations (identifier) VALUES (?)", [.text(migration.identifier)])
            }
        }
    }

    // MARK: Verify

    /// Throws `.integrityFailure`, naming the object, if the vault's schema differs from what the
    /// migrations it records as applied make.
    static func verify(_ storage: PostgresStorage) throws -> SchemaState {
        let location = storage.location
        let (actual, applied, eventTriggers) = try storage.read { db in
            let actual = try objects(db, schema: schema)
            var applied: [String]?
            if actual.contains(where: { $0.type == "table" && $0.name == "swcred_migrations" }) {
                applied = try db.rows("SELECT identifier FROM swcred_migrations ORDER BY identifier").compactMap {
                    $0.text(0)
                }
            }
            let eventTriggers = try db.rows("SELECT evtname FROM pg_event_trigger ORDER BY evtname").compactMap {
                $0.text(0)
            }
            return (actual, applied, eventTriggers)
        }
        if let trigger = eventTriggers.first {
            throw SharedWebCredentialsError(
                .integrityFailure,
                "The database of \(location) has an event trigger \(quoted(trigger)) that swcred never creates: it could run code on swcred's statements. Nothing was read; remove it or move the vault to a database of its own."
            )
        }
        let known = EmbeddedMigrations.postgresql.map(\.identifier)
        if let applied, applied.count > known.count || Array(known.prefix(applied.count)) != applied {
            throw SharedWebCredentialsError(
                .internalError,
                "\(location) records schema migrations this swcred does not know (\(applied.filter { !known.contains($0) }.joined(separator: ", "))): it was written by a newer swcred. Upgrade swcred."
            )
        }
        let expected = try applied.map { try expectedObjects(migrationCount: $0.count, storage: storage) } ?? []
        try compare(actual: actual, expected: expected, location: location)
        switch applied?.count {
        case nil, 0: return .empty
        case known.count: return .current
        default: return .outdated
        }
    }

    private static func compare(actual: Set<SchemaObject>, expected: Set<SchemaObject>, location: String) throws {
        let expectedByKey = Dictionary(
            expected.map { ($0.type + " " + $0.name, $0) }, uniquingKeysWith: { first, _ in first })
        // Types last: a view or table brings its row and array types, and the message should
        // name the view or table.
        func order(_ object: SchemaObject) -> (Int, String, String) {
            (object.type == "type" ? 1 : 0, object.table, object.name)
        }
        for object in actual.sorted(by: { order($0) < order($1) }) where !expected.contains(object) {
            if let wanted = expectedByKey[object.type + " " + object.name] {
                throw SharedWebCredentialsError(
                    .integrityFailure,
                    "The \(wanted.type) \(quoted(object.name)) in \(location) differs from what swcred creates (found \(quoted(object.definition)), expected \(quoted(wanted.definition))): the vault was altered outside swcred. Restore it from a backup."
                )
            }
            let on = object.table.isEmpty || object.table == object.name ? "" : " on \(quoted(object.table))"
            throw SharedWebCredentialsError(
                .integrityFailure,
                "\(location) contains a \(object.type) \(quoted(object.name))\(on) that swcred never creates: the vault was altered outside swcred, and the \(object.type) could change what swcred reads or writes. Nothing was read; restore the vault from a backup."
            )
        }
        let actualKeys = Set(actual.map { $0.type + " " + $0.name })
        if let missing = expected.sorted(by: { $0.name < $1.name }).first(where: {
            !actualKeys.contains($0.type + " " + $0.name)
        }) {
            throw SharedWebCredentialsError(
                .integrityFailure,
                "The \(missing.type) \(quoted(missing.name)) is missing from \(location): the vault was altered outside swcred or is damaged. Restore it from a backup."
            )
        }
    }

    /// The schema the first `count` migrations make, computed once per process for each count,
    /// in a scratch schema that is rolled back.
    private static func expectedObjects(migrationCount count: Int, storage: PostgresStorage) throws -> Set<SchemaObject>
    {
        if let cached = expectedByCount.withLock({ $0[count] }) { return cached }
        let scratch = "swcred_expected_" + RandomBytes.array(count: 8).map { String($0, radix: 16) }.joined()
        let expected = try storage.withScratchTransaction { connection in
            try connection.run("CREATE SCHEMA \(scratch)")
            try connection.run("SET LOCAL search_path = \(scratch)")
            try connection.run(migrationsTable)
            for migration in EmbeddedMigrations.postgresql.prefix(count) {
                for statement in PostgresSQLText.statements(migration.sql) { try connection.run(statement) }
            }
            return try objects(connection, schema: scratch)
        }
        expectedByCount.withLock { $0[count] = expected }
        return expected
    }

    /// Every object of `schema`, described without the schema's name.
    static func objects(_ db: any StoreReader, schema: String) throws -> Set<SchemaObject> {
        Set(
            try db.rows(describeSQL, [.text(schema)]).map {
                SchemaObject(
                    type: $0.text(0) ?? "", name: $0.text(1) ?? "", table: $0.text(2) ?? "",
                    definition: $0.text(3) ?? "")
            })
    }

    /// Relations (with indexes' definitions, persistence and row security), columns, constraints,
    /// triggers, rules, policies, functions, operators, types and inheritance of one schema.
    private static let describeSQL = """
        WITH s AS (SELECT oid, nspname FROM pg_namespace WHERE nspname = ?)
        SELECT CASE c.relkind WHEN 'r' THEN 'table' WHEN 'p' THEN 'partitioned table' WHEN 'v' THEN 'view'
                WHEN 'm' THEN 'materialized view' WHEN 'S' THEN 'sequence' WHEN 'f' THEN 'foreign table'
                WHEN 'c' THEN 'composite type' WHEN 'i' THEN 'index' WHEN 'I' THEN 'partitioned index'
                ELSE 'relation' END,
            c.relname::text,
            coalesce((SELECT t.relname::text FROM pg_index x JOIN pg_class t ON t.oid = x.indrelid
                WHERE x.indexrelid = c.oid), c.relname::text),
            CASE WHEN c.relkind IN ('i', 'I')
                THEN replace(pg_get_indexdef(c.oid), ' ON ' || quote_ident(s.nspname) || '.', ' ON ') || ' '
                ELSE '' END
                || 'persistence=' || c.relpersistence::text || ' rowsecurity=' || c.relrowsecurity::text
                || ' forcerowsecurity=' || c.relforcerowsecurity::text
        FROM pg_class c JOIN s ON s.oid = c.relnamespace
        UNION ALL
        SELECT 'column', c.relname || '.' || a.attname, c.relname::text,
            format_type(a.atttypid, a.atttypmod) || CASE WHEN a.attnotnull THEN ' NOT NULL' ELSE '' END
                || coalesce(' DEFAULT ' || pg_get_expr(d.adbin, d.adrelid), '')
                || coalesce((SELECT ' COLLATE ' || quote_ident(cn.nspname) || '.' || quote_ident(co.collname)
                    FROM pg_collation co JOIN pg_namespace cn ON cn.oid = co.collnamespace
                    WHERE co.oid = a.attcollation), '')
                || ' generated=' || a.attgenerated::text || ' identity=' || a.attidentity::text
        FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN s ON s.oid = c.relnamespace
            LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
        WHERE a.attnum > 0 AND NOT a.attisdropped AND c.relkind IN ('r', 'p', 'f')
        UNION ALL
        SELECT 'constraint', c.relname || '.' || k.conname, c.relname::text,
            k.contype::text || ' ' || pg_get_constraintdef(k.oid)
        FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN s ON s.oid = c.relnamespace
        UNION ALL
        SELECT 'trigger', c.relname || '.' || t.tgname, c.relname::text, pg_get_triggerdef(t.oid)
        FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN s ON s.oid = c.relnamespace
        WHERE NOT t.tgisinternal
        UNION ALL
        SELECT 'rule', c.relname || '.' || r.rulename, c.relname::text, pg_get_ruledef(r.oid)
        FROM pg_rewrite r JOIN pg_class c ON c.oid = r.ev_class JOIN s ON s.oid = c.relnamespace
        UNION ALL
        SELECT 'policy', c.relname || '.' || p.polname, c.relname::text, coalesce(pg_get_expr(p.polqual, p.polrelid), '')
        FROM pg_policy p JOIN pg_class c ON c.oid = p.polrelid JOIN s ON s.oid = c.relnamespace
        UNION ALL
        SELECT CASE f.prokind WHEN 'p' THEN 'procedure' WHEN 'a' THEN 'aggregate' ELSE 'function' END,
            f.proname || '(' || pg_get_function_identity_arguments(f.oid) || ')', '', ''
        FROM pg_proc f JOIN s ON s.oid = f.pronamespace
        UNION ALL
        SELECT 'operator', o.oprname || '(' || format_type(o.oprleft, NULL) || ', ' || format_type(o.oprright, NULL) || ')',
            '', ''
        FROM pg_operator o JOIN s ON s.oid = o.oprnamespace
        UNION ALL
        SELECT 'type', t.typname::text, '', t.typtype::text
        FROM pg_type t JOIN s ON s.oid = t.typnamespace
        UNION ALL
        SELECT 'inheritance', child.relname || ' inherits ' || parent.relname, child.relname::text, ''
        FROM pg_inherits i JOIN pg_class child ON child.oid = i.inhrelid JOIN pg_class parent ON parent.oid = i.inhparent
        WHERE child.relnamespace IN (SELECT oid FROM s) OR parent.relnamespace IN (SELECT oid FROM s)
        """

    private static func quoted(_ text: String) -> String {
        String(reflecting: text)
    }
}
