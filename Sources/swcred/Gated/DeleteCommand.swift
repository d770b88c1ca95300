import ArgumentParser
import SharedWebCredentials

/// `swcred delete`: delete a saved password for an app (SecAddSharedWebCredential with no password).
struct DeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete a saved password, on behalf of an app the site approves.",
        discussion: """
            Deleting a credential that does not exist succeeds and changes nothing. The deletion \
            is confirmed on a terminal; scripts pass --yes (without it, off a terminal, swcred \
            exits 6).

            Example:
              swcred delete --app ABCDE12345.com.example.app --domain example.com --account alice --yes
            """)

    @OptionGroup var credential: CredentialTargetOptions

    @Flag(help: "Answer yes to the confirmation (for scripts).")
    var yes = false

    @OptionGroup var vault: VaultOptions
    @OptionGroup var network: NetworkOptionGroup
    @OptionGroup var service: ServiceOptions

    func run() async throws {
        let target = try credential.target()
        let outcome: CredentialChangeOutcome
        if let client = try service.client(app: credential.app, caFile: network.caFile) {
            outcome = try await ServiceOptions.run(client) { client in
                try await client.delete(domain: target, account: credential.account) { change in
                    try Consent.confirm(change, assumeYes: yes)
                }
            }
        } else {
            outcome = try await GatedSession.run(app: credential.app, vault: vault, network: network) { facade in
                try await facade.delete(domain: target, account: credential.account) { change in
                    try Consent.confirm(change, assumeYes: yes)
                }
            }
        }
        Terminal.writeToStandardError(
            "swcred: \(outcome.rawValue): \"\(Terminal.displayable(credential.account))\" on \(target)\n")
    }
}
