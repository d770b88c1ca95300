import Foundation
import TestSupport
import Testing

@testable import SharedWebCredentials

/// What a PostgreSQL vault's reads see: one snapshot for a whole read transaction, whatever
/// another connection commits meanwhile, and only the vault's own schema, whatever `search_path`
/// the database's or role's defaults put before it.
@Suite("PostgreSQL reads: one snapshot, the vault's own schema")
struct PostgresIsolationTests {
    static let passphrase = SecureBytes(utf8: VaultTestSupport.passphrase)

    let database: String
    let store: VaultStore

    init() throws {
        database = try TestPostgres.freshDatabase()
        store = .postgresql(try PostgresStoreURL(parsing: database), password: nil)
        let vault = try Vault.create(in: store, protection: .passphrase(Self.passphrase, VaultTestSupport.fastKDF))
        try vault.credentials.upsert(server: "shop.example", account: "alice", password: SecureBytes(utf8: "one"))
    }

    func open() throws -> Vault {
        try Vault.open(store: store, secret: .passphrase(Self.passphrase))
    }

    @Test("a read transaction's statements see one snapshot: a commit by another connection between them is not seen")
    func oneSnapshot() throws {
        let reader = try open()
        let writer = try open()
        let count = "SELECT count(*) FROM credentials"
        let (before, after) = try reader.read { db, _ in
            let before = try db.value(count)?.integer
            try writer.credentials.upsert(server: "shop.example", account: "bob", password: SecureBytes(utf8: "two"))
            return (before, try db.value(count)?.integer)
        }
        #expect(before == 1)
        #expect(after == 1, "a read transaction saw a write committed after its first statement")
        #expect(try reader.read { db, _ in try db.value(count)?.integer } == 2, "the next read sees it")
    }

    @Test("a table of the vault's name in a schema first on the database's search_path is never read nor written")
    func ownSchemaOnly() throws {
        try TestPostgres.psql(
            database,
            """
            CREATE SCHEMA decoy;
            CREATE TABLE decoy.credentials (LIKE public.credentials INCLUDING ALL);
            DO $$ BEGIN
              EXECUTE format('ALTER DATABASE %I SET search_path = decoy, public', current_database());
            END $$;
            """)
        #expect(
            try TestPostgres.psql(database, "SHOW search_path") == "decoy, public\n",
            "the database's default search_path was not set")
        let vault = try open()
        #expect(try vault.credentials.find(server: "shop.example").map(\.account) == ["alice"])
        try vault.credentials.upsert(server: "shop.example", account: "bob", password: SecureBytes(utf8: "two"))
        #expect(try open().credentials.count() == 2)
        #expect(
            try TestPostgres.psql(database, "SELECT count(*) FROM public.credentials") == "2\n",
            "the vault's own table holds both")
        #expect(
            try TestPostgres.psql(database, "SELECT count(*) FROM decoy.credentials") == "0\n",
            "a write went to the decoy table")
        #expect(try vault.integrityReport().isIntact)
    }
}
