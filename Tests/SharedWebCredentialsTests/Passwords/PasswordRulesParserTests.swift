import Testing

@testable import SharedWebCredentials

@Suite("Password Rules parser")
struct PasswordRulesParserTests {
    /// The canonical form of `text` and its warnings.
    func parse(_ text: String) -> (String, [String]) {
        let parsed = PasswordRulesParser.parse(text)
        return (parsed.rules.description, parsed.warnings)
    }

    @Test(
        "canonical strings",
        arguments: [
            ("required: [*&^ABC]; allowed: upper", "required: [ABC&*^]; allowed: upper, [&*^]"),
            ("", "allowed: ascii-printable"),
            ("minlength: 8; maxlength: 16;", "allowed: ascii-printable; minlength: 8; maxlength: 16"),
            (
                "required: lower, upper; required: digit",
                "required: upper, lower; required: digit; allowed: upper, lower, digit"
            ),
            (
                "required: upper; required: lower; required: digit; required: special",
                "required: upper; required: lower; required: digit; required: special; allowed: ascii-printable"
            ),
            ("allowed: [abcdefghijklmnopqrstuvwxyz]", "allowed: lower"),
            ("allowed: UPPER, Digit", "allowed: upper, digit"),
            ("allowed: unicode; required: digit", "required: digit; allowed: unicode"),
            ("allowed: ascii-printable, [a]", "allowed: ascii-printable"),
            ("allowed: [ab-]", "allowed: [ab]"),
            ("required: [-]]", "required: [-]]; allowed: [-]]"),
            ("allowed: []]", "allowed: []]"),
            ("allowed: [z-a]", "allowed: [az]"),
            ("allowed: [éa\u{7F}b]", "allowed: [ab]"),
            (
                "max-consecutive: 3; max-repeating: 2; max-sequential: 4",
                "allowed: ascii-printable; max-consecutive: 3; max-repeating: 2; max-sequential: 4"
            ),
            (
                "minlength: 8; minlength: 12; maxlength: 30; maxlength: 20; max-consecutive: 4; max-consecutive: 2",
                "allowed: ascii-printable; max-consecutive: 2; minlength: 12; maxlength: 20"
            ),
            ("   required:digit ;  allowed : lower", "allowed: ascii-printable"),
            ("required: digit;;minlength: 10", "required: digit; allowed: digit"),
        ])
    func canonical(input: String, expected: String) {
        #expect(parse(input).0 == expected)
    }

    @Test("the canonical form parses back to the same rules")
    func canonicalRoundTrips() {
        for input in ["required: [-*&^ABC]]; allowed: upper; minlength: 9", "allowed: [-~!#$%&_+=|(){}[:;\"<>,.? ]]"] {
            let first = PasswordRulesParser.parse(input)
            let second = PasswordRulesParser.parse(first.rules.description)
            #expect(second.rules == first.rules)
            #expect(second.warnings.isEmpty)
        }
    }

    @Test("'-' is literal only first and ']' only last, and a misplaced '-' is reported")
    func customClassEdges() {
        let dashLate = PasswordRulesParser.parse("allowed: [a-z]")
        #expect(dashLate.rules.allowed.characters == PasswordCharacterSet("az"))
        #expect(dashLate.warnings.contains { $0.contains("\"-\"") })
        let both = PasswordRulesParser.parse("required: [-ab]]")
        #expect(both.rules.required.first?.characters == PasswordCharacterSet("-ab]"))
        #expect(both.warnings.isEmpty)
        #expect(PasswordRulesParser.parse("allowed: [-]").rules.allowed.characters == PasswordCharacterSet("-"))
    }

    @Test("non-ASCII characters in a class are dropped, as Apple's parser does, with a warning naming each once")
    func nonASCIIDropped() {
        let parsed = PasswordRulesParser.parse("allowed: [-äüö!$§ä]")
        #expect(parsed.rules.description == "allowed: [-!$]")
        #expect(parsed.warnings.count == 1)
        let warning = parsed.warnings.first ?? ""
        for name in [
            "U+00E4 LATIN SMALL LETTER A WITH DIAERESIS", "U+00FC LATIN SMALL LETTER U WITH DIAERESIS",
            "U+00F6 LATIN SMALL LETTER O WITH DIAERESIS", "U+00A7 SECTION SIGN",
        ] {
            #expect(warning.contains(name), "\(warning)")
        }
        #expect(warning.components(separatedBy: "U+00E4").count == 2, "each character named once: \(warning)")
    }

    @Test("a \"]\" that closes a class early is explained: \"]\" goes last, doubled")
    func earlyClosingBracket() {
        let parsed = PasswordRulesParser.parse("required: [ab]c]; allowed: lower")
        #expect(parsed.warnings.contains { $0.contains("ends a character class early") && $0.contains("[abc]]") })
        let fixed = PasswordRulesParser.parse("required: [abc]]; allowed: lower")
        #expect(fixed.warnings.isEmpty)
        #expect(fixed.rules.required.first?.characters == PasswordCharacterSet("abc]"))
    }

    @Test("a \",\" written where \";\" was meant gets that hint")
    func commaForSemicolon() {
        let parsed = PasswordRulesParser.parse("required: digit, allowed: lower")
        #expect(
            parsed.warnings.contains {
                $0.contains("unknown character class \"allowed\"") && $0.contains("separate properties with \";\"")
            }, "\(parsed.warnings)")
        let unknown = PasswordRulesParser.parse("required: digit, letters")
        #expect(unknown.warnings.contains("unknown character class \"letters\""), "\(unknown.warnings)")
    }

    @Test(
        "unknown properties and malformed values fall back to the defaults with a warning",
        arguments: [
            "foo: 3; minlength: 8", "Minlength: 8", "minlength: eight", "required: upperr", "minlength 8",
            "required: upper lower; minlength: 4", "minlength: 8 x; maxlength: 9", "maxlength: 1000001",
        ])
    func fallsBackToDefaults(input: String) {
        let parsed = PasswordRulesParser.parse(input)
        #expect(parsed.rules == .default)
        #expect(parsed.rules.description == "allowed: ascii-printable")
        #expect(!parsed.warnings.isEmpty)
        #expect(parsed.warnings.last?.contains("falling back") == true)
    }

    @Test("0 values and empty values are dropped with a warning; the rest is kept")
    func zeroAndEmptyDropped() {
        let parsed = PasswordRulesParser.parse("minlength: 0; max-consecutive: 0; required: ; maxlength: 12")
        #expect(parsed.rules.description == "allowed: ascii-printable; maxlength: 12")
        #expect(parsed.warnings.count == 3)
    }

    @Test("a stray ';;' keeps what came before it, with a warning")
    func straySemicolons() {
        let parsed = PasswordRulesParser.parse("minlength: 10;; required: digit")
        #expect(parsed.rules.description == "allowed: ascii-printable; minlength: 10")
        #expect(parsed.warnings.count == 1)
    }

    @Test("an unterminated class is dropped and reported; values before it stay")
    func unterminatedClass() {
        let parsed = PasswordRulesParser.parse("required: upper, [abc")
        #expect(parsed.rules.description == "required: upper; allowed: upper")
        #expect(parsed.warnings.contains { $0.contains("closing") })
    }

    @Test("max-consecutive limits both repeated and sequential runs")
    func maxConsecutiveLimitsBoth() {
        let rules = PasswordRulesParser.parse("max-consecutive: 3; max-repeating: 5; max-sequential: 2").rules
        #expect(rules.effectiveMaxRepeating == 3)
        #expect(rules.effectiveMaxSequential == 2)
    }
}
