import ArgumentParser
import SharedWebCredentials

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

    @Option(help: ArgumentHelp("The app's identifier: TEAMID.bundle.id.", valueName: "app-id"))
    var app: String

    @Option(help: ArgumentHelp("The site: host or host:port.", valueName: "host"))
    var domain: String

    @Option(help: ArgumentHelp("The account name.", valueName: "name"))
    var account: String

    @Flag(help: "Read the password from standard input.")
    var passwordStdin = false

    @Flag(help: "Generate a strong password for the site and print it once.")
    var generate = false

    @Flag(help: "Answer yes to the confirmation (for scripts).")
    var yes = false

    @OptionGroup var vault: VaultOptions
    @OptionGroup var network: NetworkOptionGroup

    func validate() throws {
        guard passwordStdin != generate else {
            throw ValidationError("Give exactly one of --password-stdin or --generate.")
        }
        guard !account.isEmpty else { throw ValidationError("--account must not be empty.") }
    }

    func run() async throws {
        let target = try GatedSession.domain(domain)
        let password = passwordStdin ? try PasswordInput.readFromStandardInput(account: account, domain: target) : nil
        let (outcome, generated) = try await GatedSession.run(app: app, vault: vault, network: network) {
            facade -> (CredentialChangeOutcome, GeneratedPassword?) in
            var generated: GeneratedPassword?
            let secret: SecureBytes
            if let password {
                secret = password
            } else {
                let fresh = try await facade.generatePassword(for: target)
                generated = fresh
                secret = SecureBytes(utf8: fresh.password)
            }
            let outcome = try await facade.add(domain: target, account: account, password: secret) { change in
                try Consent.confirm(change, assumeYes: yes)
            }
            return (outcome, generated)
        }
        if let generated, outcome != .unchanged {
            var output = StandardOutputBuffer()
            output.append(generated.password + "\n")
            try output.flush()
        }
        Terminal.writeToStandardError(
            "swcred: \(outcome.rawValue): \"\(Terminal.displayable(account))\" on \(target)\n")
    }
}
