import Foundation
import TestSupport
import Testing

@testable import SharedWebCredentials

/// The PostgreSQL engine's text handling: libpq's URI form, password files, and the two SQL
/// rewrites (placeholders, migration statements).
@Suite("PostgreSQL store URLs, password files and SQL rewrites")
struct PostgresStoreURLTests {
    @Test("libpq's URI forms: socket directory, port, defaults; the description never has a password")
    func parsing() throws {
        let url = try PostgresStoreURL(parsing: "postgresql://swcred@/vault?host=/run/postgresql")
        #expect(url.user == "swcred" && url.database == "vault")
        #expect(url.socketPath == "/run/postgresql/.s.PGSQL.5432")
        #expect(url.description == "postgresql://swcred@/vault?host=/run/postgresql")
        let ported = try PostgresStoreURL(parsing: "postgres://swcred@/vault?host=/tmp/pg&port=5433")
        #expect(ported.socketPath == "/tmp/pg/.s.PGSQL.5433")
        let defaulted = try PostgresStoreURL(parsing: "postgresql:///", environment: ["PGUSER": "alice"])
        #expect(
            defaulted.user == "alice" && defaulted.database == "alice" && defaulted.socketDirectory == "/run/postgresql"
        )
        let tcp = try PostgresStoreURL(parsing: "postgresql://swcred@db.example:6543/vault")
        #expect(tcp.host == "db.example" && tcp.port == 6543 && tcp.socketPath == nil)
    }

    @Test("a password in the URL, unknown parameters and a relative host= are refused")
    func refusals() {
        for text in [
            "postgresql://swcred:secret@/vault?host=/run/postgresql",
            "postgresql://swcred@/vault?host=/run/postgresql&password=secret",
            "postgresql://swcred@/vault?host=relative", "postgresql://swcred@/vault?sslmode=disable",
            "mysql://swcred@/vault",
        ] {
            #expect(VaultTestSupport.errorCode { _ = try PostgresStoreURL(parsing: text) } == .invalidInput, "\(text)")
        }
    }

    @Test(
        "the password comes from --store-password-file or the first matching PGPASSFILE line; a readable file is refused"
    )
    func passwordFiles() throws {
        let directory = try TemporaryDirectory()
        let url = try PostgresStoreURL(parsing: "postgresql://swcred@/vault?host=/tmp/pg")
        let single = directory.path("password")
        FileManager.default.createFile(
            atPath: single, contents: Data("s3cret\n".utf8), attributes: [.posixPermissions: 0o600])
        #expect(try PostgresPassword.resolve(for: url, passwordFile: single, environment: [:]) == "s3cret")
        let pgpass = directory.path("pgpass")
        let lines = "other:5432:vault:swcred:wrong\n/tmp/pg:5432:other:swcred:wrong\n/tmp/pg:*:vault:swcred:pa\\:ss\n"
        FileManager.default.createFile(
            atPath: pgpass, contents: Data(lines.utf8), attributes: [.posixPermissions: 0o600])
        #expect(
            try PostgresPassword.resolve(for: url, passwordFile: nil, environment: ["PGPASSFILE": pgpass]) == "pa:ss")
        #expect(try PostgresPassword.resolve(for: url, passwordFile: nil, environment: [:]) == nil)
        chmod(pgpass, 0o644)
        #expect(
            VaultTestSupport.errorCode {
                _ = try PostgresPassword.resolve(for: url, passwordFile: nil, environment: ["PGPASSFILE": pgpass])
            } == .invalidInput)
    }

    @Test("? becomes $n outside literals, quoted identifiers and comments; migrations split at their statements")
    func rewrites() {
        #expect(
            PostgresSQLText.numberingPlaceholders("SELECT '?', \"a?\" FROM t WHERE a = ? AND b = ? -- ?\n AND c = ?")
                == "SELECT '?', \"a?\" FROM t WHERE a = $1 AND b = $2 -- ?\n AND c = $3")
        #expect(PostgresSQLText.numberingPlaceholders("SELECT 'it''s ?' || ?") == "SELECT 'it''s ?' || $1")
        #expect(
            PostgresSQLText.numberingPlaceholders(
                "SELECT x FROM t WHERE a = ? AND b = ? AND c = '?'", types: ["bytea", nil])
                == "SELECT x FROM t WHERE a = $1::bytea AND b = $2 AND c = '?'")
        #expect(
            PostgresSQLText.statements(
                "-- head; note\nCREATE TABLE a (x text CHECK (x <> ';'));\n/* ; */ CREATE INDEX i ON a (x);\n-- tail")
                == ["-- head; note\nCREATE TABLE a (x text CHECK (x <> ';'))", "/* ; */ CREATE INDEX i ON a (x)"])
        // Statements run together keep their placeholders in order: the WITH parts come first.
        #expect(
            PostgresSQLText.numberingPlaceholders(
                PostgresSQLText.combining([
                    "INSERT INTO a (x, y) VALUES (?, ?), (?, ?)", "DELETE FROM b WHERE z = ?", "UPDATE c SET w = ?",
                ]))
                == "WITH part1 AS (INSERT INTO a (x, y) VALUES ($1, $2), ($3, $4)), part2 AS (DELETE FROM b WHERE z = $5) UPDATE c SET w = $6"
        )
    }
}
