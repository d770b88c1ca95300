/// Which database holds a vault: one SQLite file (the default), or a PostgreSQL database.
public enum VaultStore: Sendable {
    /// The SQLite file at this path.
    case file(String)
    /// The PostgreSQL database of this URL, with the password from a file, if the server asks
    /// for one (``PostgresPassword``).
    case postgresql(PostgresStoreURL, password: String?)

    /// The file's path, or the URL without its password: for messages.
    public var location: String {
        switch self {
        case .file(let path): path
        case .postgresql(let url, _): url.description
        }
    }
}
