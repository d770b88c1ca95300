import ArgumentParser
import Foundation
import SharedWebCredentials

/// `swcred item set HOST --account NAME (--password-stdin | --generate) [--label TEXT] [--notes-stdin]`.
struct ItemSetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Add a credential or change its password (and label or notes), with no app and no gate.",
        discussion: """
            The password never comes from the command line: --password-stdin reads it from \
            standard input (with a no-echo prompt on a terminal), --generate makes a strong one \
            (following the site's password rules when Apple's quirks list has them) and prints it \
            once on standard output. --notes-stdin reads the notes from standard input; with \
            --password-stdin too, the first line of standard input is the password and the rest \
            the notes. Without --label or --notes-stdin an existing credential keeps its own.

            Every change is confirmed on a terminal; scripts pass --yes (without it, off a \
            terminal, swcred exits 6).

            Example:
              printf '%s' "$pw" | swcred item set example.com --account alice --password-stdin --label Work --yes
            """)

    @OptionGroup var target: ItemTarget

    @Flag(help: "Read the password from standard input.")
    var passwordStdin = false

    @Flag(help: "Generate a strong password for the site and print it once.")
    var generate = false

    @Option(help: ArgumentHelp("A short title for the credential.", valueName: "text"))
    var label: String?

    @Flag(help: "Read the notes from standard input (after the password's line with --password-stdin).")
    var notesStdin = false

    @Flag(help: "Answer yes to the confirmation (for scripts).")
    var yes = false

    @OptionGroup var vault: VaultOptions

    func validate() throws {
        guard passwordStdin != generate else {
            throw ValidationError("Give exactly one of --password-stdin or --generate.")
        }
    }

    func run() throws {
        let server = try target.site()
        let (given, notes) = try readInput(server: server)
        let opened = try vault.openVault()
        let password = try given ?? Self.generatePassword(for: server)
        let existing = try opened.credentials.find(
            server: server.host, port: server.port, scheme: server.scheme, account: target.account
        ).first
        var details: CredentialDetails?
        if label != nil || notes != nil {
            let current = existing?.details ?? .none
            details = CredentialDetails(
                label: label ?? current.label, notes: notes ?? current.notes, otpAuth: current.otpAuth)
        }
        let change = CredentialChange(kind: existing == nil ? .add : .update, site: server, account: target.account)
        let unchanged =
            existing.map { $0.password.isEqual(to: password) && (details == nil || details == $0.details) } ?? false
        if !unchanged {
            guard try Consent.confirm(change, assumeYes: yes) else {
                throw SharedWebCredentialsError(.declined, "declined: nothing was changed")
            }
        }
        let outcome = try opened.items.set(
            server: server.host, port: server.port, scheme: server.scheme, account: target.account,
            password: password, details: details)
        if given == nil, outcome != .unchanged {
            var output = StandardOutputBuffer()
            password.withUnsafeBytes { output.bytes.append(contentsOf: $0) }
            output.bytes.append(UInt8(ascii: "\n"))
            try output.flush()
        }
        Terminal.writeToStandardError(
            "swcred: \(Self.name(of: outcome)): \"\(Terminal.displayable(target.account))\" on \(server.name)\n")
    }

    /// The password (nil with --generate) and the notes (nil without --notes-stdin), read before
    /// the passphrase is asked for.
    private func readInput(server: CredentialSite) throws -> (SecureBytes?, String?) {
        switch (passwordStdin, notesStdin) {
        case (true, true) where !Terminal.inputIsTerminal:
            let all = try PassphraseFile.readStandardInput(what: "password and notes on standard input")
            return all.withUnsafeBytes { bytes in
                guard let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) else {
                    return (SecureBytes(copying: bytes), nil)
                }
                let notes = String(decoding: bytes[(newline + 1)...], as: UTF8.self)
                return (SecureBytes(copying: bytes[..<newline]), notes)
            }
        case (true, let withNotes):
            let password = try PasswordInput.readFromStandardInput(account: target.account, domain: server.name)
            return (password, withNotes ? try Self.readNotes() : nil)
        case (false, let withNotes):
            return (nil, withNotes ? try Self.readNotes() : nil)
        }
    }

    private static func readNotes() throws -> String {
        if Terminal.inputIsTerminal { Terminal.writeToStandardError("Notes (end with Ctrl-D):\n") }
        return String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
    }

    /// A password for `server`: its quirk rules when Apple's list has them, else Safari's strong style.
    private static func generatePassword(for server: CredentialSite) throws -> SecureBytes {
        let generator =
            if let quirk = try PasswordRulesQuirks.quirk(for: server.host) {
                try PasswordGenerator(rules: PasswordRulesParser.parse(quirk.rulesText).rules)
            } else {
                PasswordGenerator(style: .strong)
            }
        return generator.nextSecret()
    }

    private static func name(of outcome: UpsertOutcome) -> String {
        switch outcome {
        case .added: "added"
        case .updated: "updated"
        case .unchanged: "unchanged"
        }
    }
}
