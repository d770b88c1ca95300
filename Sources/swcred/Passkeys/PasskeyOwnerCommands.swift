import ArgumentParser
import Foundation
import SharedWebCredentials

/// `swcred passkey list`.
struct PasskeyListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List passkeys: RP ID, user name, credential ID and creation date; never a private key.",
        discussion: """
            Output: one line per passkey, RPID TAB USER-NAME TAB CREDENTIAL-ID TAB CREATED; with \
            --json, the fields of `swcred passkey show --json`.

            Example:
              swcred passkey list --rp-id example.com
            """)

    @Option(help: ArgumentHelp("Only this relying party.", valueName: "rp-id"))
    var rpID: String?

    @Flag(help: "Print JSON.")
    var json = false

    @OptionGroup var vault: VaultOptions

    func run() throws {
        let store = try vault.openVault().passkeys
        let passkeys = try rpID.map { try store.forRelyingParty($0) } ?? store.all()
        if json {
            TextOutput.json(try PasskeyJSON.encode(passkeys))
            return
        }
        for passkey in passkeys {
            TextOutput.line(
                [
                    passkey.rpID, Terminal.displayable(passkey.userName), passkey.credentialID,
                    passkey.created.formatted(.iso8601),
                ].joined(separator: "\t"))
        }
    }
}

/// `swcred passkey show`.
struct PasskeyShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show one passkey, with its public key; never its private key.",
        discussion: """
            Exit 5 when no passkey has this credential ID.

            Example:
              swcred passkey show AAECAwQFBgcICQoLDA0ODw --json
            """)

    @Argument(
        help: ArgumentHelp(
            "The credential ID, base64url, as `swcred passkey list` prints it (one that starts with - goes after --).",
            valueName: "credential-id"))
    var credentialID: String

    @Flag(help: "Print JSON.")
    var json = false

    @OptionGroup var vault: VaultOptions

    func run() throws {
        guard let passkey = try vault.openVault().passkeys.find(credentialID: credentialID) else {
            throw SharedWebCredentialsError(.itemNotFound, "no passkey has the credential ID \(credentialID)")
        }
        if json {
            TextOutput.json(try PasskeyJSON.encode(passkey))
            return
        }
        TextOutput.line("RP ID:         \(passkey.rpID)")
        TextOutput.line(
            "user:          \(Terminal.displayable(passkey.userName)) (\(Terminal.displayable(passkey.userDisplayName)))"
        )
        TextOutput.line("user handle:   \(passkey.userHandle)")
        TextOutput.line("credential ID: \(passkey.credentialID)")
        TextOutput.line("algorithm:     \(passkey.algorithm)")
        TextOutput.line("public key:    \(passkey.publicKey)")
        TextOutput.line("created:       \(passkey.created.formatted(.iso8601))")
    }
}

/// `swcred passkey remove`.
struct PasskeyRemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Remove a passkey (recorded in the audit log as passkey-remove).",
        discussion: """
            The relying party still holds the public key: remove the passkey from the site's \
            account settings too. Exit 5 when no passkey has this credential ID.

            Example:
              swcred passkey remove AAECAwQFBgcICQoLDA0ODw
            """)

    @Argument(
        help: ArgumentHelp(
            "The credential ID, base64url (one that starts with - goes after --).", valueName: "credential-id"))
    var credentialID: String

    @OptionGroup var vault: VaultOptions

    func run() throws {
        guard try vault.openVault().passkeys.remove(credentialID: credentialID) else {
            throw SharedWebCredentialsError(.itemNotFound, "no passkey has the credential ID \(credentialID)")
        }
        TextOutput.line("removed passkey \(credentialID)")
    }
}

/// The JSON of the owner's passkey commands.
enum PasskeyJSON {
    struct Entry: Encodable {
        let rpId, userName, userDisplayName, userHandle, credentialId, algorithm, publicKey, created: String
        init(_ summary: PasskeySummary) {
            rpId = summary.rpID
            userName = summary.userName
            userDisplayName = summary.userDisplayName
            userHandle = summary.userHandle
            credentialId = summary.credentialID
            algorithm = summary.algorithm
            publicKey = summary.publicKey
            created = summary.created.formatted(.iso8601)
        }
    }

    static func encode(_ summaries: [PasskeySummary]) throws -> [UInt8] {
        try encoded(summaries.map(Entry.init))
    }

    static func encode(_ summary: PasskeySummary) throws -> [UInt8] {
        try encoded(Entry(summary))
    }

    private static func encoded(_ value: some Encodable) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return [UInt8](try encoder.encode(value))
    }
}
