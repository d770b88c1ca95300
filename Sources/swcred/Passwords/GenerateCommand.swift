import ArgumentParser
import Foundation
import SharedWebCredentials

extension PasswordStyle: ExpressibleByArgument {}

/// `swcred generate`: passwords from the CSPRNG, one per line or as JSON.
struct GenerateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Generate passwords, one per line.",
        discussion: """
            Styles: strong (default, Safari's xxxxxx-xxxxxx-xxxxxx), strong-nodash, classic \
            (xxx-xxx-xxx-xxx from 60 unambiguous characters), legacy (SecCreateSharedWebCredentialPassword), \
            passphrase (for the vault: --words words, default 6, from the EFF large wordlist, joined by \
            --separator, default "-"; 12.925 bits a word). \
            With --rules, the style is chosen to satisfy the Password Rules given, as Safari does. \
            --json prints [{"password": ..., "style": ..., "entropy_bits": ...}].

            With --app and --domain, the pair must pass the association gate first (the app is \
            registered, the domain is in its webcredentials: entitlement, the site approves it), \
            then the site's password rules from Apple's password-rules.json apply (see \
            `swcred rules show HOST`) unless --rules overrides them. Through a service (--server) \
            the token names the app, so --domain alone will do.

            Examples:
              swcred generate --count 5
              swcred generate --style passphrase --words 7
              swcred generate --rules "minlength: 8; maxlength: 12; required: digit;"
              swcred generate --app ABCDE12345.com.example.app --domain example.com
            """)

    /// The largest --count accepted.
    static let maximumCount = 100_000_000

    @Option(help: "The password style (default: strong).")
    var style: PasswordStyle?

    @Option(help: "Password Rules the passwords must satisfy, e.g. \"minlength: 12; required: digit;\".")
    var rules: String?

    @Option(help: "With --style passphrase: the number of words (4 to 64; default 6).")
    var words: Int?

    @Option(help: "With --style passphrase: the text between words (default \"-\"; no letters).")
    var separator: String?

    @Option(help: "How many passwords to generate (1 to \(maximumCount)).")
    var count: Int = 1

    @Flag(help: "Print JSON.")
    var json = false

    @Option(
        help: ArgumentHelp(
            "Generate for this app (with --domain): gated. Required when opening the vault; through a service the token names the app, and --app, if given, must be the token's.",
            valueName: "app-id"))
    var app: String?

    @Option(
        help: ArgumentHelp(
            "Generate for this site (with --app, or a service's token): its password rules apply.", valueName: "host"))
    var domain: String?

    @OptionGroup var vault: VaultOptions
    @OptionGroup var network: NetworkOptionGroup
    @OptionGroup var service: ServiceOptions

    func validate() throws {
        guard (1...Self.maximumCount).contains(count) else {
            throw ValidationError("--count must be between 1 and \(Self.maximumCount), not \(count).")
        }
        if style != nil && rules != nil {
            throw ValidationError("Give either --style or --rules: the rules choose the style.")
        }
        if (words != nil || separator != nil) && style != .passphrase {
            throw ValidationError("--words and --separator go with --style passphrase.")
        }
        if app != nil && domain == nil {
            throw ValidationError("--app goes with --domain: the gate checks the pair.")
        }
        if domain != nil && style != nil {
            throw ValidationError(
                "With --app and --domain the site's rules choose the style; use --rules to override them.")
        }
    }

    func run() async throws {
        let explicitRules = rules.map { text in
            let parsed = PasswordRulesParser.parse(text)
            for warning in parsed.warnings { Terminal.printWarning("rules: \(warning)") }
            return parsed.rules
        }
        if let domain, let client = try service.client(app: app, caFile: network.caFile) {
            let target = try GatedSession.domain(domain)
            let passwords = try await ServiceOptions.run(client) { client in
                try await client.generatePasswords(domain: target, rules: explicitRules, count: count)
            }
            var remaining = passwords.makeIterator()
            try write(style: passwords.first?.style ?? .strong) { output in
                guard let next = remaining.next() else { return 0 }
                output.append(contentsOf: next.password.utf8)
                return next.entropyBits
            }
            return
        }
        let generator = try await makeGenerator(rules: explicitRules)
        try write(style: generator.style) { generator.append(to: &$0) }
    }

    /// Prints `count` passwords from `next` (which appends one and returns its entropy), one per
    /// line or as JSON.
    private func write(style: PasswordStyle, next: (inout [UInt8]) -> Double) throws {
        var output = StandardOutputBuffer()
        if json {
            try writeJSON(style: style, next: next, to: &output)
        } else {
            for _ in 0..<count {
                _ = next(&output.bytes)
                output.bytes.append(UInt8(ascii: "\n"))
                try output.flushIfFull()
            }
        }
        try output.flush()
    }

    /// The generator for the style or rules given, or for the app and domain after the gate.
    private func makeGenerator(rules explicitRules: PasswordRules?) async throws -> PasswordGenerator {
        if let domain {
            let target = try GatedSession.domain(domain)
            return try await GatedSession.run(app: app, vault: vault, network: network) { facade in
                try await facade.passwordGenerator(for: target, rules: explicitRules)
            }
        }
        if style == .passphrase {
            return PasswordGenerator(
                passphrase: try PassphraseGenerator(
                    wordCount: words ?? PassphraseGenerator.defaultWordCount,
                    separator: separator ?? PassphraseGenerator.defaultSeparator))
        }
        guard let explicitRules else { return PasswordGenerator(style: style ?? .strong) }
        return try PasswordGenerator(rules: explicitRules)
    }

    private func writeJSON(
        style: PasswordStyle, next: (inout [UInt8]) -> Double, to output: inout StandardOutputBuffer
    ) throws {
        var entropyText: [Double: String] = [:]
        let styleText = "\"style\": \"\(style.rawValue)\", \"entropy_bits\": "
        var password: [UInt8] = []
        output.append("[\n")
        for index in 0..<count {
            let bits = next(&password)
            output.append("  {\"password\": \"")
            for byte in password {
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { output.bytes.append(UInt8(ascii: "\\")) }
                output.bytes.append(byte)
            }
            for position in password.indices { password[position] = 0 }
            password.removeAll(keepingCapacity: true)
            let bitsText = entropyText[bits] ?? String(format: "%.2f", bits)
            entropyText[bits] = bitsText
            output.append("\", " + styleText + bitsText + (index == count - 1 ? "}\n" : "},\n"))
            try output.flushIfFull()
        }
        output.append("]\n")
    }
}
