import Foundation
import SharedWebCredentials

#if canImport(Glibc)
    import Glibc
#endif

/// Hands a command that names a PostgreSQL store to `swcred-postgres`: the same commands, linked
/// with the PostgreSQL engine. `swcred` itself does not link it, because every type linked into an
/// executable costs start-up time on every run, and most runs use the SQLite file
/// (Benchmarks/README.md, Start-up).
public enum PostgreSQLHandOff {
    /// Replaces this process with `swcred-postgres`, given the same arguments, when they or
    /// `SWCRED_STORE` name a PostgreSQL store; returns otherwise. (`serve` is left alone: the
    /// service's own executable has the engine.) Exits with the internal-error status, naming
    /// the path, when `swcred-postgres` is missing.
    public static func runIfNamed() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard arguments.first != "serve",
            namesPostgreSQL(arguments, store: ProcessInfo.processInfo.environment["SWCRED_STORE"])
        else { return }
        let executable = SiblingExecutable.path("swcred-postgres")
        if access(executable, X_OK) == 0 {
            let argv = (["swcred"] + arguments).map { strdup($0) } + [nil]
            execv(executable, argv)
        }
        Terminal.printError(
            "a PostgreSQL store needs swcred-postgres beside swcred (\(executable)): \(String(cString: strerror(errno))); install both with Scripts/install"
        )
        exit(ExitStatus.code(for: .internalError))
    }

    /// Whether an argument (alone or as `--option=value`) or the `SWCRED_STORE` value is a
    /// PostgreSQL URL (`postgresql:` or `postgres:`, as libpq accepts).
    static func namesPostgreSQL(_ arguments: [String], store: String?) -> Bool {
        func isURL(_ text: some StringProtocol) -> Bool {
            let lowered = text.lowercased()
            return lowered.hasPrefix("postgresql:") || lowered.hasPrefix("postgres:")
        }
        let values = arguments.map { argument in
            argument.hasPrefix("--") ? argument.split(separator: "=", maxSplits: 1).last ?? "" : Substring(argument)
        }
        return values.contains(where: isURL) || store.map(isURL) == true
    }
}
