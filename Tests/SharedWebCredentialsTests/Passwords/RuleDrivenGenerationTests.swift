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

    @Test("entropy of a rule-driven password counts only the accepted passwords")
    func entropyCountsAcceptedOnly() throws {
        // 4 characters from [ab] with at most 1 repeated and 1 sequential: abab never ("ab" is a
        // sequence), so nothing passes; with repeats of 2 allowed and sequences of 2: count by hand.
        let rules = PasswordRulesParser.parse("allowed: [ac]; minlength: 4; maxlength: 4; max-repeating: 2").rules
        var accepted = 0
        for code in 0..<16 {
            let password = (0..<4).map { code & (1 << $0) != 0 ? "a" : "c" }.joined()
            if ruleViolation(password, rules) == nil { accepted += 1 }
        }
        let bits = try PasswordGenerator(rules: rules).next().entropyBits
        #expect(abs(bits - log2(Double(accepted))) < 1e-9)
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
