extension PasswordRulesParser {
    /// The recursive-descent part of the parser, mirroring the functions of Apple's
    /// `PasswordRulesParser.js`. Methods return `nil` for a malformed construct, after recording why and
    /// leaving the position where Apple's parser leaves it, which decides whether parsing resumes.
    struct Scanner {
        private let input: [Unicode.Scalar]
        private var position = 0
        /// Problems found so far.
        var warnings: [String] = []

        init(_ input: [Unicode.Scalar]) {
            self.input = input
        }

        private var atEnd: Bool { position >= input.count }
        private var current: Unicode.Scalar { input[position] }
        private var rest: String { String(String.UnicodeScalarView(input[position...])) }

        /// All properties; `nil` when the whole string must fall back to the default rules.
        ///
        /// As in Apple's parser, a property that cannot be read is dropped, and the string falls back
        /// to the defaults only when parsing cannot resume at a `;` (or the end) after it.
        mutating func parseProperties() -> [Property]? {
            var properties: [Property] = []
            skipWhitespace()
            while !atEnd {
                guard Self.isIdentifierCharacter(current) else {
                    warnings.append("ignoring \"\(rest)\": expected a property name")
                    return properties
                }
                let warningsBefore = warnings.count
                if let property = parseProperty() { properties.append(property) }
                skipWhitespace()
                if atEnd { break }
                guard current == ";" else {
                    if warnings.count == warningsBefore { warnings.append("expected \";\" before \"\(rest)\"") }
                    return nil
                }
                position += 1
                skipWhitespace()
            }
            return properties
        }

        /// One property, or `nil` when it is empty, zero or malformed (the reason is recorded).
        private mutating func parseProperty() -> Property? {
            let start = position
            let identifier = parseIdentifier()
            guard let name = Name(rawValue: identifier) else {
                warnings.append("unknown property \"\(identifier)\"")
                position = start
                return nil
            }
            guard !atEnd, current == ":" else {
                warnings.append("expected \":\" after \"\(identifier)\"")
                return nil
            }
            position += 1
            skipWhitespace()
            if atEnd || current == ";" {
                warnings.append("\(identifier) has no value; ignored")
                return nil
            }
            switch name {
            case .required, .allowed:
                guard let classes = parseClasses() else { return nil }
                guard let first = classes.first else {
                    warnings.append("\(identifier) lists no characters; ignored")
                    return nil
                }
                let merged = classes.dropFirst().reduce(first) {
                    PasswordRules.CharacterClass(
                        $0.characters.union($1.characters), isUnicode: $0.isUnicode || $1.isUnicode)
                }
                return name == .required ? .required(merged) : .allowed(merged)
            default:
                guard let value = parseInteger(identifier) else { return nil }
                guard value > 0 else {
                    warnings.append("\(identifier): 0 has no effect; ignored")
                    return nil
                }
                return .number(name, value)
            }
        }

        /// A comma-separated list of named and custom classes, up to `;` or the end.
        private mutating func parseClasses() -> [PasswordRules.CharacterClass]? {
            var classes: [PasswordRules.CharacterClass] = []
            while true {
                if Self.isIdentifierCharacter(current) {
                    let start = position
                    let identifier = parseIdentifier()
                    guard let named = Self.namedClass(identifier) else {
                        let hint =
                            Name(rawValue: identifier) != nil
                            ? ": it is a property name; separate properties with \";\", not \",\"" : ""
                        warnings.append("unknown character class \"\(identifier)\"\(hint)")
                        position = start
                        return nil
                    }
                    classes.append(named)
                } else if current == "[" {
                    if let custom = parseCustomClass(), !custom.isEmpty {
                        classes.append(PasswordRules.CharacterClass(custom))
                    }
                } else {
                    warnings.append("expected a character class at \"\(rest)\"")
                    return nil
                }
                skipWhitespace()
                if atEnd || current == ";" { return classes }
                guard current == "," else {
                    let upToSemicolon = rest.prefix { $0 != ";" }
                    let hint =
                        upToSemicolon.contains("]")
                        ? ": a \"]\" ends a character class early; to put \"]\" in a class, write it last, doubled, as in [abc]]"
                        : ""
                    warnings.append("expected \",\" or \";\" before \"\(rest)\"\(hint)")
                    return nil
                }
                position += 1
                skipWhitespace()
                if atEnd {
                    warnings.append("expected a character class after the last \",\"")
                    return nil
                }
            }
        }

        /// `[...]`: printable ASCII characters; `-` only first, `]` only last (`[-]]`).
        private mutating func parseCustomClass() -> PasswordCharacterSet? {
            position += 1
            let start = position
            var characters: [Unicode.Scalar] = []
            var dropped: [Unicode.Scalar] = []
            defer {
                if !dropped.isEmpty {
                    warnings.append(
                        "ignoring \(dropped.map(\.codePointDescription).joined(separator: ", ")) in a character class: classes hold printable ASCII characters only (as in Apple's parser), so passwords will not contain \(dropped.count == 1 ? "it" : "them")"
                    )
                }
            }
            while !atEnd {
                let scalar = current
                position += 1
                guard scalar.value >= 0x20 && scalar.value <= 0x7E else {
                    if !dropped.contains(scalar) { dropped.append(scalar) }
                    continue
                }
                if scalar == "-" && position - 1 > start {
                    warnings.append("ignoring \"-\" in a character class: it may only come first")
                    continue
                }
                characters.append(scalar)
                if scalar == "]" { break }
            }
            guard characters.last == "]" else {
                warnings.append("a character class is missing its closing \"]\"")
                return nil
            }
            if !atEnd && current == "]" {
                position += 1
            } else {
                characters.removeLast()
            }
            var set = PasswordCharacterSet()
            for scalar in characters { set.insert(scalar) }
            return set
        }

        /// A decimal integer that runs up to `;` or the end, as Apple's parser requires.
        private mutating func parseInteger(_ name: String) -> Int? {
            let start = position
            var value = 0
            while !atEnd, let digit = Self.digitValue(current) {
                value = value * 10 + digit
                position += 1
                if value > maximumValue {
                    warnings.append("\(name) is larger than \(maximumValue)")
                    position = start
                    return nil
                }
            }
            guard position > start, atEnd || current == ";" else {
                warnings.append("\(name) needs a whole number followed by \";\", not \"\(rest)\"")
                return nil
            }
            return value
        }

        private mutating func parseIdentifier() -> String {
            var scalars = String.UnicodeScalarView()
            while !atEnd && Self.isIdentifierCharacter(current) {
                scalars.append(current)
                position += 1
            }
            return String(scalars)
        }

        private mutating func skipWhitespace() {
            while !atEnd && [" ", "\t", "\n", "\r", "\u{0C}"].contains(current) { position += 1 }
        }

        private static func isIdentifierCharacter(_ scalar: Unicode.Scalar) -> Bool {
            ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || scalar == "-"
        }

        private static func digitValue(_ scalar: Unicode.Scalar) -> Int? {
            ("0"..."9").contains(scalar) ? Int(scalar.value - 0x30) : nil
        }

        private static func namedClass(_ identifier: String) -> PasswordRules.CharacterClass? {
            switch identifier.lowercased() {
            case "upper": PasswordRules.CharacterClass(.upper)
            case "lower": PasswordRules.CharacterClass(.lower)
            case "digit": PasswordRules.CharacterClass(.digits)
            case "special": PasswordRules.CharacterClass(.special)
            case "ascii-printable": PasswordRules.CharacterClass(.asciiPrintable)
            case "unicode": PasswordRules.CharacterClass(.asciiPrintable, isUnicode: true)
            default: nil
            }
        }
    }
}
