import ArgumentParser
import SharedWebCredentials

/// `swcred rekey`: rotates the vault key.
struct RekeyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rekey",
        abstract: "Rotate the vault key, re-encrypting every record.",
        discussion: """
            Draws a new random vault key and re-encrypts every credential and never-save marker \
            in one transaction: if anything fails (a damaged record, exit 9), nothing changes \
            and the old key keeps working. The passphrase or key file stays the same. App tokens \
            are revoked (`swcred app token create` makes new ones).
            """)

    @OptionGroup var vault: VaultOptions

    func run() throws {
        let opened = try vault.openVault()
        let rotation = try opened.rotateKey()
        let count = try opened.credentials.count()
        print("Rotated the vault key of \(opened.path); re-encrypted \(count) credentials.")
        if rotation.revokedAppTokens > 0 {
            print("Revoked \(rotation.revokedAppTokens) app tokens; create new ones with `swcred app token create`.")
        }
    }
}
