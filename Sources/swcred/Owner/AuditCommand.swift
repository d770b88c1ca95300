import ArgumentParser
import Foundation
import SharedWebCredentials

/// `swcred audit [list|verify|prune]`: the vault's tamper-evident audit log.
struct AuditCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "List, verify and prune the audit log: who took or changed which credential, and when.",
        discussion: """
            Every operation done for an app (request, add, update, delete, generate, \
            passkey-create, passkey-get; released, done or refused) and every change the owner \
            makes (item set/remove/rename, passkey remove, passwd, rekey, app add/remove, app \
            token create/revoke, never-save, audit prune, store copy) appends one \
            entry, as does what grants or changes access: consent decisions, unlock and lock in \
            `swcred serve`, and a stored verdict that changed (`swcred verify`, the service's \
            re-verifier, or a check an app's request set off). Entries are chained by keyed \
            MACs and the chain's head is sealed, so `swcred audit verify` catches entries that \
            were altered, removed, reordered or cut off the end (exit 9). A running `swcred \
            serve` appends its requests' entries to a chain of its own, so that two instances \
            never wait for each other; `audit` lists every chain's entries together, by time.
            """,
        subcommands: [AuditListCommand.self, AuditVerifyCommand.self, AuditPruneCommand.self],
        defaultSubcommand: AuditListCommand.self)
}

/// `swcred audit [list] [--app APPID] [--since DATE] [--operation OP] [--json]`.
struct AuditListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List audit entries, oldest first (the default subcommand).",
        discussion: """
            Output: one line per entry, #SEQ (CHAIN#SEQ for an entry of a service's own chain, \
            CHAIN the first 8 hex digits of its name) TAB TIME TAB ACTOR TAB OPERATION TAB OUTCOME TAB \
            DOMAIN TAB ACCOUNT, where OUTCOME is done or refused:CODE and a released request adds \
            a TAB and the credentials it released (DOMAIN ACCOUNT, comma-separated). An entry with \
            a detail adds a TAB and the released credentials (- when none) and a TAB and the \
            detail: a token's id and grant (never the token), a verdict's old and new value. With \
            --json [{"chain" (null for the vault's chain), "seq", "time", "actor", "operation", "outcome", "error", "domain", "account", \
            "app", "released": [{"domain", "account"}], "detail"}].
            """)

    @Option(help: ArgumentHelp("Only entries of this app (or `owner`, or `service`).", valueName: "app-id"))
    var app: String?

    @Option(help: ArgumentHelp("Only entries from this time on: YYYY-MM-DD (UTC) or RFC 3339.", valueName: "date"))
    var since: String?

    @Option(
        help: ArgumentHelp(
            "Only this operation: \(AuditOperation.allCases.map(\.rawValue).joined(separator: ", ")).",
            valueName: "op"))
    var operation: String?

    @Flag(help: "Print JSON.")
    var json = false

    @OptionGroup var vault: VaultOptions

    func run() throws {
        let actor = try app.map { name in
            try [AuditActor.owner, .service].first { $0.name == name } ?? .app(try ApplicationIdentifier(name))
        }
        let start = try since.map { try AuditDate.parse($0, option: "--since") }
        let kind = try operation.map { name in
            guard let kind = AuditOperation(rawValue: name) else {
                throw SharedWebCredentialsError(
                    .invalidInput,
                    "unknown operation \"\(Terminal.displayable(name))\" for --operation: use one of \(AuditOperation.allCases.map(\.rawValue).joined(separator: ", "))"
                )
            }
            return kind
        }
        let entries = try vault.openVault().audit.entries(actor: actor, since: start, operation: kind)
        if json {
            TextOutput.json(try OwnerJSON.encode(entries.map(ListedEntry.init)))
            return
        }
        var output = StandardOutputBuffer()
        for entry in entries {
            let event = entry.event
            let outcome = event.outcome.errorCode.map { "refused:\($0.rawValue)" } ?? event.outcome.name
            var fields = [
                entry.chain.map { "\($0.prefix(8))#\(entry.sequence)" } ?? "#\(entry.sequence)",
                entry.date.formatted(.iso8601), event.actor.name, event.operation.rawValue,
                outcome,
                event.domain ?? event.app ?? "-", event.account ?? "-",
            ]
            if !event.released.isEmpty || event.detail != nil {
                fields.append(
                    event.released.isEmpty
                        ? "-" : event.released.map { "\($0.domain) \($0.account)" }.joined(separator: ", "))
            }
            if let detail = event.detail { fields.append(detail) }
            for (index, field) in fields.enumerated() {
                if index > 0 { output.bytes.append(UInt8(ascii: "\t")) }
                DisplayText.appendTabSeparatedField(field.utf8, to: &output.bytes)
            }
            output.bytes.append(UInt8(ascii: "\n"))
            try output.flushIfFull()
        }
        try output.flush()
    }
}

/// One entry in `audit --json`.
private struct ListedEntry: Encodable {
    let chain: String?
    let seq: Int64
    let time: String
    let actor: String
    let operation: String
    let outcome: String
    let error: String?
    let domain: String?
    let account: String?
    let app: String?
    let released: [AuditCredential]
    let detail: String?

    init(_ entry: AuditEntry) {
        chain = entry.chain
        seq = entry.sequence
        time = entry.date.formatted(.iso8601)
        actor = entry.event.actor.name
        operation = entry.event.operation.rawValue
        outcome = entry.event.outcome.name
        error = entry.event.outcome.errorCode?.rawValue
        domain = entry.event.domain
        account = entry.event.account
        app = entry.event.app
        released = entry.event.released
        detail = entry.event.detail
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(chain, forKey: .chain)
        try container.encode(seq, forKey: .seq)
        try container.encode(time, forKey: .time)
        try container.encode(actor, forKey: .actor)
        try container.encode(operation, forKey: .operation)
        try container.encode(outcome, forKey: .outcome)
        try container.encode(error, forKey: .error)
        try container.encode(domain, forKey: .domain)
        try container.encode(account, forKey: .account)
        try container.encode(app, forKey: .app)
        try container.encode(released, forKey: .released)
        try container.encode(detail, forKey: .detail)
    }

    private enum CodingKeys: String, CodingKey {
        case chain, seq, time, actor, operation, outcome, error, domain, account, app, released, detail
    }
}

/// `swcred audit verify`.
struct AuditVerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check the whole audit chain; exit 9 naming the first bad entry when it is broken.")

    @OptionGroup var vault: VaultOptions

    func run() throws {
        let verification = try vault.openVault().audit.verify()
        if let problem = verification.problem {
            throw SharedWebCredentialsError(
                .integrityFailure,
                "the audit log is broken: \(problem). Entries were altered, removed, reordered or cut off outside swcred; restore the vault from a backup to get them back."
            )
        }
        TextOutput.line("audit log intact: \(verification.entriesChecked) entries checked")
    }
}

/// `swcred audit prune --before DATE`.
struct AuditPruneCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prune",
        abstract: "Drop audit entries written before a date; the rest stays verifiable.",
        discussion: """
            Drops the oldest entries up to the first one written at or after DATE, and moves the \
            log's sealed anchor to the last one dropped, so `audit verify` still checks the rest. \
            Refused (exit 9, nothing dropped) when the chain is broken. The prune itself is recorded.
            """)

    @Option(help: ArgumentHelp("Drop entries older than this: YYYY-MM-DD (UTC) or RFC 3339.", valueName: "date"))
    var before: String

    @OptionGroup var vault: VaultOptions

    func run() throws {
        let date = try AuditDate.parse(before, option: "--before")
        let dropped = try vault.openVault().audit.prune(before: date)
        TextOutput.line("dropped \(dropped) audit entries written before \(date.formatted(.iso8601))")
    }
}

/// Dates given to the audit commands.
enum AuditDate {
    /// `YYYY-MM-DD` (midnight UTC) or an RFC 3339 time; `invalidInput` naming the option otherwise.
    static func parse(_ text: String, option: String) throws -> Date {
        if let date = try? Date(text, strategy: .iso8601) { return date }
        let day = Date.ISO8601FormatStyle().year().month().day()
        if let date = try? Date(text, strategy: day) { return date }
        throw SharedWebCredentialsError(
            .invalidInput,
            "\(option) \"\(Terminal.displayable(text))\" is not a date: write YYYY-MM-DD (UTC) or an RFC 3339 time such as 2026-01-31T12:00:00Z"
        )
    }
}
