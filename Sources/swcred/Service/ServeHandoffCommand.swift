import ArgumentParser
import Foundation
import SharedWebCredentials

#if canImport(Glibc)
    import Glibc
#endif

/// `swcred serve`: hands over to the vault service, which lives in its own executable
/// (`swcred-serve`, installed beside `swcred`) so that its server dependencies never slow down
/// other commands. The service's start-up is `ServiceStartCommand` in `Sources/swcred-serve`.
///
/// Every argument goes to `swcred-serve` (`swcred serve --help` lists them). When the passphrase
/// must be typed, it is asked here and handed over through a pipe, never argv or the environment.
struct ServeHandoffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the vault service: hold the unlocked vault and serve apps on a Unix socket.",
        helpNames: [])

    @Argument(parsing: .captureForPassthrough, help: "Options of the service; see `swcred serve --help`.")
    var arguments: [String] = []

    func run() throws {
        let executable = Self.serviceExecutable()
        guard access(executable, X_OK) == 0 else {
            throw SharedWebCredentialsError(
                .internalError,
                "swcred serve needs swcred-serve beside swcred (\(executable)); install both with Scripts/install")
        }
        var forwarded = arguments
        if needsPrompt {
            let passphrase = try PassphraseInput.promptWithoutEcho("Vault passphrase: ")
            forwarded += ["--passphrase-file", "/dev/fd/\(try Self.pipe(holding: passphrase))"]
        }
        let argv = (["swcred serve"] + forwarded).map { strdup($0) } + [nil]
        execv(executable, argv)
        throw SharedWebCredentialsError(
            .internalError, "could not run \(executable): \(String(cString: strerror(errno)))")
    }

    /// Whether nothing else gives the passphrase and a terminal can be asked.
    private var needsPrompt: Bool {
        let given = ["--passphrase-file", "--key-file", "--help", "-h"]
        let named = arguments.contains { argument in
            given.contains { argument == $0 || argument.hasPrefix($0 + "=") }
        }
        return !named && getenv("SWCRED_PASSPHRASE") == nil && Terminal.inputIsTerminal
    }

    /// `swcred-serve` in the folder of the running `swcred`.
    static func serviceExecutable() -> String {
        let own =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return ((own as NSString).deletingLastPathComponent as NSString).appendingPathComponent("swcred-serve")
    }

    /// A pipe whose read end (returned, inherited across exec) yields `secret` and then EOF.
    private static func pipe(holding secret: SecureBytes) throws -> Int32 {
        var ends: [Int32] = [0, 0]
        guard Glibc.pipe(&ends) == 0 else {
            throw SharedWebCredentialsError(
                .internalError, "could not make a pipe: \(String(cString: strerror(errno)))")
        }
        let written = secret.withUnsafeBytes { Glibc.write(ends[1], $0.baseAddress, $0.count) }
        close(ends[1])
        guard written == secret.count else {
            throw SharedWebCredentialsError(.internalError, "could not hand the passphrase to swcred-serve")
        }
        return ends[0]
    }
}
