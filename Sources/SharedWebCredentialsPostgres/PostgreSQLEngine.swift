import SharedWebCredentials

/// The PostgreSQL engine for vaults (`--store postgresql://…`), in a module of its own so that
/// programs that never use it do not link PostgresNIO.
public enum PostgreSQLEngine {
    /// Lets every vault API open PostgreSQL store URLs; call it once, before opening a vault.
    public static func register() {
        ExternalEngines.registerPostgreSQL { url, password, busyTimeout in
            try PostgresStorage(url: url, password: password, busyTimeout: busyTimeout)
        }
    }
}
