import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Where a vault on PostgreSQL is: libpq's connection URI, as `psql` takes it, without a password.
///
/// `postgresql://USER@/DATABASE?host=SOCKETDIR` connects through the Unix socket in `SOCKETDIR`
/// (`.s.PGSQL.PORT`, port 5432 unless `port=` or the authority says otherwise);
/// `postgresql://USER@HOST:PORT/DATABASE` connects over TCP, always with TLS and the server's
/// certificate checked against the system's roots. Without a user, `PGUSER` or the login name;
/// without a database, the user's name; without a host, libpq's default socket directory
/// `/run/postgresql`. A password in the URL (`user:password@` or `password=`) is refused: it would
/// show in the process list and the shell's history. It comes from a file instead
/// (``PostgresPassword``).
public struct PostgresStoreURL: Sendable, Hashable, CustomStringConvertible {
    /// The role to connect as.
    public var user: String
    /// The database holding the vault.
    public var database: String
    /// The directory of the server's Unix socket, or nil for TCP.
    public var socketDirectory: String?
    /// The server's host name for TCP, or nil for a Unix socket.
    public var host: String?
    /// The server's port (also the number in the socket's file name).
    public var port: Int

    /// Whether `text` is a PostgreSQL URL rather than a file path.
    public static func isStoreURL(_ text: String) -> Bool {
        text.hasPrefix("postgresql://") || text.hasPrefix("postgres://")
    }

    /// Parses libpq's URI form; throws `.invalidInput` saying what is wrong.
    public init(parsing text: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        func invalid(_ reason: String) -> SharedWebCredentialsError {
            SharedWebCredentialsError(
                .invalidInput,
                "The store URL is not usable: \(reason). Give one like postgresql://swcred@/swcred?host=/run/postgresql."
            )
        }
        guard Self.isStoreURL(text), let components = URLComponents(string: text) else {
            throw invalid("it is not a postgresql:// URL")
        }
        if components.password != nil || components.queryItems?.contains(where: { $0.name == "password" }) == true {
            throw SharedWebCredentialsError(
                .invalidInput,
                "The store URL contains a password, which swcred never takes on the command line or in the environment (it would show in the process list): remove it and give it with --store-password-file PATH or in a PGPASSFILE."
            )
        }
        var port = components.port ?? 5432
        var socketDirectory: String?
        for item in components.queryItems ?? [] {
            switch item.name {
            case "host":
                guard let value = item.value, value.hasPrefix("/") else {
                    throw invalid(
                        "host= must name the socket's directory (an absolute path); put a TCP host before the path")
                }
                socketDirectory = value
            case "port":
                guard let value = item.value.flatMap(Int.init), (1...65535).contains(value) else {
                    throw invalid("port= is not a port number")
                }
                port = value
            case "user", "dbname", "application_name", "connect_timeout":
                continue
            default:
                throw invalid("swcred does not know the parameter \(item.name)=")
            }
        }
        let host = components.host.flatMap { $0.isEmpty ? nil : $0 }
        if host != nil, socketDirectory != nil {
            throw invalid("it names both a TCP host and a socket directory (host=)")
        }
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        let queryUser = components.queryItems?.first(where: { $0.name == "user" })?.value
        let queryDatabase = components.queryItems?.first(where: { $0.name == "dbname" })?.value
        guard
            let user = components.user.flatMap({ $0.isEmpty ? nil : $0 }) ?? queryUser ?? environment["PGUSER"]
                ?? Self.loginName()
        else { throw invalid("it names no user, and the login name is unknown") }
        self.user = user
        self.database = (path.isEmpty ? nil : path) ?? queryDatabase ?? user
        self.port = port
        self.host = host
        self.socketDirectory = host == nil ? (socketDirectory ?? "/run/postgresql") : nil
        guard !self.database.contains("/") else { throw invalid("the database name contains a /") }
    }

    /// The path of the server's Unix socket, for a socket connection.
    public var socketPath: String? { socketDirectory.map { "\($0)/.s.PGSQL.\(port)" } }

    /// The URL in libpq's form (never with a password), for messages.
    public var description: String {
        let database = self.database.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? self.database
        let user = self.user.addingPercentEncoding(withAllowedCharacters: .urlUserAllowed) ?? self.user
        if let socketDirectory {
            let portPart = port == 5432 ? "" : "&port=\(port)"
            return "postgresql://\(user)@/\(database)?host=\(socketDirectory)\(portPart)"
        }
        return "postgresql://\(user)@\(host ?? ""):\(port)/\(database)"
    }

    private static func loginName() -> String? {
        guard let entry = getpwuid(getuid()), let name = entry.pointee.pw_name else { return nil }
        return String(cString: name)
    }
}
