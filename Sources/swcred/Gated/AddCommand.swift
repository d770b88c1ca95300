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

    @OptionGroup var credential: CredentialTargetOptions

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
    }

    func run() async throws {
        let target = try credential.target()
        let password =
            passwordStdin ? try PasswordInput.readFromStandardInput(account: credential.account, domain: target) : nil
        // A generated password stays in locked memory until it is written out (never a String).
        let (outcome, generated) = try await GatedSession.run(app: credential.app, vault: vault, network: network) {
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
        if let generated, outcome != .unchanged {
            var output = StandardOutputBuffer()
            generated.withUnsafeBytes { output.bytes.append(contentsOf: $0) }
            output.bytes.append(UInt8(ascii: "\n"))
            try output.flush()
        }
        Terminal.writeToStandardError(
            "swcred: \(outcome.rawValue): \"\(Terminal.displayable(credential.account))\" on \(target)\n")
    }
}
