import ArgumentParser
import Foundation
import SharedWebCredentials

/// `swcred passkey ...`: an app's passkeys behind the gate (create, get) and the owner's view of
/// them (list, show, remove).
struct PasskeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passkey",
        abstract: "Create and use WebAuthn passkeys for an app, only for relying parties its site approves.",
        discussion: """
            create and get act for an app, like `swcred add` and `swcred request`: the app must be \
            registered, name the RP ID exactly in a webcredentials: entry (no wildcard, no port), \
            and the site must approve it (AASA for Apple apps, Digital Asset Links \
            get_login_creds for Android apps). The RP ID is never an IP address or a public suffix \
            (com, co.uk, github.io). swcred writes clientDataJSON itself with the app's origin \
            (https://RPID, or android:apk-key-hash:... for an Android app).

            Flags: UP when you confirm on the terminal or pass --yes; UV never (user verification \
            "required" is refused with NotAllowedError, exit 6); BE set, BS clear; counter 0; \
            attestation none, AAGUID all zeros.

            list, show and remove are the owner's: no app, no gate; remove is audited.

            Exit codes: 2 invalid options (TypeError, EncodingError, NotSupportedError, \
            InvalidStateError, an IP address or public suffix: SecurityError), 3 no entry for the \
            RP ID, 4 the site does not approve the app, 5 no matching passkey, 6 declined, \
            7 vault locked, 10 the site could not be reached.
            """,
        subcommands: [
            PasskeyCreateCommand.self, PasskeyGetCommand.self, PasskeyListCommand.self, PasskeyShowCommand.self,
            PasskeyRemoveCommand.self,
        ])
}

/// What create and get share: the app, the options file and the confirmation.
struct PasskeyInvocation: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The app's identifier: TEAMID.bundle.id or android:PACKAGE. Through a service (--server) the token names the app, and presence is the service's consent.",
            valueName: "app-id"))
    var app: String?

    @Argument(
        help: ArgumentHelp(
            "A file with the relying party's options JSON, or - (the default) for standard input.",
            valueName: "options-file"))
    var optionsFile: String = "-"

    @Flag(help: "Confirm without asking (for scripts); counts as your presence (UP).")
    var yes = false

    /// The options' bytes.
    func read() throws -> [UInt8] {
        if optionsFile == "-" { return [UInt8](FileHandle.standardInput.readDataToEndOfFile()) }
        guard let data = FileManager.default.contents(atPath: optionsFile) else {
            throw SharedWebCredentialsError(.invalidInput, "cannot read the options file \(optionsFile)")
        }
        return [UInt8](data)
    }

    /// The person's presence: --yes, or yes on the terminal; otherwise declined.
    func presence(_ question: String) throws -> AuthenticatorSignals.Presence {
        if yes { return .ownerConsented }
        guard Consent.canAsk else {
            throw SharedWebCredentialsError(
                .declined, "confirmation required: \(question) needs a terminal to ask on, or --yes; nothing was done")
        }
        guard Consent.ask(Terminal.displayable(question)) else {
            throw SharedWebCredentialsError(.declined, "declined: nothing was done")
        }
        return .ownerConsented
    }
}

/// `swcred passkey create`.
struct PasskeyCreateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract:
            "Create a passkey for an app from PublicKeyCredentialCreationOptionsJSON; print RegistrationResponseJSON.",
        discussion: """
            Example:
              swcred passkey create --app ABCDE12345.com.example.app options.json --yes
            """)

    @OptionGroup var request: PasskeyInvocation
    @OptionGroup var vault: VaultOptions
    @OptionGroup var network: NetworkOptionGroup
    @OptionGroup var service: ServiceOptions

    func run() async throws {
        let options = try request.read()
        if let client = try service.client(app: request.app, caFile: network.caFile) {
            TextOutput.json(try await ServiceOptions.run(client) { try await $0.createPasskey(optionsJSON: options) })
            return
        }
        let response = try await GatedSession.run(app: request.app, vault: vault, network: network) { facade in
            try await facade.createPasskey(optionsJSON: options) {
                try request.presence("Create a passkey for \(request.app ?? "the app")?")
            }
        }
        TextOutput.json(response.jsonBytes())
    }
}

/// `swcred passkey get`.
struct PasskeyGetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract:
            "Sign in with an app's passkey from PublicKeyCredentialRequestOptionsJSON; print AuthenticationResponseJSON.",
        discussion: """
            Without allowCredentials, any passkey of the RP ID answers (the most recent one).

            Example:
              swcred passkey get --app ABCDE12345.com.example.app request.json --yes
            """)

    @OptionGroup var request: PasskeyInvocation
    @OptionGroup var vault: VaultOptions
    @OptionGroup var network: NetworkOptionGroup
    @OptionGroup var service: ServiceOptions

    func run() async throws {
        let options = try request.read()
        if let client = try service.client(app: request.app, caFile: network.caFile) {
            TextOutput.json(try await ServiceOptions.run(client) { try await $0.getPasskey(optionsJSON: options) })
            return
        }
        let response = try await GatedSession.run(app: request.app, vault: vault, network: network) { facade in
            try await facade.getPasskey(optionsJSON: options) {
                try request.presence("Sign in with a passkey for \(request.app ?? "the app")?")
            }
        }
        TextOutput.json(response.jsonBytes())
    }
}
