import ArgumentParser
import Foundation
import SharedWebCredentials

/// `swcred store copy`: moves a vault between storage engines.
struct StoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Move a vault between a SQLite file and a PostgreSQL database.",
        subcommands: [StoreCopyCommand.self])
}

/// `swcred store copy --from STORE --to STORE`.
struct StoreCopyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy",
        abstract: "Copy a vault to an empty store, all or nothing, and check the copy.",
        discussion: """
            Copies every credential, passkey, never-save marker, app, verdict, app token and \
            audit entry byte for byte (the encryption is the same on both engines), in one \
            transaction of each store. The source must pass `swcred status --verify` first. The \
            copy is then unlocked and checked as `status --verify` checks a vault, and every \
            token's MAC and count too; if anything fails, the destination is left as it was \
            (a new file removed, rows written to a database deleted) and swcred exits 9.

            The destination must be empty: a SQLite file that does not exist yet, or a \
            PostgreSQL database without vault rows (exit 8 otherwise). The source is not \
            changed, except for a `store-copy` audit entry naming the destination; the copy's \
            log ends with one naming the source. Both stay usable: once the copy serves, stop \
            using the source and remove it (its tokens and key open the copy too).

            Examples:
              swcred store copy --from sqlite:$HOME/.local/share/swcred/vault.sqlite \\
                  --to 'postgresql://swcred@/swcred?host=/run/postgresql'
              swcred store copy --from 'postgresql://swcred@db.example/swcred' \\
                  --from-password-file ~/.swcred-db-password --to sqlite:/srv/swcred/vault.sqlite
            """)

    @Option(
        help: ArgumentHelp(
            "The vault to copy: sqlite:PATH or postgresql://USER@/DATABASE?host=SOCKETDIR.", valueName: "store"))
    var from: String

    @Option(
        help: ArgumentHelp(
            "Where to copy it: sqlite:PATH (a new file) or an empty PostgreSQL database.", valueName: "store"))
    var to: String

    @Option(help: ArgumentHelp("The PostgreSQL password of --from (else PGPASSFILE or ~/.pgpass).", valueName: "path"))
    var fromPasswordFile: String?

    @Option(help: ArgumentHelp("The PostgreSQL password of --to (else PGPASSFILE or ~/.pgpass).", valueName: "path"))
    var toPasswordFile: String?

    @Option(
        help: ArgumentHelp(
            "Read the passphrase from this file instead of $SWCRED_PASSPHRASE or a prompt.", valueName: "path"))
    var passphraseFile: String?

    @Option(help: ArgumentHelp("Unlock with this 32-byte key file instead of a passphrase.", valueName: "path"))
    var keyFile: String?

    @Flag(help: "Print JSON: {\"from\", \"to\", \"rows\": {TABLE: COUNT}, \"checked\": {...}}.")
    var json = false

    func validate() throws {
        if passphraseFile != nil, keyFile != nil {
            throw ValidationError("Give either --passphrase-file or --key-file, not both.")
        }
    }

    func run() throws {
        let source = try VaultStore.resolve(store: from, vaultPath: nil, passwordFile: fromPasswordFile)
        let destination = try VaultStore.resolve(store: to, vaultPath: nil, passwordFile: toPasswordFile)
        // Before the passphrase is asked for: one store twice, no vault to copy, a file in the way.
        guard source.location != destination.location else {
            throw SharedWebCredentialsError(
                .invalidInput, "--from and --to name the same store (\(source.location)): give another --to.")
        }
        _ = try Vault.inspect(store: source)
        if case .file(let path) = destination, FileManager.default.fileExists(atPath: path) {
            throw SharedWebCredentialsError(
                .vaultExists, "\(path) already exists; nothing was copied. Copy to a new file or an empty database.")
        }
        let secret = try VaultOptions.unlockSecret(passphraseFile: passphraseFile, keyFile: keyFile)
        let report = try Vault.copy(from: source, to: destination, secret: secret) { rows in
            if !json { Terminal.writeToStandardError("copied \(rows.table): \(rows.count) row(s)\n") }
        }
        if json {
            TextOutput.json(try jsonText(report, source: source, destination: destination).utf8)
            return
        }
        let checked = report.destination
        TextOutput.line("Copied \(source.location) to \(destination.location), and checked the copy:")
        TextOutput.line("  credentials:   \(checked.credentialsChecked) decrypted")
        TextOutput.line("  passkeys:      \(checked.passkeysChecked) decrypted")
        TextOutput.line("  app tokens:    \(report.tokensChecked) MAC-checked")
        TextOutput.line("  audit entries: \(report.auditEntriesChecked) verified (the last is this copy)")
        TextOutput.line("  apps, verdicts, never-save markers and the record commitment: intact")
        TextOutput.line("Point swcred at the copy with --store or SWCRED_STORE; the source is unchanged.")
    }

    private func jsonText(_ report: VaultCopyReport, source: VaultStore, destination: VaultStore) throws -> String {
        let object: [String: Any] = [
            "from": source.location, "to": destination.location,
            "rows": Dictionary(uniqueKeysWithValues: report.rows.map { ($0.table, $0.count) }),
            "checked": [
                "credentials": report.destination.credentialsChecked, "passkeys": report.destination.passkeysChecked,
                "tokens": report.tokensChecked, "audit_entries": report.auditEntriesChecked,
            ],
        ]
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }
}
