import ArgumentParser
import Foundation
import SharedWebCredentials
import SharedWebCredentialsTransfer

extension ImportFormat: ExpressibleByArgument {}
extension ConflictPolicy: ExpressibleByArgument {}

/// `swcred import`: fills the vault from another password manager's export.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import passwords from another password manager's export file.",
        discussion: """
            Reads Apple Passwords / Safari, Chrome, Firefox, Bitwarden (CSV, or unencrypted JSON), \
            KeePassXC CSV, 1Password 1PUX and CXF 1.0 files (passkeys too: ES256 and Ed25519 \
            keys; one of another algorithm is skipped and listed). The format is detected from the \
            file's header or structure unless --format names it. URLs become the vault's server \
            and port (IDNs in xn-- form; intranet hosts such as https://wiki kept as they are); \
            http: sites are imported but flagged; rows for what is not a website (android://, \
            ssh://, file://, chrome://, a URL column holding no address) are skipped and listed, \
            since the vault stores credentials by website. A login with a password and no \
            username is kept with an empty account.

            All or nothing: one malformed row (an https: URL with a bad host, a field over the \
            vault's 16 KiB limit, a last row cut short) fails the whole import and changes \
            nothing, unless --skip-invalid skips it (every skipped row is listed with its reason). \
            A row short of optional fields (note, title, TOTP) is read with them empty, with a \
            warning. On a terminal \
            the summary is shown and confirmed; scripts pass --yes (without it, off a terminal, \
            swcred exits 6). --dry-run shows what would happen and writes nothing.

            Delete the export file once imported: it holds every password unencrypted.

            Examples:
              swcred import ~/Downloads/Chrome\\ Passwords.csv --dry-run
              swcred import passwords.csv --format firefox-csv --on-conflict newer --yes
            """)

    @Argument(help: ArgumentHelp("The export file to read.", valueName: "file"))
    var file: String

    @Option(help: ArgumentHelp("The file's format (default: detected).", valueName: "format"))
    var format: ImportFormat?

    @Flag(help: "Show what would be imported, and write nothing.")
    var dryRun = false

    @Option(
        help: ArgumentHelp(
            "For a credential already saved, or given twice in the file: skip (keep the saved one), replace, or newer (replace only when the file's modification time is later).",
            valueName: "policy"))
    var onConflict: ConflictPolicy = .skip

    @Flag(help: "Skip malformed rows (each is reported) instead of failing the import.")
    var skipInvalid = false

    @Flag(help: "Answer yes to the confirmation (for scripts).")
    var yes = false

    @Flag(help: "Print the summary as JSON.")
    var json = false

    @OptionGroup var vault: VaultOptions

    func run() throws {
        guard FileManager.default.isReadableFile(atPath: file) else {
            throw SharedWebCredentialsError(.invalidInput, "cannot read \(file): check the path and its permissions")
        }
        let opened = try vault.openVault()
        let progress = ProgressBar(label: "importing", totalBytes: Self.size(of: file))
        let summary = try CredentialImport(path: file, format: format, policy: onConflict, skipInvalid: skipInvalid)
            .run(into: opened.credentials, progress: progress.update) { summary in
                progress.finish()
                return try confirm(summary, vault: opened.path)
            }
        if json {
            TextOutput.json(try ImportReport.json(summary, dryRun: dryRun))
        } else {
            for line in ImportReport.lines(summary, dryRun: dryRun) { TextOutput.line(line) }
        }
        if !summary.committed && !dryRun {
            throw SharedWebCredentialsError(.declined, "declined: nothing was imported")
        }
    }

    /// Whether to commit: never for a dry run; without asking when nothing changes or with --yes;
    /// otherwise the person at the terminal decides, and off one it is exit 6.
    private func confirm(_ summary: ImportSummary, vault path: String) throws -> Bool {
        if dryRun { return false }
        if !summary.changesVault || yes { return true }
        guard Consent.canAsk else {
            throw SharedWebCredentialsError(
                .declined,
                "confirmation required: importing \(summary.added) new and \(summary.updated) changed credentials\(summary.hasPasskeys ? " and \(summary.passkeysAdded + summary.passkeysReplaced) passkeys" : "") needs a terminal to ask on, or --yes; nothing was changed"
            )
        }
        for line in ImportReport.counts(summary) { Terminal.writeToStandardError(Terminal.displayable(line) + "\n") }
        return Consent.ask("Import into \(Terminal.displayable(path))?")
    }

    private static func size(of path: String) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }
}
