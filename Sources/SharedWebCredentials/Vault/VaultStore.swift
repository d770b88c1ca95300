import Foundation

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

extension VaultStore {
    /// The environment variable that chooses the store when no option does.
    public static let environmentVariable = "SWCRED_STORE"

    /// The store a command names: `--store` (a `postgresql://` URL, or `sqlite:PATH`), else
    /// `--vault PATH`, else `SWCRED_STORE`, else the SQLite file ``VaultLocation`` resolves
    /// (`SWCRED_VAULT` or the default path). Options beat the environment; `--store` and
    /// `--vault` together are refused. A PostgreSQL store's password comes from `passwordFile`
    /// or the password file libpq would read (``PostgresPassword``), never from the URL.
    public static func resolve(
        store: String?, vaultPath: String?, passwordFile: String?,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> VaultStore {
        if store != nil, vaultPath != nil {
            throw SharedWebCredentialsError(
                .invalidInput, "Give either --store or --vault, not both: --store names any store, --vault a file.")
        }
        let named: String?
        if let store {
            guard !store.isEmpty else {
                throw SharedWebCredentialsError(
                    .invalidInput, "--store is empty: give a postgresql:// URL or sqlite:PATH.")
            }
            named = store
        } else if vaultPath == nil, let fromEnvironment = environment[environmentVariable], !fromEnvironment.isEmpty {
            named = fromEnvironment
        } else {
            named = nil
        }
        guard let named else {
            if passwordFile != nil {
                throw SharedWebCredentialsError(
                    .invalidInput, "--store-password-file applies to a postgresql:// store, not to a vault file.")
            }
            return .file(try VaultLocation.resolve(explicitPath: vaultPath, environment: environment))
        }
        if named.hasPrefix("sqlite:") {
            let path = String(named.dropFirst("sqlite:".count))
            guard !path.isEmpty, passwordFile == nil else {
                throw SharedWebCredentialsError(
                    .invalidInput, "sqlite:PATH needs a path, and takes no --store-password-file.")
            }
            return .file(path)
        }
        guard PostgresStoreURL.isStoreURL(named) else {
            throw SharedWebCredentialsError(
                .invalidInput,
                "The store is neither a postgresql:// URL nor sqlite:PATH (a plain file goes with --vault)."
            )
        }
        let url = try PostgresStoreURL(parsing: named, environment: environment)
        return .postgresql(
            url, password: try PostgresPassword.resolve(for: url, passwordFile: passwordFile, environment: environment))
    }
}
