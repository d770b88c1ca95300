import ArgumentParser
import Foundation
import SharedWebCredentials

/// `swcred request`: release saved credentials to an app (SecRequestSharedWebCredential).
struct RequestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "request",
        abstract: "Release saved passwords to an app, if the site approves it.",
        discussion: """
            The app must be registered (`swcred app add`), the domain must be in its \
            webcredentials: entitlement, and the site's apple-app-site-association file must list \
            the app (verified over HTTPS when the stored verdict is missing or due). Without \
            --domain, every approved domain of the app is searched.

            On a terminal you pick one credential from a numbered list (or confirm the only one), \
            as Apple's sheet does. Off a terminal, or with --all, every match is printed.

            Output: one line per credential, SERVER[:PORT] TAB ACCOUNT TAB PASSWORD, where a \
            backslash, tab, newline or carriage return in a field is written \\\\, \\t, \\n or \\r and \
            any other control character \\xHH; with --json \
            [{"server": ..., "account": ..., "password": ..., "port": 8443}] (port only when not 443).

            Examples:
              swcred request --app ABCDE12345.com.example.app --domain example.com
              swcred request --app ABCDE12345.com.example.app --account alice@example.com --json
            """)

    @Option(
        help: ArgumentHelp(
            "The app's identifier: TEAMID.bundle.id. Required when opening the vault; through a service the token names the app, and --app, if given, must be the token's.",
            valueName: "app-id"))
    var app: String?

    @Option(help: ArgumentHelp("Only this domain (host or host:port).", valueName: "host"))
    var domain: String?

    @Option(help: ArgumentHelp("Only this account name (exact match).", valueName: "name"))
    var account: String?

    @Flag(help: "Print every match without asking (the default off a terminal).")
    var all = false

    @Flag(
        help: """
            With --domain, also search domains that share its sign-in backend (Apple's \
            shared-credentials.json), if the app is entitled to and approved for them too.
            """)
    var includeShared = false

    @Flag(help: "Print JSON.")
    var json = false

    @OptionGroup var vault: VaultOptions
    @OptionGroup var network: NetworkOptionGroup
    @OptionGroup var service: ServiceOptions

    func validate() throws {
        if includeShared && domain == nil {
            throw ValidationError("--include-shared needs --domain: it adds the domains that share that one's sign-in.")
        }
    }

    func run() async throws {
        let target = try domain.map(GatedSession.domain)
        if let client = try service.client(app: app, caFile: network.caFile) {
            let matches = try await ServiceOptions.run(client) { client in
                try await client.request(domain: target, account: account, includeShared: includeShared)
            }
            try release(matches)
            return
        }
        let matches = try await GatedSession.run(app: app, vault: vault, network: network) { facade in
            try await facade.request(domain: target, account: account, includeShared: includeShared)
        }
        try release(matches)
    }

    /// Lets the person pick on a terminal (unless --all), then prints what is released.
    private func release(_ matches: [some ReleasableCredential]) throws {
        var released = matches
        if !all && Consent.canAsk {
            guard let chosen = Consent.pick(from: matches) else {
                throw SharedWebCredentialsError(.declined, "declined: no password was released")
            }
            released = [chosen]
        }
        var output = StandardOutputBuffer()
        if json {
            output.append(try CredentialOutput.json(released))
        } else {
            CredentialOutput.appendLines(released, to: &output)
        }
        try output.flush()
    }
}
