import ArgumentParser
import Foundation
import SharedWebCredentials

/// `swcred item ...`: the owner's view and edits of the vault, with no app and no gate.
struct ItemCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "item",
        abstract: "List, show, set, remove and rename saved credentials as the vault's owner (no app, no gate).",
        discussion: """
            The passphrase or key file is the owner's authority: these commands need no app and \
            no site approval. Every change is recorded in the audit log (`swcred audit`).
            """,
        subcommands: [
            ItemListCommand.self, ItemShowCommand.self, ItemSetCommand.self, ItemRemoveCommand.self,
            ItemRenameCommand.self,
        ])
}

/// The HOST argument and --account option of the item commands that name one credential.
struct ItemTarget: ParsableArguments {
    @Argument(
        help: ArgumentHelp(
            "The server: host or host:port for https, http://host[:port] for http.", valueName: "host"))
    var host: String

    @Option(help: ArgumentHelp("The account name (exact).", valueName: "name"))
    var account: String

    /// The parsed site.
    func site() throws -> CredentialSite {
        try Self.site(host)
    }

    /// Parses a site as the owner types it: `host[:port]` (https) or `http://host[:port]`.
    static func site(_ text: String) throws -> CredentialSite {
        try CredentialSite(text, allowDeveloperHosts: true, allowSingleLabel: true)
    }
}

/// `swcred item list`.
struct ItemListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List saved credentials: server, account, label and dates, never passwords.",
        discussion: """
            --domain lists one server (host or host:port, or http://host[:port] for http) through \
            its blind index. --search keeps credentials whose server or account contains TEXT \
            (ignoring case); it decrypts every record in the vault to do so, since servers and \
            accounts are stored only sealed.

            Output: SERVER[:PORT] TAB ACCOUNT TAB LABEL TAB MODIFIED (RFC 3339), SERVER with \
            http:// before it for an http credential; with --json [{"scheme", "server", "port", \
            "account", "label", "created", "modified"}] (scheme "https" or "http"; port only when \
            not the scheme's default, 443 or 80; label null when none).
            """)

    @Option(help: ArgumentHelp("Only this server: host or host:port, http://host[:port] for http.", valueName: "host"))
    var domain: String?

    @Option(
        help: ArgumentHelp("Only servers or accounts containing this text (reads every record).", valueName: "text"))
    var search: String?

    @Flag(help: "Print JSON.")
    var json = false

    @OptionGroup var vault: VaultOptions

    func run() throws {
        let site = try domain.map(ItemTarget.site)
        let store = try vault.openVault().credentials
        var credentials =
            if let site {
                try store.find(server: site.host, port: site.port, scheme: site.scheme)
            } else {
                try store.all()
            }
        if let search, !search.isEmpty {
            credentials = credentials.filter {
                $0.server.localizedCaseInsensitiveContains(search)
                    || $0.account.localizedCaseInsensitiveContains(search)
            }
        }
        if json {
            TextOutput.json(try OwnerJSON.encode(credentials.map(ListedCredential.init)))
            return
        }
        var output = StandardOutputBuffer()
        for credential in credentials {
            for (index, field) in [
                credential.site.name, credential.account, credential.label ?? "",
                credential.modified.formatted(.iso8601),
            ].enumerated() {
                if index > 0 { output.bytes.append(UInt8(ascii: "\t")) }
                DisplayText.appendTabSeparatedField(field.utf8, to: &output.bytes)
            }
            output.bytes.append(UInt8(ascii: "\n"))
        }
        try output.flush()
    }
}

/// One credential in `item list --json`.
private struct ListedCredential: Encodable {
    let scheme: String
    let server: String
    let port: Int?
    let account: String
    let label: String?
    let created: String
    let modified: String

    init(_ credential: Credential) {
        scheme = credential.scheme.rawValue
        server = credential.server
        port = credential.port
        account = credential.account
        label = credential.label
        created = credential.created.formatted(.iso8601)
        modified = credential.modified.formatted(.iso8601)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(scheme, forKey: .scheme)
        try container.encode(server, forKey: .server)
        try container.encodeIfPresent(port, forKey: .port)
        try container.encode(account, forKey: .account)
        try container.encode(label, forKey: .label)
        try container.encode(created, forKey: .created)
        try container.encode(modified, forKey: .modified)
    }

    private enum CodingKeys: String, CodingKey {
        case scheme, server, port, account, label, created, modified
    }
}

/// JSON as the owner commands print it: sorted keys, slashes unescaped.
enum OwnerJSON {
    static func encode(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value)
    }
}
