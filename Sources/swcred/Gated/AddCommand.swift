import ArgumentParser
import SharedWebCredentials
import SharedWebCredentialsClient

/// `swcred add`: save or update a password for an app (SecAddSharedWebCredential).
struct AddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Save or update a password for a site, on behalf of an app the site approves.",
        discussion: """
            The password never comes from the command line: --password-stdin reads it from \
            standard input (with a no-echo prompt on a terminal), --generate makes a strong one \
            that follows the site's password rules and prints it once on standard output, for \
            the sign-up form.

            Saving the same password again changes nothing. Every real change is confirmed on a \
            terminal; scripts pass --yes (without it, off a terminal, swcred exits 6).

            Examples:
              swcred add --app ABCDE12345.com.example.app --domain example.com --account alice --generate
              printf '%s' "$pw" | swcred add --app ABCDE12345.com.example.app --domain example.com \\
                  --account alice --password-stdin --yes
            """)

    @OptionGroup var credential: CredentialTargetOptions

    @Flag(help: "Read the password from standard input.")
    var passwordStdin = false

    @Flag(help: "Generate a strong password for the site and print it once.")
    var generate = false

    @Flag(help: "Answer yes to the confirmation (for scripts).")
    var yes = false

    @OptionGroup var vault: VaultOptions
    @OptionGroup var network: NetworkOptionGroup
    @OptionGroup var service: ServiceOptions

    func validate() throws {
        guard passwordStdin != generate else {
            throw ValidationError("Give exactly one of --password-stdin or --generate.")
        }
    }

    func run() async throws {
        let target = try credential.target()
        // Before the password is read: without a service, nothing names the app.
        if credential.app == nil && service.namedServer == nil { throw GatedSession.missingApp }
        let password =
            passwordStdin ? try PasswordInput.readFromStandardInput(account: credential.account, domain: target) : nil
        // A generated password stays in locked memory until it is written out (never a String on
        // the direct path; the service's client decodes it from JSON).
        let (outcome, generated) =
            if let client = try service.client(app: credential.app, caFile: network.caFile) {
                try await ServiceOptions.run(client) { client in
                    try await addThroughService(client, target: target, password: password)
                }
            } else {
                try await GatedSession.run(app: credential.app, vault: vault, network: network) {
                    facade -> (CredentialChangeOutcome, SecureBytes?) in
                    var generated: SecureBytes?
                    let secret: SecureBytes
                    if let password {
                        secret = password
                    } else {
                        let fresh = try await facade.passwordGenerator(for: target).nextSecret()
                        generated = fresh
                        secret = fresh
                    }
                    let outcome = try await facade.add(domain: target, account: credential.account, password: secret) {
                        change in
                        try Consent.confirm(change, assumeYes: yes)
                    }
                    return (outcome, generated)
                }
            }
        if let generated, outcome != .unchanged {
            var output = StandardOutputBuffer()
            generated.withUnsafeBytes { output.bytes.append(contentsOf: $0) }
            output.bytes.append(UInt8(ascii: "\n"))
            try output.flush()
        }
        Terminal.writeToStandardError(
            "swcred: \(outcome.rawValue): \"\(Terminal.displayable(credential.account))\" on \(target)\n")
    }

    /// The same steps through the service: it tells what the change would be, and a real one is
    /// confirmed here (with --yes, or on a terminal) before it is made, as on the direct path; the
    /// token's consent mode may make the vault owner confirm it too.
    private func addThroughService(
        _ client: SharedWebCredentialsClient, target: DomainTarget, password: SecureBytes?
    ) async throws -> (CredentialChangeOutcome, SecureBytes?) {
        var generated: SecureBytes?
        let secret: SecureBytes
        if let password {
            secret = password
        } else {
            let fresh = SecureBytes(utf8: try await client.generatePassword(for: target).password)
            generated = fresh
            secret = fresh
        }
        let outcome = try await client.add(domain: target, account: credential.account, password: secret) { change in
            try Consent.confirm(change, assumeYes: yes)
        }
        return (outcome, generated)
    }
}
