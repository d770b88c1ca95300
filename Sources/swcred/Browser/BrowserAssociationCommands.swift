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
        let associations = try vault.openVault().browsers.list().map(BrowserAssociationJSON.init)
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
                ].joined(separator: "\t"))
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

/// A browser as `browser list --json` prints it.
struct BrowserAssociationJSON: Encodable {
    let name: String
    let fingerprint: String
    let allowsHTTP: Bool
    let consent: String
    let createdAt: String

    init(_ association: BrowserAssociation) {
        name = association.id
        fingerprint = BrowserAssociation.fingerprint(of: association.identificationKey)
        allowsHTTP = association.allowsHTTP
        consent = association.consent.rawValue
        createdAt = association.createdAt.formatted(.iso8601)
    }
}
