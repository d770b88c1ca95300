import Foundation
import Synchronization

/// The database engines that live outside this module. SQLite is built in; PostgreSQL comes with
/// the `SharedWebCredentialsPostgres` module, which registers itself
/// (`PostgreSQLEngine.register()`), so that a program that never uses it does not link it: every
/// type linked into an executable costs its start-up time, whether it runs or not
/// (Benchmarks/README.md, Start-up).
package enum ExternalEngines {
    /// Opens the PostgreSQL database of a store URL, with its password if one was given.
    package typealias PostgreSQLOpener =
        @Sendable (_ url: PostgresStoreURL, _ password: String?, _ busyTimeout: TimeInterval) throws ->
        any VaultStorage

    private static let postgreSQL = Mutex<PostgreSQLOpener?>(nil)

    /// Makes PostgreSQL store URLs open with `opener`.
    package static func registerPostgreSQL(_ opener: @escaping PostgreSQLOpener) {
        postgreSQL.withLock { $0 = opener }
    }

    /// The PostgreSQL database of `url`, opened; throws invalid-input when the program was built
    /// without the engine.
    static func openPostgreSQL(
        _ url: PostgresStoreURL, password: String?, busyTimeout: TimeInterval
    ) throws
        -> any VaultStorage
    {
        guard let opener = postgreSQL.withLock({ $0 }) else {
            throw SharedWebCredentialsError(
                .invalidInput,
                "\(url) is a PostgreSQL store, and this program was built without the PostgreSQL engine: link SharedWebCredentialsPostgres and call PostgreSQLEngine.register() (the swcred command runs swcred-postgres for it)"
            )
        }
        return try opener(url, password, busyTimeout)
    }
}
