import ArgumentParser
import SharedWebCredentials

/// The options every vault command shares: where the vault is and what unlocks it.
struct VaultOptions: ParsableArguments {
    @Option(
        name: .customLong("vault"),
        help: ArgumentHelp(
            "The vault file (default: $SWCRED_VAULT, else $XDG_DATA_HOME/swcred/vault.sqlite, else ~/.local/share/swcred/vault.sqlite).",
            valueName: "path"))
    var vaultPath: String?

    @Option(
        help: ArgumentHelp(
            "Read the passphrase from this file (one trailing newline is ignored) instead of $SWCRED_PASSPHRASE or a prompt.",
            valueName: "path"))
    var passphraseFile: String?

    @Option(
        help: ArgumentHelp(
            "Unlock with this 32-byte key file instead of a passphrase (`init` creates it).", valueName: "path"))
    var keyFile: String?

    func validate() throws {
        if passphraseFile != nil, keyFile != nil {
            throw ValidationError("Give either --passphrase-file or --key-file, not both.")
        }
    }

    /// The vault file's path.
    func resolvedPath() throws -> String {
        try VaultLocation.resolve(explicitPath: vaultPath)
    }

    /// What unlocks the vault: the key file if given, else the passphrase.
    func unlockSecret() throws -> VaultSecret {
        if let keyFile { return .key(try KeyFile.read(at: keyFile)) }
        return .passphrase(
            try PassphraseInput.read(
                file: passphraseFile, environmentVariable: "SWCRED_PASSPHRASE", fileOption: "--passphrase-file",
                prompt: "Vault passphrase: ", confirm: false))
    }

    /// Opens and unlocks the vault; its warnings (such as a stored verdict that failed
    /// authentication) go to standard error.
    func openVault() throws -> Vault {
        let path = try resolvedPath()
        try requireVault(at: path)
        let vault = try Vault.open(at: path, secret: unlockSecret())
        vault.setWarningHandler { Terminal.printWarning($0) }
        return vault
    }

    /// Fails with "no vault" before asking for a passphrase that could not be used.
    func requireVault(at path: String) throws {
        _ = try Vault.inspect(at: path)
    }
}
