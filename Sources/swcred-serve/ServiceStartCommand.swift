import ArgumentParser
import Foundation
import Logging
import SharedWebCredentials
import SwcredService

/// `swcred-serve` (run as `swcred serve`): the vault service's start-up. Parses the options,
/// unlocks the vault and serves until SIGTERM or SIGINT; `swcred serve` itself only hands over
/// to it (`Sources/swcred/Service/ServeHandoffCommand.swift`).
struct ServiceStartCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "swcred serve",
        abstract: "Hold the unlocked vault and serve apps over HTTP on a Unix socket.",
        discussion: """
            Unlocks the vault once (SWCRED_PASSPHRASE, --passphrase-file, the prompt of \
            `swcred serve`, or --key-file), then serves the API of API/openapi.yaml until SIGTERM \
            or SIGINT. Apps authenticate with tokens from `swcred app token create`; every request \
            passes the same gate as `swcred request/add/delete/generate`.

            The socket is --socket, else $XDG_RUNTIME_DIR/swcred/swcred.sock, else \
            /tmp/swcred-UID/swcred.sock; its directory is made 0700 and the socket 0600. Only \
            peers of the service's own uid are served, unless --allow-uid adds others: each named \
            uid gets a POSIX ACL entry on the directory (search) and the socket (read, write), and \
            may then use the service as an app, with a token; never as the owner. Every directory \
            above the socket's must let that uid through (search permission).

            The owner's routes (lock, unlock, consent) are served on the socket to your own uid \
            only; consent also needs the owner's proof, which `swcred consent` makes from the \
            passphrase or key file. SWCRED_PASSPHRASE is wiped from the service's environment as \
            soon as it is read, and the process is made non-dumpable before anything else.

            On SIGTERM or SIGINT the socket is removed at once, the requests in flight get \
            --shutdown-grace seconds (default 10) to finish, and any still running then (one \
            waiting for the owner's consent, say) are cancelled: the service always exits within \
            that bound, and drops the vault's keys as it goes.

            Exit codes: 0 after a clean shutdown; 7 wrong or missing passphrase or key; 8 no \
            vault; 11 another service already runs on the socket; 2 bad options.
            """)

    @Option(name: .customLong("vault"), help: ArgumentHelp("The vault file.", valueName: "path"))
    var vaultPath: String?

    @Option(
        name: .customLong("store"),
        help: ArgumentHelp(
            "The vault's database instead of a file: postgresql://USER@/DATABASE?host=SOCKETDIR, never with a password (default: $SWCRED_STORE).",
            valueName: "url"))
    var store: String?

    @Option(
        help: ArgumentHelp(
            "Read the PostgreSQL password from this file (else PGPASSFILE or ~/.pgpass).", valueName: "path"))
    var storePasswordFile: String?

    @Option(help: ArgumentHelp("Read the passphrase from this file.", valueName: "path"))
    var passphraseFile: String?

    @Option(help: ArgumentHelp("Unlock with this 32-byte key file.", valueName: "path"))
    var keyFile: String?

    @Option(help: ArgumentHelp("The Unix socket to listen on.", valueName: "path"))
    var socket: String?

    @Option(
        name: .customLong("allow-uid"),
        help: ArgumentHelp("Also serve peers of this uid. Repeatable.", valueName: "uid"))
    var allowedUIDs: [UInt32] = []

    @Option(
        help: ArgumentHelp("Lock the vault after this long without a request (30s, 15m, 2h).", valueName: "duration"))
    var lockAfter: String?

    @Option(
        help: ArgumentHelp(
            "How long a --consent ask token's request waits for `swcred consent` (default 60s).", valueName: "duration")
    )
    var consentTimeout: String = ServiceOptions.defaults.consentTimeout

    @Option(
        help: ArgumentHelp(
            "How often to look for due verdicts to re-check in the background (default 5m).", valueName: "duration"))
    var reverifyEvery: String = ServiceOptions.defaults.reverifyEvery

    @Option(
        help: ArgumentHelp(
            "How long an approval is trusted before its site is asked again (default 5d).", valueName: "duration"))
    var recheckAfter: String = ServiceOptions.defaults.recheckAfter

    @Option(
        help: ArgumentHelp(
            "Also listen on HOST:PORT with TLS (needs --tls-cert and --tls-key).", valueName: "host:port"))
    var listen: String?

    @Option(help: ArgumentHelp("The TLS certificate chain (PEM) for --listen.", valueName: "path"))
    var tlsCert: String?

    @Option(help: ArgumentHelp("The TLS private key (PEM) for --listen.", valueName: "path"))
    var tlsKey: String?

    @Flag(
        help: ArgumentHelp(
            "Serve /metrics on --listen and to --allow-uid peers without an app token (always open to your own uid on the socket)."
        ))
    var metricsWithoutToken = false

    @Flag(
        help: ArgumentHelp(
            "Also serve browsers through the KeePassXC-Browser extension, on KeePassXC's socket.",
            discussion:
                "Set up the browser with `swcred browser install`; approve its association in `swcred consent`. Refused when KeePassXC itself serves that socket."
        ))
    var browser = false

    @Flag(help: "Forbid network access: use cached verdicts only.")
    var offline = false

    @Option(name: .customLong("ca-file"), help: ArgumentHelp("Extra trust roots (PEM).", valueName: "PEM"))
    var caFile: String?

    @Option(
        name: .customLong("connect-to"),
        help: ArgumentHelp(
            "As curl's --connect-to, for verifying sites. Repeatable.", valueName: "HOST:PORT:ADDR:PORT2"))
    var connectTo: [String] = []

    @Option(help: ArgumentHelp("Seconds allowed for one AASA fetch.", valueName: "SECONDS"))
    var timeout: Int = ServiceOptions.defaults.timeout

    @Option(
        help: ArgumentHelp(
            "Seconds a client may take to send a request, from its head to the end of its body; a later one is answered 408 and its connection closed.",
            valueName: "SECONDS"))
    var bodyTimeout: Int = ServiceOptions.defaults.bodyTimeout

    @Option(help: ArgumentHelp("Seconds before an idle connection is closed.", valueName: "SECONDS"))
    var idleTimeout: Int = ServiceOptions.defaults.idleTimeout

    @Option(
        help: ArgumentHelp(
            "Seconds a write waits for another writer before answering 503; on PostgreSQL, a statement's answer may take 5 s more before its connection is given up.",
            valueName: "SECONDS"))
    var busyTimeout: Int = ServiceOptions.defaults.busyTimeout

    @Option(
        help: ArgumentHelp(
            "Seconds the requests in flight get to finish after SIGTERM or SIGINT; those still running then are cancelled.",
            valueName: "SECONDS"))
    var shutdownGrace: Int = ServiceOptions.defaults.shutdownGrace

    @Option(help: ArgumentHelp("Log level: debug, info, notice, warning, error.", valueName: "level"))
    var logLevel: String = "info"

    /// The levels `--log-level` takes: those its help names. `trace` and `critical`, which the
    /// logger also knows, are refused with the same message rather than taken unannounced.
    static let logLevels = ["debug", "info", "notice", "warning", "error"]

    func validate() throws {
        if passphraseFile != nil && keyFile != nil {
            throw ValidationError("Give either --passphrase-file or --key-file, not both.")
        }
        guard Self.logLevels.contains(logLevel) else {
            throw ValidationError("--log-level \"\(logLevel)\" is not one of debug, info, notice, warning, error.")
        }
    }

    /// Unlocks the vault and serves until a shutdown signal; `environmentPassphrase` is
    /// `SWCRED_PASSPHRASE`, already taken out of the environment.
    func serve(environmentPassphrase: SecureBytes?) async throws {
        // The options first: a bad one is named before anything is opened or found missing.
        let environment = ProcessInfo.processInfo.environment
        let userName = getpwuid(getuid()).flatMap { String(validatingCString: $0.pointee.pw_name) } ?? "\(getuid())"
        let configuration = try options.configuration(environment: environment, userName: userName)
        let store = try VaultStore.resolve(store: store, vaultPath: vaultPath, passwordFile: storePasswordFile)
        _ = try Vault.inspect(store: store)
        let vault = try Vault.open(
            store: store, secret: try secret(environmentPassphrase: environmentPassphrase),
            configuration: configuration.vault)
        var logger = Logger(label: "swcred.serve")
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        try await VaultService.run(vault: vault, configuration: configuration, logger: logger)
    }

    private func secret(environmentPassphrase: SecureBytes?) throws -> VaultSecret {
        if let keyFile { return .key(try KeyFile.read(at: keyFile)) }
        if let passphraseFile { return .passphrase(try PassphraseFile.read(at: passphraseFile)) }
        if let environmentPassphrase { return .passphrase(environmentPassphrase) }
        throw SharedWebCredentialsError(
            .vaultLocked,
            "No passphrase: set SWCRED_PASSPHRASE, pass --passphrase-file PATH, run `swcred serve` on a terminal to be prompted, or pass --key-file PATH."
        )
    }

    /// The options that shape the service, as typed.
    var options: ServiceOptions {
        var options = ServiceOptions()
        options.socket = socket
        options.allowedUIDs = allowedUIDs
        options.lockAfter = lockAfter
        options.consentTimeout = consentTimeout
        options.reverifyEvery = reverifyEvery
        options.recheckAfter = recheckAfter
        options.listen = listen
        options.tlsCert = tlsCert
        options.tlsKey = tlsKey
        options.metricsWithoutToken = metricsWithoutToken
        options.browser = browser
        options.offline = offline
        options.caFile = caFile
        options.connectTo = connectTo
        options.timeout = timeout
        options.bodyTimeout = bodyTimeout
        options.idleTimeout = idleTimeout
        options.busyTimeout = busyTimeout
        options.shutdownGrace = shutdownGrace
        return options
    }
}
