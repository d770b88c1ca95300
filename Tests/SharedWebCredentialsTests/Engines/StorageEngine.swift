import Foundation
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
            return .postgresql(try PostgresStoreURL(parsing: try TestPostgres.freshDatabase()), password: nil)
        }
    }
}
