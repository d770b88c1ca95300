import Foundation
import SharedWebCredentialsPostgres
import TestSupport
import Testing

@testable import SharedWebCredentials

/// The two storage engines the vault runs on, for suites that run the same tests on both: a new
/// SQLite file in a temporary directory, or a new database on the test cluster (``TestPostgres``).
enum StorageEngine: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite
    case postgresql

    var testDescription: String { rawValue }

    /// A new, empty store: the file's path does not exist yet; the database has no table.
    func freshStore(in directory: TemporaryDirectory) throws -> VaultStore {
        switch self {
        case .sqlite: return .file(directory.path("vault.sqlite"))
        case .postgresql:
            TestEngines.registerPostgreSQL()
            return .postgresql(try PostgresStoreURL(parsing: try TestPostgres.freshDatabase()), password: nil)
        }
    }
}

/// The PostgreSQL engine, which lives in its own module, made available to the vault API.
enum TestEngines {
    private static let registered: Void = PostgreSQLEngine.register()

    /// Registers the engine (the first call does it).
    static func registerPostgreSQL() { registered }
}
