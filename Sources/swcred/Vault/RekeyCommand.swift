import ArgumentParser
import SharedWebCredentials

/// `swcred rekey`: rotates the vault key.
struct RekeyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rekey",
        abstract: "Rotate the vault key, re-encrypting every record.",
        discussion: """
            Draws a new random vault key and re-encrypts every credential and never-save marker \
            (and re-authenticates every app and verdict) in one transaction, after checking the \
            records against their commitment: if anything fails (a damaged or rolled-back \
            record, exit 9), nothing changes and the old key keeps working. The passphrase or \
            key file stays the same; after a passphrase leaked, run `swcred passwd --rekey`, \
            which changes both at once. App tokens \
            are revoked (`swcred app token create` makes new ones), and so are browser \
            associations (each browser associates again with Connect).
            """)

    @OptionGroup var vault: VaultOptions

    func run() throws {
        let opened = try vault.openVault()
        let rotation = try opened.rotateKey()
        let count = try opened.credentials.count()
        TextOutput.line("Rotated the vault key of \(opened.path); re-encrypted \(count) credentials.")
        if rotation.revokedAppTokens > 0 {
            TextOutput.line(
                "Revoked \(rotation.revokedAppTokens) app tokens; create new ones with `swcred app token create`.")
        }
        if rotation.revokedBrowsers > 0 {
            TextOutput.line(
                "Revoked \(rotation.revokedBrowsers) browser associations; press Connect in each browser's extension to associate it again."
            )
        }
    }
}
