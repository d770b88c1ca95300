import ArgumentParser
import SharedWebCredentials

/// `swcred passwd`: changes the vault passphrase.
struct PasswdCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passwd",
        abstract: "Change the vault passphrase (with --rekey, rotate the vault key too).",
        discussion: """
            Re-wraps the vault key under the new passphrase (with a fresh salt); records are not \
            touched. The vault key itself does not change, so the old passphrase still opens any \
            copy of the vault made before, and a saved copy of the old key metadata put back \
            into the current file. After a passphrase leaked, use --rekey: it also draws a new \
            vault key and re-encrypts every record, in the same transaction, revoking every app \
            token and browser association as `swcred rekey` does.

            The current passphrase comes from --passphrase-file, SWCRED_PASSPHRASE or a prompt; \
            the new one from --new-passphrase-file, SWCRED_NEW_PASSPHRASE or a prompt (asked \
            twice). Give --kdf options to change the Argon2id parameters too. If another process \
            changes the passphrase or the key at the same time, one of the two fails (exit 7) \
            and changes nothing.

            \(PassphraseStrengthOptions.modelHelp) The new passphrase is judged with the new --kdf \
            settings, or the vault's current ones.
            """)

    @OptionGroup var vault: VaultOptions
    @OptionGroup var kdf: KDFOptions
    @OptionGroup var strength: PassphraseStrengthOptions

    @Option(help: ArgumentHelp("Read the new passphrase from this file.", valueName: "path"))
    var newPassphraseFile: String?

    @Flag(help: "Also rotate the vault key and re-encrypt every record (after a passphrase leaked).")
    var rekey = false

    func run() throws {
        let opened = try vault.openVault()
        let parameters = kdf.isSpecified ? try kdf.parameters() : nil
        let newPassphrase = try PassphraseInput.read(
            file: newPassphraseFile, environmentVariable: "SWCRED_NEW_PASSPHRASE", fileOption: "--new-passphrase-file",
            prompt: "New vault passphrase: ", confirm: true)
        guard !newPassphrase.isEmpty else {
            throw SharedWebCredentialsError(
                .invalidInput, "The new passphrase is empty: choose a non-empty passphrase.")
        }
        if case .passphrase(let current) = try opened.status().protection {
            try strength.judge(
                newPassphrase, parameters: parameters ?? current, vaultPath: opened.path,
                unchanged: "the passphrase was not changed")
        }
        try opened.changePassphrase(to: newPassphrase, parameters: parameters, rotatingKey: rekey)
        if rekey {
            let count = try opened.credentials.count()
            TextOutput.line(
                "Changed the passphrase and rotated the vault key of \(opened.path); re-encrypted \(count) credentials."
            )
        } else {
            TextOutput.line("Changed the passphrase of \(opened.path)")
        }
    }
}
