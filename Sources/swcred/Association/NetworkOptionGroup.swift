import ArgumentParser
import SharedWebCredentials

/// The options every command that may fetch AASA files shares (DESIGN.md, "CLI contract").
struct NetworkOptionGroup: ParsableArguments {
    @Flag(help: "Forbid network access: use cached verdicts only.")
    var offline = false

    @Option(
        name: .customLong("ca-file"),
        help: ArgumentHelp("Extra trust roots (PEM) besides the system store.", valueName: "PEM"))
    var caFile: String?

    @Option(
        name: .customLong("connect-to"),
        help: ArgumentHelp(
            "Send requests for HOST:PORT to ADDR:PORT2, keeping HOST for SNI, certificate checks and the Host header (as curl). Repeatable.",
            valueName: "HOST:PORT:ADDR:PORT2"))
    var connectTo: [String] = []

    @Option(help: ArgumentHelp("Seconds allowed for one fetch, connecting included.", valueName: "SECONDS"))
    var timeout: Int = 30

    /// The library's network options; throws `invalidInput` for a bad rule or timeout.
    func networkOptions() throws -> NetworkOptions {
        guard (1...600).contains(timeout) else {
            throw SharedWebCredentialsError(.invalidInput, "--timeout must be between 1 and 600 seconds")
        }
        return NetworkOptions(
            offline: offline, caFile: caFile, connectTo: try connectTo.map(ConnectToRule.init),
            connectTimeout: .seconds(min(timeout, 10)), totalTimeout: .seconds(timeout))
    }
}
