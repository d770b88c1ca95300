import ArgumentParser
import Foundation
import SharedWebCredentials

/// `swcred rules`: the Password Rules language and the sites' published rules.
struct RulesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rules",
        abstract: "Parse Password Rules, or show the rules a site is known to require.",
        subcommands: [RulesParseCommand.self, RulesShowCommand.self])
}

/// `swcred rules parse RULES [--strict]`.
struct RulesParseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parse",
        abstract: "Print the canonical form of Password Rules; problems go to standard error.",
        discussion: """
            Malformed rules fall back to the defaults (allowed: ascii-printable), as browsers do. \
            With --strict, any problem is an error (exit 2) and nothing is printed.
            """)

    @Argument(help: "The rules, e.g. \"required: upper; required: digit; minlength: 12\".")
    var rules: String

    @Flag(help: "Exit with status 2 when the rules have any problem.")
    var strict = false

    @Flag(help: "Print JSON: {\"canonical\": ..., \"warnings\": [...]}.")
    var json = false

    func run() throws {
        let parsed = PasswordRulesParser.parse(rules)
        for warning in parsed.warnings { Terminal.printWarning(warning) }
        if strict && !parsed.warnings.isEmpty {
            throw SharedWebCredentialsError(
                .invalidInput, "The rules have \(parsed.warnings.count) problem(s); see the warnings above.")
        }
        if json {
            try printJSON(["canonical": parsed.rules.description, "warnings": parsed.warnings])
        } else {
            TextOutput.line(parsed.rules.description)
        }
    }
}

/// `swcred rules show HOST`.
struct RulesShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show the password rules known for a host (from apple/password-manager-resources).",
        discussion: "An entry for a parent domain applies too, unless it says exact-domain-match-only.")

    @Argument(help: "The host, e.g. login.example.com.")
    var host: String

    @Flag(help: "Print JSON: {\"host\": ..., \"entry\": ... or null, \"rules\": ..., \"canonical\": ...}.")
    var json = false

    func run() throws {
        let quirk = try PasswordRulesQuirks.quirk(for: host)
        let parsed = PasswordRulesParser.parse(quirk?.rulesText ?? "")
        if json {
            try printJSON([
                "host": host.lowercased(), "entry": quirk.map { $0.domain as Any } ?? NSNull(),
                "rules": quirk.map { $0.rulesText as Any } ?? NSNull(),
                "canonical": parsed.rules.description,
            ])
            return
        }
        guard let quirk else {
            TextOutput.line(
                "no password rules are listed for \(host.lowercased()); the defaults apply: \(parsed.rules)")
            return
        }
        let scope = quirk.exactDomainMatchOnly ? " (exact-domain-match-only)" : ""
        TextOutput.line("entry: \(quirk.domain)\(scope)")
        TextOutput.line("rules: \(quirk.rulesText)")
        TextOutput.line("canonical: \(parsed.rules)")
    }
}

/// Prints a JSON object with sorted keys.
private func printJSON(_ object: [String: Any]) throws {
    let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
    TextOutput.json(data)
}
