/// A set of password rules, as written in the `passwordrules` attribute and in
/// `password-rules.json` (SPEC.md §5), after parsing and merging.
///
/// Its ``description`` is the canonical form, which parses back to equal rules.
public struct PasswordRules: Sendable, Hashable, CustomStringConvertible {
    /// One value of `required` or `allowed`: printable ASCII characters, or `unicode`.
    public struct CharacterClass: Sendable, Hashable {
        /// The printable ASCII characters of the class.
        public var characters: PasswordCharacterSet
        /// Whether the class is `unicode` (any character). Generators treat it as printable ASCII.
        public var isUnicode: Bool

        /// Creates a class from ASCII characters, or the `unicode` class.
        public init(_ characters: PasswordCharacterSet, isUnicode: Bool = false) {
            self.characters = isUnicode ? .asciiPrintable : characters
            self.isUnicode = isUnicode
        }
    }

    /// Each `required` property, in input order: a password must hold at least one character of each.
    public var required: [CharacterClass]
    /// The characters a password may hold: the `allowed` values and every required class.
    public var allowed: CharacterClass
    /// `max-consecutive`: limits both runs of one character and ascending or descending sequences.
    public var maxConsecutive: Int?
    /// `max-repeating`: the longest run of one character repeated.
    public var maxRepeating: Int?
    /// `max-sequential`: the longest ascending or descending run (`abc`, `321`) within letters of one
    /// case or within digits.
    public var maxSequential: Int?
    /// `minlength`.
    public var minLength: Int?
    /// `maxlength`.
    public var maxLength: Int?

    /// Creates rules from already merged values.
    public init(
        required: [CharacterClass] = [], allowed: CharacterClass = CharacterClass(.asciiPrintable),
        maxConsecutive: Int? = nil, maxRepeating: Int? = nil, maxSequential: Int? = nil,
        minLength: Int? = nil, maxLength: Int? = nil
    ) {
        self.required = required
        self.allowed = allowed
        self.maxConsecutive = maxConsecutive
        self.maxRepeating = maxRepeating
        self.maxSequential = maxSequential
        self.minLength = minLength
        self.maxLength = maxLength
    }

    /// The rules that apply when none are given: any printable ASCII character.
    public static let `default` = PasswordRules()

    /// The longest permitted run of one repeated character, if limited.
    public var effectiveMaxRepeating: Int? { minimum(maxRepeating, maxConsecutive) }
    /// The longest permitted ascending or descending run, if limited.
    public var effectiveMaxSequential: Int? { minimum(maxSequential, maxConsecutive) }

    /// The canonical form: `required` (input order), `allowed`, `max-consecutive`, `max-repeating`,
    /// `max-sequential`, `minlength`, `maxlength`, joined by `; `.
    public var description: String {
        var properties = required.map { "required: " + Self.canonical($0) }
        properties.append("allowed: " + Self.canonical(allowed))
        let numbers: [(String, Int?)] = [
            ("max-consecutive", maxConsecutive), ("max-repeating", maxRepeating),
            ("max-sequential", maxSequential), ("minlength", minLength), ("maxlength", maxLength),
        ]
        for (name, value) in numbers {
            if let value { properties.append("\(name): \(value)") }
        }
        return properties.joined(separator: "; ")
    }

    /// A class in canonical form: full named classes by name, the other characters as one custom
    /// class (upper, lower, digits, then the rest in ASCII order, `-` first and `]` last).
    static func canonical(_ characterClass: CharacterClass) -> String {
        if characterClass.isUnicode { return "unicode" }
        let set = characterClass.characters
        if set == .asciiPrintable { return "ascii-printable" }
        var names: [String] = []
        var leftover: [UInt8] = []
        let named: [(String, PasswordCharacterSet)] = [
            ("upper", .upper), ("lower", .lower), ("digit", .digits), ("special", .special),
        ]
        for (name, namedSet) in named {
            if namedSet.isSubset(of: set) {
                names.append(name)
            } else {
                leftover += namedSet.intersection(set).codes
            }
        }
        if !leftover.isEmpty {
            let dash = UInt8(ascii: "-")
            let bracket = UInt8(ascii: "]")
            let middle = leftover.filter { $0 != dash && $0 != bracket }
            let ordered =
                (leftover.contains(dash) ? [dash] : []) + middle + (leftover.contains(bracket) ? [bracket] : [])
            names.append("[" + String(decoding: ordered, as: UTF8.self) + "]")
        }
        return names.joined(separator: ", ")
    }

    private func minimum(_ first: Int?, _ second: Int?) -> Int? {
        switch (first, second) {
        case (let first?, let second?): Swift.min(first, second)
        case (let first?, nil): first
        case (nil, let second): second
        }
    }
}
