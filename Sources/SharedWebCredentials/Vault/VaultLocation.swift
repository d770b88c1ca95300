import Foundation

/// Where the vault file lives when no path is given.
public enum VaultLocation {
    /// The environment variable that overrides the default path.
    public static let environmentVariable = "SWCRED_VAULT"

    /// The vault path: `explicitPath` if given, else `SWCRED_VAULT`, else
    /// `$XDG_DATA_HOME/swcred/vault.sqlite`, else `~/.local/share/swcred/vault.sqlite`. An
    /// `XDG_DATA_HOME` that is not an absolute path is ignored, as the XDG specification says; a
    /// `HOME` that is not one is an error.
    /// An explicit but empty path (`--vault ""`, often an unset shell variable) is an error
    /// rather than a silent fall back to another vault.
    public static func resolve(
        explicitPath: String?, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> String {
        if let explicitPath {
            guard !explicitPath.isEmpty else {
                throw SharedWebCredentialsError(.invalidInput, "--vault is empty: give the path of the vault file.")
            }
            return explicitPath
        }
        if let fromEnvironment = environment[environmentVariable], !fromEnvironment.isEmpty {
            return fromEnvironment
        }
        if let dataHome = environment["XDG_DATA_HOME"], dataHome.hasPrefix("/") {
            return dataHome + "/swcred/vault.sqlite"
        }
        guard let home = environment["HOME"], home.hasPrefix("/") else {
            let problem =
                environment["HOME"].map { $0.isEmpty ? "HOME is empty" : "HOME (\($0)) is not an absolute path" }
                ?? "HOME is not set"
            throw SharedWebCredentialsError(
                .invalidInput, "\(problem): pass --vault PATH or set SWCRED_VAULT to choose the vault file.")
        }
        return home + "/.local/share/swcred/vault.sqlite"
    }
}
