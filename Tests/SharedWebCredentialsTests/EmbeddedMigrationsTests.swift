import Foundation
import SharedWebCredentialsData
import Testing

@testable import SharedWebCredentials

@Suite("Embedded schema")
struct EmbeddedMigrationsTests {
    private var migrationsDirectory: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Migrations")
    }

    @Test("the embedded migrations equal Migrations/*.sql on disk (run Scripts/embed-migrations if not)")
    func embeddedCopyMatchesDisk() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: migrationsDirectory.path)
            .filter { $0.hasSuffix(".sql") }.sorted()
        #expect(!files.isEmpty)
        #expect(EmbeddedMigrations.all.map { $0.identifier + ".sql" } == files)
        for (identifier, sql) in EmbeddedMigrations.all {
            let onDisk = try String(
                contentsOf: migrationsDirectory.appendingPathComponent(identifier + ".sql"), encoding: .utf8)
            #expect(sql + "\n" == onDisk, "\(identifier).sql differs from its embedded copy")
        }
    }

    @Test("migration file names are NNNN_description.sql")
    func namesAreNumbered() {
        for (identifier, _) in EmbeddedMigrations.all {
            #expect(identifier.range(of: #"^[0-9]{4}_[a-z0-9_]+$"#, options: .regularExpression) != nil)
        }
    }
}
