import NIOSSL
import PostgresNIO

/// The library errors for PostgreSQL's: a server that cannot be reached or refuses the login, or
/// that cannot write (read-only standby, disk full, no permission), is exit 13 with what to do;
/// a lock not granted within the busy timeout is `.vaultBusy`. Messages name the store URL,
/// which never holds a password, and never the server's DETAIL (which can quote a row).
enum PostgresErrors {
    static func translate(_ error: PSQLError, location: String) -> SharedWebCredentialsError {
        guard error.code == .server, let info = error.serverInfo else {
            switch error.code {
            case .authMechanismRequiresPassword:
                return storageFailure(
                    location,
                    "the server asks for a password: give it with --store-password-file PATH or in a PGPASSFILE")
            case .sslUnsupported:
                return storageFailure(location, "the server does not offer TLS, which swcred requires over TCP")
            default:
                return unreachable(location: location, cause: "\(error.code)")
            }
        }
        return translate(state: info[.sqlState] ?? "", message: info[.message] ?? "no message", location: location)
    }

    /// The library error for postgres-nio's older error type, which its prepared statements
    /// (``PostgresSession``) still report.
    static func translate(_ error: PostgresError, location: String) -> SharedWebCredentialsError {
        switch error {
        case .server(let info):
            return translate(
                state: info.fields[.sqlState] ?? "", message: info.fields[.message] ?? "no message", location: location)
        case .connectionClosed:
            return unreachable(location: location, cause: "the connection closed")
        case .protocol(let problem):
            return unreachable(location: location, cause: problem)
        }
    }

    /// The library error for the server's error `state` (its SQLSTATE) and `message`.
    private static func translate(state: String, message: String, location: String) -> SharedWebCredentialsError {
        switch state {
        case "55P03", "40001", "40P01":
            return SharedWebCredentialsError(
                .vaultBusy, "The vault \(location) stayed locked by another writer past the timeout; try again.")
        case "3D000":
            return SharedWebCredentialsError(
                .vaultNotFound,
                "No database for the vault \(location) (\(message)): create it (createdb) and run `swcred init --store URL`."
            )
        case "25006":
            return storageFailure(location, "the server is read-only (a standby?): point --store at the primary")
        case "42501":
            return storageFailure(location, "permission was denied (\(message)): grant the role the vault's tables")
        case _ where state.hasPrefix("28"):
            return storageFailure(
                location, "the server refused the login (\(message)): check the user and the password file")
        case _ where state.hasPrefix("53"):
            return storageFailure(
                location, "the server is out of resources (\(message)): free disk space or connections")
        case _ where state.hasPrefix("08") || state.hasPrefix("57P"):
            return storageFailure(location, "the server closed the connection or is shutting down (\(message))")
        default:
            return SharedWebCredentialsError(
                .internalError,
                "PostgreSQL failed on the vault \(location) (SQLSTATE \(state): \(message)); nothing was committed. Please report this."
            )
        }
    }

    /// The error for a server that cannot be reached.
    static func unreachable(location: String, cause: String) -> SharedWebCredentialsError {
        storageFailure(
            location,
            "it cannot be reached (\(cause)): check that the server runs and the URL's host or socket directory")
    }

    /// The error for storage that cannot be reached or written (exit 13).
    private static func storageFailure(_ location: String, _ cause: String) -> SharedWebCredentialsError {
        SharedWebCredentialsError(
            .storageFailure,
            "The vault storage at \(location) cannot be used; nothing was changed. The cause: \(cause); then try again."
        )
    }
}

/// The TLS context for TCP connections: the system's trust roots, the server's name checked.
enum NIOSSLContextMaker {
    static func client() throws -> NIOSSLContext {
        try NIOSSLContext(configuration: .makeClientConfiguration())
    }
}
