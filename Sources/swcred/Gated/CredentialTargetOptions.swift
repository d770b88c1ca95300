import ArgumentParser
import SharedWebCredentials

/// The credential a change is about: which app acts, on which site, for which account.
struct CredentialTargetOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The app's identifier: TEAMID.bundle.id. Required when opening the vault; through a service the token names the app, and --app, if given, must be the token's.",
            valueName: "app-id"))
    var app: String?

    @Option(help: ArgumentHelp("The site: host or host:port.", valueName: "host"))
    var domain: String

    @Option(help: ArgumentHelp("The account name.", valueName: "name"))
    var account: String

    func validate() throws {
        guard !account.isEmpty else { throw ValidationError("--account must not be empty.") }
    }

    /// The parsed `--domain`.
    func target() throws -> DomainTarget {
        try GatedSession.domain(domain)
    }
}
