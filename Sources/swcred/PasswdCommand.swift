import ArgumentParser
import SharedWebCredentials

/// `swcred passwd`: changes the vault passphrase.
struct PasswdCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passwd",
        abstract: "Change the vault passphrase.",
        discussion: """
            Re-wraps the vault key under the new passphrase (with a fresh salt); records are not \
            touched and the old passphrase stops working. The current passphrase comes from \
            --passphrase-file, SWCRED_PASSPHRASE or a prompt; the new one from \
            --new-passphrase-file, SWCRED_NEW_PASSPHRASE or a prompt (asked twice). Give --kdf \
            options to change the Argon2id parameters too.

            \(PassphraseStrengthOptions.modelHelp) The new passphrase is judged with the new --kdf \
            settings, or the vault's current ones.
            """)

    @OptionGroup var vault: VaultOptions
    @OptionGroup var kdf: KDFOptions
    @OptionGroup var strength: PassphraseStrengthOptions

    @Option(help: ArgumentHelp("Read the new passphrase from this file.", valueName: "path"))
    var newPassphraseFile: String?

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
        try opened.changePassphrase(to: newPassphrase, parameters: parameters)
        TextOutput.line("Changed the passphrase of \(opened.path)")
    }
}
