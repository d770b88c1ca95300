import ArgumentParser
import Foundation
import SharedWebCredentials
import SharedWebCredentialsTransfer

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension ExportFormat: ExpressibleByArgument {}

/// `swcred export`: every credential, unencrypted, in an open format.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export every password to an unencrypted file another password manager can import.",
        discussion: """
            Writes a new file with mode 0600 and never overwrites one. `--output -` writes to \
            standard output, but only when that is not a terminal. The file is NOT encrypted: \
            swcred warns, names what the format cannot carry, and asks on a terminal; scripts \
            pass --yes (without it, off a terminal, swcred exits 6).

            apple-csv and bitwarden-json and cxf carry labels, notes and one-time-password URIs; \
            chrome-csv loses the URIs; only the JSON formats keep the created and modified times; \
            only cxf carries passkeys (their private keys, as PKCS#8), which `swcred import` \
            reads back.

            Examples:
              swcred export --format apple-csv --output ~/passwords.csv
              swcred export --format bitwarden-json --output - --yes | other-tool import
            """)

    @Option(help: ArgumentHelp("The file format.", valueName: "format"))
    var format: ExportFormat

    @Option(help: ArgumentHelp("The new file to write, or - for standard output (not a terminal).", valueName: "file"))
    var output: String

    @Flag(help: "Answer yes to the confirmation (for scripts).")
    var yes = false

    @OptionGroup var vault: VaultOptions

    func run() throws {
        let toStandardOutput = output == "-"
        if toStandardOutput, isatty(STDOUT_FILENO) == 1 {
            throw SharedWebCredentialsError(
                .invalidInput,
                "--output - would print every password on the terminal: redirect standard output, or give a file")
        }
        if !toStandardOutput, FileManager.default.fileExists(atPath: output) {
            throw CredentialExport.existingFile(output)
        }
        let opened = try vault.openVault()
        let count = try opened.credentials.count()
        let passkeys = try opened.passkeys.count()
        let destination = toStandardOutput ? "standard output" : output
        Terminal.printWarning("the export is not encrypted: anyone who can read \(destination) can read every password")
        if !format.lostFields.isEmpty {
            Terminal.printWarning(
                "\(format.rawValue) cannot carry \(format.lostFields.joined(separator: " or ")): they are left out")
        }
        if passkeys > 0, !format.carriesPasskeys {
            Terminal.printWarning(
                "\(format.rawValue) cannot carry passkeys: the vault's \(Self.passkeys(passkeys)) are left out (export with --format cxf to keep them)"
            )
        }
        try confirm(
            what: format.carriesPasskeys && passkeys > 0
                ? "\(count) passwords and \(Self.passkeys(passkeys))" : "\(count) passwords",
            destination: destination)
        let exporter = CredentialExport(format: format)
        let written: CredentialExport.Counts
        if toStandardOutput {
            written = try exporter.write(opened, to: STDOUT_FILENO)
        } else {
            let descriptor = try CredentialExport.createFile(at: output)
            do {
                written = try exporter.write(opened, to: descriptor)
                guard fsync(descriptor) == 0, close(descriptor) == 0 else {
                    throw SharedWebCredentialsError(
                        .storageFailure, "the export to \(output) could not be saved to disk")
                }
            } catch {
                close(descriptor)
                unlink(output)
                throw error
            }
        }
        let passkeysWritten = written.passkeys > 0 ? " and \(Self.passkeys(written.passkeys))" : ""
        Terminal.writeToStandardError(
            "swcred: exported \(written.credentials) credentials\(passkeysWritten) to \(Terminal.displayable(destination))\n"
        )
    }

    private static func passkeys(_ count: Int) -> String { count == 1 ? "1 passkey" : "\(count) passkeys" }

    private func confirm(what: String, destination: String) throws {
        if yes { return }
        guard Consent.canAsk else {
            throw SharedWebCredentialsError(
                .declined,
                "confirmation required: exporting \(what) unencrypted needs a terminal to ask on, or --yes; nothing was written"
            )
        }
        guard Consent.ask("Write \(what) unencrypted to \(Terminal.displayable(destination))?") else {
            throw SharedWebCredentialsError(.declined, "declined: nothing was written")
        }
    }
}
