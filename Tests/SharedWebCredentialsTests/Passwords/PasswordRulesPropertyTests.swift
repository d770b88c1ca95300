import PropertyBased
import Testing

@testable import SharedWebCredentials

/// Password Rules as properties over generated rule sets: required and allowed classes (named,
/// custom, `unicode`), the run limits and the lengths. The canonical form parses back to the same
/// rules, and every password generated for rules satisfies them, judged by the tests' own
/// validator (``IndependentRulesValidator``).
@Suite("Password Rules over generated rule sets")
struct PasswordRulesPropertyTests {
    private static let named: [PasswordCharacterSet] = [.upper, .lower, .digits, .special]

    /// A class: a named one, a few random printable characters (`-`, `]`, `[` and `^` among them), or
    /// rarely `unicode`.
    private static func characterClass(_ random: inout any SeededRandomNumberGenerator) -> PasswordRules.CharacterClass
    {
        switch Int.random(in: 0..<10, using: &random) {
        case 0..<5: return PasswordRules.CharacterClass(named.randomElement(using: &random)!)
        case 5..<9:
            var set = PasswordCharacterSet()
            for _ in 0..<Int.random(in: 1...6, using: &random) {
                _ = set.insert(Unicode.Scalar(UInt8.random(in: 0x20...0x7E, using: &random)))
            }
            return PasswordRules.CharacterClass(set)
        default: return PasswordRules.CharacterClass(.asciiPrintable, isUnicode: true)
        }
    }

    /// Rules as the parser's merge leaves them: every required class also allowed.
    static let rules = Generator<PasswordRules, Shrink.None<PasswordRules>>(run: { random in
        var rules = PasswordRules()
        rules.required = (0..<Int.random(in: 0...3, using: &random)).map { _ in characterClass(&random) }
        var allowed = characterClass(&random)
        for required in rules.required {
            allowed = PasswordRules.CharacterClass(
                allowed.characters.union(required.characters), isUnicode: allowed.isUnicode || required.isUnicode)
        }
        rules.allowed = allowed
        func limit(_ range: ClosedRange<Int>) -> Int? {
            Bool.random(using: &random) ? nil : Int.random(in: range, using: &random)
        }
        rules.maxConsecutive = limit(1...6)
        rules.maxRepeating = limit(1...6)
        rules.maxSequential = limit(1...6)
        rules.minLength = limit(1...40)
        rules.maxLength = limit(4...64)
        return rules
    })

    @Test("the canonical form of any rules parses back to the same rules, without a warning")
    func canonicalFormRoundTrips() async {
        await propertyCheck(count: 500, input: Self.rules) { rules in
            let parsed = PasswordRulesParser.parse(rules.description)
            #expect(parsed.rules == rules, "\(rules) read back as \(parsed.rules)")
            #expect(parsed.warnings.isEmpty, "\(rules): \(parsed.warnings)")
        }
    }

    @Test("every password generated for rules satisfies them; rules that can be met are met")
    func generatedPasswordsSatisfyRules() async throws {
        var generated = 0
        await propertyCheck(count: 300, input: Self.rules) { rules in
            guard let generator = try? PasswordGenerator(rules: rules) else { return }
            generated += 1
            for _ in 0..<5 {
                let password = generator.next().password
                #expect(ruleViolation(password, rules) == nil, "\(password.debugDescription) for \(rules)")
            }
        }
        // Liveness: a generator that refused every rule set would pass the loop above.
        #expect(generated > 100, "only \(generated) of 300 rule sets could be met")
    }
}
