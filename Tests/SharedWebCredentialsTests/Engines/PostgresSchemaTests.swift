import Foundation
import TestSupport
import Testing

@testable import SharedWebCredentials

/// The PostgreSQL schema check: whatever the database's owner adds to or changes in the vault's
/// schema with psql, opening the vault refuses it with exit 9, naming the object.
@Suite("PostgreSQL schema check: the owner's changes are refused by name")
struct PostgresSchemaTests {
    struct Tamper: CustomTestStringConvertible, Sendable {
        let sql: String
        let named: String
        var testDescription: String { named }
    }

    static let tampers = [
        Tamper(sql: "CREATE VIEW credentials_view AS SELECT * FROM credentials", named: "credentials_view"),
        Tamper(
            sql: "CREATE FUNCTION always_true(bytea, bytea) RETURNS boolean LANGUAGE sql AS 'SELECT true'",
            named: "always_true(bytea, bytea)"),
        Tamper(
            sql: "ALTER TABLE associations DROP CONSTRAINT associations_verdict_check",
            named: "associations.associations_verdict_check"),
        Tamper(sql: "ALTER TABLE credentials ALTER COLUMN version DROP NOT NULL", named: "credentials.version"),
        Tamper(sql: "ALTER TABLE audit_log SET UNLOGGED", named: "audit_log"),
        Tamper(sql: "CREATE INDEX spy ON credentials (sealed)", named: "spy"),
        Tamper(
            sql: "CREATE RULE keep AS ON DELETE TO app_tokens DO INSTEAD NOTHING", named: "app_tokens.keep"),
        Tamper(
            sql: "ALTER TABLE apps ENABLE ROW LEVEL SECURITY", named: "apps"),
        Tamper(
            sql: "CREATE TABLE extra_tokens () INHERITS (app_tokens)", named: "extra_tokens"),
    ]

    @Test(
        "a view, function, dropped CHECK, nullable column, unlogged table, index, rule, row security or child table",
        arguments: tampers)
    func refused(tamper: Tamper) throws {
        let database = try TestPostgres.freshDatabase()
        let store = VaultStore.postgresql(try PostgresStoreURL(parsing: database), password: nil)
        _ = try Vault.create(
            in: store, protection: .passphrase(SecureBytes(utf8: VaultTestSupport.passphrase), VaultTestSupport.fastKDF)
        )
        try TestPostgres.psql(database, tamper.sql)
        do {
            _ = try Vault.inspect(store: store)
            Issue.record("the vault opened after: \(tamper.sql)")
        } catch let error as SharedWebCredentialsError {
            #expect(error.code == .integrityFailure)
            #expect(error.message.contains("\"\(tamper.named)\""), "\(error.message)")
        }
    }
}
