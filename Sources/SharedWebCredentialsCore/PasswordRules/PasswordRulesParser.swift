/// The result of parsing a Password Rules string: the merged rules and every problem found.
public struct ParsedPasswordRules: Sendable, Equatable {
    /// The rules to use. The default rules when the input could not be understood.
    public var rules: PasswordRules
    /// Problems found, in plain language; empty when the input was well formed.
    public var warnings: [String]
}

/// A parser for the Password Rules language that follows Apple's reference parser
/// (`tools/PasswordRulesParser.js` in apple/password-manager-resources), extended with
/// `max-repeating` and `max-sequential`.
///
/// It never throws and never prints; every problem is returned as a warning. As in Apple's parser, an
/// unknown property, or a malformed value after which parsing cannot resume at `;`, makes the whole
/// string fall back to the default rules; a property that is empty, zero or malformed at the very end
/// is dropped; a stray character where a property should start (`;;`) ends parsing, keeping what came
/// before. Non-ASCII and non-printable characters inside a custom class are dropped, as Apple's
/// parser does (many published rules contain them), with a warning that names them. Departures: numbers above
/// ``maximumValue`` are malformed, and a `required` or `allowed` with no characters left is dropped.
public enum PasswordRulesParser {
    /// The largest number accepted as a property value.
    public static let maximumValue = 100_000

    /// Parses and merges `text`.
    public static func parse(_ text: String) -> ParsedPasswordRules {
        var scanner = Scanner(Array(text.unicodeScalars))
        let properties = scanner.parseProperties()
        guard let properties else {
            scanner.warnings.append("falling back to the default rules (allowed: ascii-printable)")
            return ParsedPasswordRules(rules: .default, warnings: scanner.warnings)
        }
        return ParsedPasswordRules(rules: merge(properties), warnings: scanner.warnings)
    }

    /// Merges parsed properties as Apple does: every required class also becomes allowed, the largest
    /// minlength and the smallest maxlength and max-* win, and no allowed or required means all
    /// printable ASCII.
    static func merge(_ properties: [Property]) -> PasswordRules {
        var rules = PasswordRules(allowed: PasswordRules.CharacterClass(PasswordCharacterSet()))
        var anyAllowed = false
        for property in properties {
            switch property {
            case .required(let characterClass):
                rules.required.append(characterClass)
                rules.allowed = union(rules.allowed, characterClass)
                anyAllowed = true
            case .allowed(let characterClass):
                rules.allowed = union(rules.allowed, characterClass)
                anyAllowed = true
            case .number(let name, let value):
                switch name {
                case .maxConsecutive: rules.maxConsecutive = min(rules.maxConsecutive ?? value, value)
                case .maxRepeating: rules.maxRepeating = min(rules.maxRepeating ?? value, value)
                case .maxSequential: rules.maxSequential = min(rules.maxSequential ?? value, value)
                case .minLength: rules.minLength = max(rules.minLength ?? value, value)
                case .maxLength: rules.maxLength = min(rules.maxLength ?? value, value)
                case .required, .allowed: preconditionFailure("classes are not numbers")
                }
            }
        }
        if !anyAllowed { rules.allowed = PasswordRules.CharacterClass(.asciiPrintable) }
        return rules
    }

    private static func union(
        _ first: PasswordRules.CharacterClass, _ second: PasswordRules.CharacterClass
    ) -> PasswordRules.CharacterClass {
        PasswordRules.CharacterClass(
            first.characters.union(second.characters), isUnicode: first.isUnicode || second.isUnicode)
    }

    /// A property name of the language; names are case-sensitive.
    enum Name: String, CaseIterable {
        case required, allowed
        case maxConsecutive = "max-consecutive"
        case maxRepeating = "max-repeating"
        case maxSequential = "max-sequential"
        case minLength = "minlength"
        case maxLength = "maxlength"
    }

    /// One parsed property, before merging.
    enum Property {
        case required(PasswordRules.CharacterClass)
        case allowed(PasswordRules.CharacterClass)
        case number(Name, Int)
    }
}
