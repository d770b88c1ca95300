import ArgumentParser
import Foundation
import SharedWebCredentials

extension PasswordStyle: ExpressibleByArgument {}

/// `swcred generate`: passwords from the CSPRNG, one per line or as JSON.
struct GenerateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Generate passwords, one per line.",
        discussion: """
            Styles: strong (default, Safari's xxxxxx-xxxxxx-xxxxxx), strong-nodash, classic \
            (xxx-xxx-xxx-xxx from 60 unambiguous characters), legacy (SecCreateSharedWebCredentialPassword). \
            With --rules, the style is chosen to satisfy the Password Rules given, as Safari does. \
            --json prints [{"password": ..., "style": ..., "entropy_bits": ...}].
            """)

    /// The largest --count accepted.
    static let maximumCount = 100_000_000

    @Option(help: "The password style (default: strong).")
    var style: PasswordStyle?

    @Option(help: "Password Rules the passwords must satisfy, e.g. \"minlength: 12; required: digit;\".")
    var rules: String?

    @Option(help: "How many passwords to generate (1 to \(maximumCount)).")
    var count: Int = 1

    @Flag(help: "Print JSON.")
    var json = false

    func validate() throws {
        guard (1...Self.maximumCount).contains(count) else {
            throw ValidationError("--count must be between 1 and \(Self.maximumCount), not \(count).")
        }
        if style != nil && rules != nil {
            throw ValidationError("Give either --style or --rules: the rules choose the style.")
        }
    }

    func run() throws {
        let generator = try makeGenerator()
        var output = StandardOutputBuffer()
        if json {
            try writeJSON(generator, to: &output)
        } else {
            for _ in 0..<count {
                _ = generator.append(to: &output.bytes)
                output.bytes.append(UInt8(ascii: "\n"))
                try output.flushIfFull()
            }
        }
        try output.flush()
    }

    /// The generator for the style or rules given; rules problems are warnings on standard error.
    private func makeGenerator() throws -> PasswordGenerator {
        guard let rules else { return PasswordGenerator(style: style ?? .strong) }
        let parsed = PasswordRulesParser.parse(rules)
        for warning in parsed.warnings { Terminal.printWarning("rules: \(warning)") }
        return try PasswordGenerator(rules: parsed.rules)
    }

    private func writeJSON(_ generator: PasswordGenerator, to output: inout StandardOutputBuffer) throws {
        var entropyText: [Double: String] = [:]
        let styleText = "\"style\": \"\(generator.style.rawValue)\", \"entropy_bits\": "
        var password: [UInt8] = []
        output.append("[\n")
        for index in 0..<count {
            let bits = generator.append(to: &password)
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
