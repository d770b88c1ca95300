import ArgumentParser
import SharedWebCredentials

/// `swcred item remove HOST --account NAME [--yes]`.
struct ItemRemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Remove a saved credential, with no app and no gate.",
        discussion: """
            Confirmed on a terminal; scripts pass --yes (without it, off a terminal, swcred exits \
            6). Exits 5 when there is no such credential.
            """)

    @OptionGroup var target: ItemTarget

    @Flag(help: "Answer yes to the confirmation (for scripts).")
    var yes = false

    @OptionGroup var vault: VaultOptions

    func run() throws {
        let server = try target.site()
        let opened = try vault.openVault()
        guard
            try !opened.credentials.find(
                server: server.host, port: server.port, scheme: server.scheme, account: target.account
            ).isEmpty
        else { throw ItemErrors.notFound(account: target.account, server: server) }
        guard
            try Consent.confirm(
                CredentialChange(kind: .delete, site: server, account: target.account), assumeYes: yes)
        else { throw SharedWebCredentialsError(.declined, "declined: nothing was changed") }
        guard
            try opened.items.remove(
                server: server.host, port: server.port, scheme: server.scheme, account: target.account)
        else { throw ItemErrors.notFound(account: target.account, server: server) }
        Terminal.writeToStandardError(
            "swcred: removed: \"\(Terminal.displayable(target.account))\" on \(server.name)\n")
    }
}

/// `swcred item rename HOST --account OLD --to NEW`.
struct ItemRenameCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rename",
        abstract: "Change a credential's account name, keeping its password, label, notes and dates.",
        discussion: """
            Exits 5 when there is no such credential, and 2 when the server already has a \
            credential for the new name.
            """)

    @OptionGroup var target: ItemTarget

    @Option(help: ArgumentHelp("The new account name.", valueName: "name"))
    var to: String

    @OptionGroup var vault: VaultOptions

    func run() throws {
        let server = try target.site()
        let opened = try vault.openVault()
        do {
            try opened.items.rename(
                server: server.host, port: server.port, scheme: server.scheme, account: target.account, to: to)
        } catch let error as SharedWebCredentialsError where error.code == .itemNotFound {
            throw ItemErrors.notFound(account: target.account, server: server)
        }
        Terminal.writeToStandardError(
            "swcred: renamed: \"\(Terminal.displayable(target.account))\" to \"\(Terminal.displayable(to))\" on \(server.name)\n"
        )
    }
}

/// The errors the item commands share.
enum ItemErrors {
    /// No credential for `account` on `server` (exit 5).
    static func notFound(account: String, server: CredentialSite) -> SharedWebCredentialsError {
        SharedWebCredentialsError(
            .itemNotFound,
            "no credential for \"\(Terminal.displayable(account))\" on \(server.name); nothing was changed (list them with `swcred item list --domain \(server.name)`)"
        )
    }
}
