import ArgumentParser
import Foundation
import SharedWebCredentials

/// `swcred app token ...`: the bearer tokens apps present to `swcred serve`.
struct AppTokenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Create, list and revoke the tokens an app uses with `swcred serve`.",
        subcommands: [AppTokenCreateCommand.self, AppTokenListCommand.self, AppTokenRevokeCommand.self])
}

/// `swcred app token create APPID [--allow LIST] [--expires DURATION] [--consent none|ask]`.
struct AppTokenCreateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Create a token for a registered app and print it once.",
        discussion: """
            The token is printed once on standard output and never stored: the vault keeps only \
            a keyed hash of it. Give it to the app through a file or its environment (the client \
            reads --token-file or SWCRED_TOKEN), never on a command line. Rotating the vault key \
            (`swcred rekey`) revokes every token.

            Example:
              swcred app token create ABCDE12345.com.example.app --allow request,generate --expires 30d
            """)

    @Argument(help: ArgumentHelp("The application identifier.", valueName: "APPID"))
    var app: String

    @Option(
        help: ArgumentHelp(
            "The operations granted, comma-separated, from request, add, delete, generate, passkey-create, passkey-get, metrics (default: the four password operations; passkeys and metrics only when named).",
            valueName: "list"))
    var allow: String = "request,add,delete,generate"

    @Option(help: ArgumentHelp("Expire after this long, such as 12h or 30d (default: never).", valueName: "duration"))
    var expires: String?

    @Option(
        help: ArgumentHelp(
            "none, or ask: changes, releases and passkey operations wait for `swcred consent`. A passkey made or used with either sets WebAuthn's UP flag: ask counts the owner's approval as the person's presence, none the owner's standing consent.",
            valueName: "mode"))
    var consent: String = "none"

    @OptionGroup var vault: VaultOptions

    func run() throws {
        let app = try ApplicationIdentifier(app)
        let permissions = try AppPermission.parseList(allow)
        guard let mode = ConsentMode(rawValue: consent) else {
            throw SharedWebCredentialsError(.invalidInput, "--consent \"\(consent)\" is not a mode: give none or ask")
        }
        let now = Date()
        let expiry = try expires.map { now.addingTimeInterval(try DurationText.seconds($0, option: "--expires")) }
        let issued = try vault.openVault().appTokens.create(
            app: app, permissions: permissions, consent: mode, expiresAt: expiry, now: now)
        var output = StandardOutputBuffer()
        output.append(issued.token.exposedString() + "\n")
        try output.flush()
        Terminal.writeToStandardError(
            "swcred: created token \(issued.record.id) for \(app) (\(AppPermission.listText(permissions))); it is shown only this once\n"
        )
    }
}

/// `swcred app token list APPID`.
struct AppTokenListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List an app's tokens (ids, permissions, expiry; never the tokens).")

    @Argument(help: ArgumentHelp("The application identifier.", valueName: "APPID"))
    var app: String

    @Flag(help: "Print JSON.")
    var json = false

    @OptionGroup var vault: VaultOptions

    func run() throws {
        let app = try ApplicationIdentifier(app)
        let opened = try vault.openVault()
        _ = try opened.apps.require(app)
        let ungranted = try opened.appTokens.ungrantedIDs()
        let tokens = try opened.appTokens.list(app: app).map { AppTokenJSON($0, ungranted: ungranted) }
        if json {
            try printJSON(tokens)
            return
        }
        for token in tokens {
            print(
                [
                    token.id, token.permissions.joined(separator: ","), "consent=\(token.consent)", token.createdAt,
                    token.expiresAt.map { "expires \($0)" } ?? "never expires",
                ].joined(separator: "\t") + (token.grantsNothing ? "\t\(ungrantedMark)" : ""))
        }
    }
}

/// `swcred app token revoke ID`.
struct AppTokenRevokeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke", abstract: "Revoke a token by its id (from `app token list`).")

    @Argument(help: ArgumentHelp("The token's id: 16 hex digits.", valueName: "ID"))
    var id: String

    @OptionGroup var vault: VaultOptions

    func run() throws {
        guard try vault.openVault().appTokens.revoke(id: id) else {
            throw SharedWebCredentialsError(
                .itemNotFound, "no app token has the id \"\(id)\"; `swcred app token list APPID` shows the ids")
        }
        print("revoked \(id)")
    }
}

/// A token as `app token list --json` prints it.
struct AppTokenJSON: Encodable {
    let id: String
    let app: String
    let permissions: [String]
    let consent: String
    let createdAt: String
    let expiresAt: String?
    /// Whether the sealed grant set does not hold the row: it was put back behind swcred's back.
    let grantsNothing: Bool

    init(_ record: AppTokenRecord, ungranted: Set<String>) {
        id = record.id
        app = record.app.description
        permissions = record.permissions.sorted().map(\.rawValue)
        consent = record.consent.rawValue
        createdAt = record.createdAt.formatted(.iso8601)
        expiresAt = record.expiresAt?.formatted(.iso8601)
        grantsNothing = ungranted.contains(record.id)
    }

    enum CodingKeys: String, CodingKey {
        case id, app, permissions, consent
        case createdAt = "created_at"
        case expiresAt = "expires_at"
        case grantsNothing = "grants_nothing"
    }
}
