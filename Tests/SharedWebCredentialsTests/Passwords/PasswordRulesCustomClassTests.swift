import Testing

@testable import SharedWebCredentials

/// A custom class `[...]` of the Password Rules language holds any printable ASCII character,
/// space through `~`, with `-` literal only first and `]` only last. A class that silently lost a
/// character would shrink what `required` and `allowed` mean without any warning.
@Suite("Password Rules: every printable ASCII character works in a custom class")
struct PasswordRulesCustomClassTests {
    static let printable = Array(UInt8(0x20)...UInt8(0x7E))

    /// The class holding just `code`: `[c]`, or `[]]` for `]`.
    static func alone(_ code: UInt8) -> String {
        code == UInt8(ascii: "]") ? "[]]" : "[" + String(UnicodeScalar(code)) + "]"
    }

    @Test("each character alone is the whole class, for required and allowed, without warnings", arguments: printable)
    func characterAlone(_ code: UInt8) {
        let expected = PasswordRules.CharacterClass(PasswordCharacterSet(String(UnicodeScalar(code))))
        #expect(expected.characters.count == 1)
        let parsed = PasswordRulesParser.parse("required: \(Self.alone(code)); allowed: \(Self.alone(code))")
        #expect(parsed.rules.required == [expected])
        #expect(parsed.rules.allowed == expected)
        #expect(parsed.warnings.isEmpty)
    }

    @Test("each character other than - and ] also works between others", arguments: printable)
    func characterAmongOthers(_ code: UInt8) {
        guard code != UInt8(ascii: "-") && code != UInt8(ascii: "]") else { return }
        let character = String(UnicodeScalar(code))
        let parsed = PasswordRulesParser.parse("allowed: [a\(character)B]")
        #expect(parsed.rules.allowed.characters == PasswordCharacterSet("aB" + character))
        #expect(parsed.warnings.isEmpty)
    }

    @Test("one class listing all 95 characters, - first and ] last, is ascii-printable")
    func allCharactersInOneClass() {
        let middle = Self.printable.filter { $0 != UInt8(ascii: "-") && $0 != UInt8(ascii: "]") }
        let everything = "[-" + String(decoding: middle, as: UTF8.self) + "]]"
        let parsed = PasswordRulesParser.parse("required: \(everything); allowed: \(everything)")
        #expect(parsed.rules.required.map(\.characters) == [.asciiPrintable])
        #expect(parsed.rules.allowed.characters == .asciiPrintable)
        #expect(parsed.warnings.isEmpty)
        #expect(PasswordRulesParser.parse(parsed.rules.description).rules == parsed.rules)
    }

    @Test("a class of only the last printable character is required in every generated password")
    func lastCharacterIsRequired() throws {
        let rules = PasswordRulesParser.parse("required: [~]; required: lower; minlength: 12; maxlength: 12").rules
        #expect(rules.required.first?.characters == PasswordCharacterSet("~"))
        let generator = try PasswordGenerator(rules: rules)
        for _ in 0..<50 {
            let password = generator.next().password
            #expect(password.contains("~"), "\(password) lacks the required ~")
            #expect(password.allSatisfy { $0 == "~" || $0.isLowercase })
        }
    }
}
