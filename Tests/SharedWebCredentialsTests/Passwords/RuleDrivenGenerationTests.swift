import Foundation
import Testing

@testable import SharedWebCredentials

@Suite("Generation driven by Password Rules")
struct RuleDrivenGenerationTests {
    func generator(_ text: String) throws -> PasswordGenerator {
        try PasswordGenerator(rules: PasswordRulesParser.parse(text).rules)
    }

    @Test(
        "the style follows Apple's choice",
        arguments: [
            ("", PasswordStyle.strong),
            ("required: upper; required: digit; allowed: lower, [-]; minlength: 8", .strong),
            ("required: special; allowed: upper, lower, digit; minlength: 8", .strong),
            ("required: upper; required: digit; minlength: 8", .classic),
            ("allowed: upper, lower, digit", .strongNoDash),
            ("minlength: 21", .classic),
            ("maxlength: 19", .classic),
            ("required: [!#$%]", .classic),
            ("allowed: lower, digit", .classic),
            ("max-consecutive: 2", .classic),
            ("max-repeating: 2", .strong),
            ("allowed: upper, lower, digit; minlength: 19", .classic),
        ])
    func styleChoice(rules: String, style: PasswordStyle) throws {
        #expect(try generator(rules).style == style)
    }

    @Test("maxlength 15 to 19 without '-' uses the longest length allowed, not 12")
    func fifteenToNineteen() throws {
        for maxLength in 15...19 {
            let rules = "allowed: upper, lower, digit; maxlength: \(maxLength)"
            let password = try generator(rules).next().password
            #expect(password.count == maxLength)
        }
    }

    @Test("classic with '-' allowed and 15 within the limits is xxx-xxx-xxx-xxx")
    func classicDashed() throws {
        let password = try generator("required: [!#$%]; allowed: lower, [-]").next().password
        #expect(password.count == 15)
        #expect(Array(password)[3] == "-")
    }

    @Test("max-consecutive, max-repeating and max-sequential are honoured")
    func runLimits() throws {
        for text in [
            "allowed: [abc]; max-consecutive: 2; minlength: 20", "allowed: digit; max-sequential: 1; max-repeating: 1",
        ] {
            let rules = PasswordRulesParser.parse(text).rules
            let generator = try PasswordGenerator(rules: rules)
            let validator = IndependentRulesValidator(rules)
            for _ in 0..<2_000 {
                let password = generator.next().password
                #expect(validator.violation(password) == nil, "\(text): \(password)")
            }
        }
    }

    @Test(
        "entropy of a rule-driven password is log2 of the accepted passwords, counted by brute force",
        arguments: [
            ("allowed: [ac]; minlength: 4; maxlength: 4; max-repeating: 2", "ac", 4),
            ("allowed: [abc]; minlength: 5; maxlength: 5; max-sequential: 2", "abc", 5),
            ("allowed: [abcx]; required: [x]; minlength: 6; maxlength: 6; max-consecutive: 2", "abcx", 6),
            ("allowed: [0123]; required: [3]; required: [0]; minlength: 5; maxlength: 5; max-sequential: 3", "0123", 5),
            // Required sets merged before counting: duplicates, supersets and the whole alphabet.
            (
                "allowed: [abcx]; required: [x]; required: [x]; required: [ax]; minlength: 6; maxlength: 6; max-repeating: 2",
                "abcx", 6
            ),
            (
                "allowed: [abc1]; required: [abc1]; required: [1]; required: [b1]; minlength: 6; maxlength: 6; max-sequential: 2",
                "abc1", 6
            ),
            (
                "allowed: [ab12]; required: [a]; required: [2]; minlength: 7; maxlength: 7; max-sequential: 2; max-repeating: 1",
                "ab12", 7
            ),
        ])
    func entropyCountsAcceptedOnly(text: String, alphabet: String, length: Int) throws {
        let rules = PasswordRulesParser.parse(text).rules
        let validator = IndependentRulesValidator(rules)
        let characters = Array(alphabet)
        var accepted = 0
        for code in 0..<Int(pow(Double(characters.count), Double(length))) {
            var rest = code
            var password = ""
            for _ in 0..<length {
                password.append(characters[rest % characters.count])
                rest /= characters.count
            }
            if validator.violation(password) == nil { accepted += 1 }
        }
        let generator = try PasswordGenerator(rules: rules)
        #expect(abs(generator.next().entropyBits - log2(Double(accepted))) < 1e-9)
    }

    @Test(
        "impossible rules are an invalid-input error, never a weak password",
        arguments: [
            "minlength: 30; maxlength: 10", "allowed: [ab]; max-consecutive: 1; minlength: 4",
            "required: [a]; required: [b]; required: [c]; maxlength: 2", "minlength: 5000",
        ])
    func impossibleRules(text: String) throws {
        let error = #expect(throws: SharedWebCredentialsError.self) { try generator(text) }
        #expect(error?.code == .invalidInput)
    }
}
