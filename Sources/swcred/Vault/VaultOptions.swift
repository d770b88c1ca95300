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
        name: .customLong("store"),
        help: ArgumentHelp(
            "The vault's database instead of a file: postgresql://USER@/DATABASE?host=SOCKETDIR (libpq's URI form; never with a password), or sqlite:PATH (default: $SWCRED_STORE, else the file of --vault).",
            valueName: "url"))
    var store: String?

    @Option(
        help: ArgumentHelp(
            "Read the PostgreSQL password from this file (else the PGPASSFILE or ~/.pgpass entry for the URL).",
            valueName: "path"))
    var storePasswordFile: String?

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

    /// Where the vault is: --store, --vault, SWCRED_STORE, SWCRED_VAULT, or the default file.
    func resolvedStore() throws -> VaultStore {
        try VaultStore.resolve(store: store, vaultPath: vaultPath, passwordFile: storePasswordFile)
    }

    /// What unlocks the vault: the key file if given, else the passphrase.
    func unlockSecret() throws -> VaultSecret {
        try Self.unlockSecret(passphraseFile: passphraseFile, keyFile: keyFile)
    }

    /// What unlocks a vault: the key file if given, else the passphrase from `passphraseFile`,
    /// `SWCRED_PASSPHRASE` or a prompt.
    static func unlockSecret(passphraseFile: String?, keyFile: String?) throws -> VaultSecret {
        if let keyFile { return .key(try KeyFile.read(at: keyFile)) }
        return .passphrase(
            try PassphraseInput.read(
                file: passphraseFile, environmentVariable: "SWCRED_PASSPHRASE", fileOption: "--passphrase-file",
                prompt: "Vault passphrase: ", confirm: false))
    }

    /// Opens and unlocks the vault; its warnings (such as a stored verdict that failed
    /// authentication) go to standard error.
    func openVault() throws -> Vault {
        let store = try resolvedStore()
        try requireVault(in: store)
        let vault = try Vault.open(store: store, secret: unlockSecret())
        vault.setWarningHandler { Terminal.printWarning($0) }
        return vault
    }

    /// Fails with "no vault" before asking for a passphrase that could not be used.
    func requireVault(in store: VaultStore) throws {
        _ = try Vault.inspect(store: store)
    }
}
