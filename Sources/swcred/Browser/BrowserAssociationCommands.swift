import ArgumentParser
import Foundation
import SharedWebCredentials

/// `swcred browser list`: the browsers the owner approved.
struct BrowserListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the browsers you approved (name, key fingerprint, http, consent, when).",
        discussion: """
            A browser is approved when you answer its association request in `swcred consent` \
            (started from the KeePassXC-Browser extension's "Connect" button while \
            `swcred serve --browser` runs). Revoke one with `swcred browser revoke NAME`.
            """)

    @Flag(help: "Print JSON.")
    var json = false

    @OptionGroup var vault: VaultOptions

    func run() throws {
        let browsers = try vault.openVault().browsers
        let ungranted = try browsers.ungrantedNames()
        let associations = try browsers.list().map { BrowserAssociationJSON($0, ungranted: ungranted) }
        if json {
            try printJSON(associations)
            return
        }
        if associations.isEmpty {
            TextOutput.line(
                "no browser is associated (start one from the extension while `swcred serve --browser` runs)")
        }
        for association in associations {
            TextOutput.line(
                [
                    association.name, association.fingerprint, association.allowsHTTP ? "http allowed" : "https only",
                    "consent=\(association.consent)", association.createdAt,
                ].joined(separator: "\t") + (association.grantsNothing ? "\t\(ungrantedMark)" : ""))
        }
    }
}

/// `swcred browser revoke NAME`.
struct BrowserRevokeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke",
        abstract: "Revoke a browser's association: its next request gets nothing.",
        discussion: "The browser may ask to be associated again; you answer that in `swcred consent`.")

    @Argument(help: ArgumentHelp("The browser's name, as `swcred browser list` shows it.", valueName: "NAME"))
    var name: String

    @OptionGroup var vault: VaultOptions

    func run() throws {
        guard try vault.openVault().browsers.revoke(id: name) else {
            throw SharedWebCredentialsError(
                .itemNotFound, "no browser is named \"\(name)\"; `swcred browser list` shows the names")
        }
        TextOutput.line("revoked \(name)")
    }
}

/// `swcred browser set NAME [--consent ask|none] [--http allow|refuse]`.
struct BrowserSetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Change what an approved browser may do: http:// pages, and asking you before releases.",
        discussion: """
            --consent ask makes the browser wait for you in `swcred consent` before the first \
            release for each site (you may have the answer remembered for that site until the \
            service stops); --http allow lets http:// pages get the credentials saved for them \
            (port 80, kept apart from the https site's). New associations have --consent none and \
            --http refuse.
            """)

    @Argument(help: ArgumentHelp("The browser's name, as `swcred browser list` shows it.", valueName: "NAME"))
    var name: String

    @Option(
        help: ArgumentHelp(
            "ask: wait for you before the first release for each site; none: do not.", valueName: "ask|none"))
    var consent: String?

    @Option(
        help: ArgumentHelp(
            "allow: http:// pages get their credentials too; refuse: https only.", valueName: "allow|refuse"))
    var http: String?

    @OptionGroup var vault: VaultOptions

    func validate() throws {
        guard consent != nil || http != nil else {
            throw ValidationError("give --consent ask|none or --http allow|refuse (or both)")
        }
        if let consent, ConsentMode(rawValue: consent) == nil {
            throw ValidationError("--consent is ask or none, not \"\(consent)\"")
        }
        if let http, !["allow", "refuse"].contains(http) {
            throw ValidationError("--http is allow or refuse, not \"\(http)\"")
        }
    }

    func run() throws {
        let updated = try vault.openVault().browsers.update(
            id: name, allowsHTTP: http.map { $0 == "allow" }, consent: consent.flatMap(ConsentMode.init(rawValue:)))
        TextOutput.line(
            "\(updated.id): http \(updated.allowsHTTP ? "allowed" : "refused"), consent \(updated.consent.rawValue)")
    }
}

/// A browser as `browser list --json` prints it.
struct BrowserAssociationJSON: Encodable {
    let name: String
    let fingerprint: String
    let allowsHTTP: Bool
    let consent: String
    let createdAt: String
    /// Whether the sealed grant set does not hold the row: it was put back behind swcred's back.
    let grantsNothing: Bool

    init(_ association: BrowserAssociation, ungranted: Set<String>) {
        name = association.id
        fingerprint = association.fingerprint
        allowsHTTP = association.allowsHTTP
        consent = association.consent.rawValue
        createdAt = association.createdAt.formatted(.iso8601)
        grantsNothing = ungranted.contains(association.id)
    }
}
