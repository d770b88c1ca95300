import ArgumentParser
import Foundation
import SharedWebCredentials

/// `swcred item show HOST --account NAME`.
struct ItemShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show one saved credential, its password included.",
        discussion: """
            On a terminal the password is shown only with --reveal (someone may be looking); \
            piped or redirected, it is always printed. Exits 5 when there is no such credential.

            Output: one field per line (server, account, password, label, notes, otpauth, created, \
            modified; the server with http:// before it for an http credential); with --json \
            {"scheme", "server", "port", "account", "password", "label", "notes", "otpauth", \
            "created", "modified"} (scheme "https" or "http"; port only when not the scheme's \
            default, 443 or 80; password null when hidden).
            """)

    @OptionGroup var target: ItemTarget

    @Flag(help: "Show the password on a terminal too.")
    var reveal = false

    @Flag(help: "Print JSON.")
    var json = false

    @OptionGroup var vault: VaultOptions

    func run() throws {
        let server = try target.site()
        let store = try vault.openVault().credentials
        guard
            let credential = try store.find(
                server: server.host, port: server.port, scheme: server.scheme, account: target.account
            ).first
        else {
            throw SharedWebCredentialsError(
                .itemNotFound,
                "no credential for \"\(Terminal.displayable(target.account))\" on \(server.name); list them with `swcred item list --domain \(server.name)`"
            )
        }
        let showPassword = reveal || !Terminal.outputIsTerminal
        if json {
            TextOutput.json(try OwnerJSON.encode(ShownCredential(credential, showingPassword: showPassword)))
            return
        }
        var output = StandardOutputBuffer()
        func line(_ name: String, _ value: String?) {
            output.append("\(name):".padding(toLength: 10, withPad: " ", startingAt: 0))
            output.append(DisplayText.escaped(value ?? "-") + "\n")
        }
        line("server", credential.site.name)
        line("account", credential.account)
        if showPassword {
            output.append("password: ")
            credential.password.withUnsafeBytes { DisplayText.appendTabSeparatedField($0, to: &output.bytes) }
            output.append("\n")
        } else {
            line("password", "(hidden on a terminal; --reveal shows it)")
        }
        line("label", credential.details.label)
        line("notes", credential.details.notes)
        line("otpauth", credential.details.otpAuth)
        line("created", credential.created.formatted(.iso8601))
        line("modified", credential.modified.formatted(.iso8601))
        try output.flush()
    }
}

/// `item show --json`.
private struct ShownCredential: Encodable {
    let scheme: String
    let server: String
    let port: Int?
    let account: String
    let password: String?
    let label: String?
    let notes: String?
    let otpauth: String?
    let created: String
    let modified: String

    init(_ credential: Credential, showingPassword: Bool) {
        scheme = credential.scheme.rawValue
        server = credential.server
        port = credential.port
        account = credential.account
        password = showingPassword ? credential.password.exposedString() : nil
        label = credential.details.label
        notes = credential.details.notes
        otpauth = credential.details.otpAuth
        created = credential.created.formatted(.iso8601)
        modified = credential.modified.formatted(.iso8601)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(scheme, forKey: .scheme)
        try container.encode(server, forKey: .server)
        try container.encodeIfPresent(port, forKey: .port)
        try container.encode(account, forKey: .account)
        try container.encode(password, forKey: .password)
        try container.encode(label, forKey: .label)
        try container.encode(notes, forKey: .notes)
        try container.encode(otpauth, forKey: .otpauth)
        try container.encode(created, forKey: .created)
        try container.encode(modified, forKey: .modified)
    }

    private enum CodingKeys: String, CodingKey {
        case scheme, server, port, account, password, label, notes, otpauth, created, modified
    }
}
