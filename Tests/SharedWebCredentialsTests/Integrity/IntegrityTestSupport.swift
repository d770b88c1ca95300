import Foundation
import GRDB
import Synchronization
import TestSupport

@testable import SharedWebCredentials

/// Collects the warnings a vault passes to its handler.
final class WarningLog: Sendable {
    private let messages = Mutex<[String]>([])

    /// Installs the log as `vault`'s warning handler.
    init(for vault: Vault) {
        vault.setWarningHandler { [self] message in messages.withLock { $0.append(message) } }
    }

    /// Every warning so far.
    var all: [String] { messages.withLock { $0 } }
}

/// An attacker's view of a vault: the file through a plain SQLite connection, without the key
/// and without swcred's defensive settings.
struct Attacker {
    let path: String

    /// Runs SQL on the file.
    func execute(_ sql: String, arguments: StatementArguments = StatementArguments()) throws {
        try VaultTestSupport.rawDatabase(path).write { db in try db.execute(sql: sql, arguments: arguments) }
    }

    /// The rows a query returns.
    func rows(_ sql: String, arguments: StatementArguments = StatementArguments()) throws -> [Row] {
        try VaultTestSupport.rawDatabase(path).read { db in try Row.fetchAll(db, sql: sql, arguments: arguments) }
    }
}

/// The error a throwing call fails with.
func failure(_ body: () throws -> Void) -> SharedWebCredentialsError? {
    do {
        try body()
        return nil
    } catch {
        return error as? SharedWebCredentialsError
    }
}

/// The error an async throwing call fails with.
func failure(_ body: () async throws -> Void) async -> SharedWebCredentialsError? {
    do {
        try await body()
        return nil
    } catch {
        return error as? SharedWebCredentialsError
    }
}
