import ArgumentParser
import SharedWebCredentials

/// `swcred init`: creates a vault.
struct InitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Create a new, empty vault.",
        discussion: """
            The vault key is random and stored only wrapped: under Argon2id of your passphrase, or \
            under a new random 32-byte key file when --key-file PATH is given (the file is created \
            with mode 0600; keep it as safe as the passphrase). An existing vault or key file is \
            never overwritten (exit 8).

            The passphrase comes from --passphrase-file, SWCRED_PASSPHRASE, or a prompt on a \
            terminal (asked twice).

            With --store postgresql://USER@/DATABASE?host=SOCKETDIR the vault is made in that \
            PostgreSQL database, which must be empty (or hold only an interrupted init's tables).

            \(PassphraseStrengthOptions.modelHelp)
            """)

    @OptionGroup var vault: VaultOptions
    @OptionGroup var kdf: KDFOptions
    @OptionGroup var strength: PassphraseStrengthOptions

    func run() throws {
        let store = try vault.resolvedStore()
        let path = store.location
        let protection: VaultProtection
        if let keyFile = vault.keyFile {
            guard !kdf.isSpecified else {
                throw ValidationError("--kdf options apply to passphrases; a key-file vault uses no KDF.")
            }
            guard !strength.allowWeakPassphrase else {
                throw ValidationError("--allow-weak-passphrase applies to passphrases; a key file is not judged.")
            }
            protection = .newKeyFile(path: keyFile)
        } else {
            let parameters = try kdf.parameters()
            let passphrase = try PassphraseInput.read(
                file: vault.passphraseFile, environmentVariable: "SWCRED_PASSPHRASE", fileOption: "--passphrase-file",
                prompt: "New vault passphrase: ", confirm: true)
            guard !passphrase.isEmpty else {
                throw SharedWebCredentialsError(
                    .invalidInput, "The passphrase is empty: choose a non-empty passphrase.")
            }
            try strength.judge(passphrase, parameters: parameters, vaultPath: path, unchanged: "no vault was created")
            protection = .passphrase(passphrase, parameters)
        }
        _ = try Vault.create(in: store, protection: protection)
        TextOutput.line("Created vault \(path)")
    }
}
