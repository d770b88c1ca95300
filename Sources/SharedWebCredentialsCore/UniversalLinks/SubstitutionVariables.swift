import Foundation

/// The `$(name)` variables a universal-link pattern may use: the file's own
/// `applinks.substitutionVariables` and the ones Apple predefines (`alpha`, `upper`, `lower`,
/// `alnum`, `digit`, `xdigit`, `region`, `lang`).
public struct SubstitutionVariables: Sendable, Equatable {
    /// What a variable stands for.
    public enum Definition: Sendable, Equatable {
        /// Exactly one ASCII character from a set (the predefined character classes).
        case oneOf(ASCIISet)
        /// Any one of a list of strings, each of which may contain `*` and `?`.
        case anyOf([String])
    }

    /// The names Apple predefines, in the order its documentation lists them.
    public static let predefinedNames = ["alpha", "upper", "lower", "alnum", "digit", "xdigit", "region", "lang"]

    /// The file's own variables, by name.
    public var custom: [String: [String]]

    /// Creates the set of variables a file defines (the predefined ones are always there).
    public init(custom: [String: [String]] = [:]) {
        self.custom = custom
    }

    /// The definition of `name`: the file's own first (it shadows a predefined one), else the
    /// predefined one, else nil.
    public func definition(of name: String) -> Definition? {
        if let values = custom[name] { return .anyOf(values) }
        return Self.predefined(name)
    }

    /// A predefined variable's definition, or nil for another name.
    public static func predefined(_ name: String) -> Definition? {
        switch name {
        case "alpha": .oneOf(.upper.union(.lower))
        case "upper": .oneOf(.upper)
        case "lower": .oneOf(.lower)
        case "alnum": .oneOf(.upper.union(.lower).union(.digits))
        case "digit": .oneOf(.digits)
        case "xdigit": .oneOf(.digits.union(ASCIISet("ABCDEFabcdef")))
        case "region": .anyOf(regionCodes)
        case "lang": .anyOf(languageCodes)
        default: nil
        }
    }

    /// `$(region)`: the two-letter ISO 3166 region codes Foundation knows (Apple's documentation
    /// points at `Locale.isoRegionCodes`), such as `CA`, `GB` and `US`.
    public static let regionCodes: [String] = Locale.Region.isoRegions.map(\.identifier).filter {
        $0.count == 2 && $0.unicodeScalars.allSatisfy { ("A"..."Z").contains($0) }
    }.sorted()

    /// `$(lang)`: the ISO 639 language codes Foundation knows (Apple's documentation points at
    /// `Locale.isoLanguageCodes`), such as `ar`, `en` and `zh`.
    public static let languageCodes: [String] = Locale.LanguageCode.isoLanguageCodes.map(\.identifier).filter {
        !$0.isEmpty && $0.unicodeScalars.allSatisfy { ("a"..."z").contains($0) }
    }.sorted()
}

/// A set of ASCII characters, as two 64-bit masks.
public struct ASCIISet: Sendable, Hashable {
    var low: UInt64 = 0
    var high: UInt64 = 0

    /// The set of the ASCII characters in `characters` (others are ignored).
    public init(_ characters: String) {
        for scalar in characters.unicodeScalars where scalar.isASCII { insert(UInt8(scalar.value)) }
    }

    /// `A` to `Z`.
    public static let upper = ASCIISet("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    /// `a` to `z`.
    public static let lower = ASCIISet("abcdefghijklmnopqrstuvwxyz")
    /// `0` to `9`.
    public static let digits = ASCIISet("0123456789")

    mutating func insert(_ byte: UInt8) {
        if byte < 64 { low |= 1 << UInt64(byte) } else if byte < 128 { high |= 1 << UInt64(byte - 64) }
    }

    /// Whether the set holds the ASCII character `byte` (false for anything above 127).
    public func contains(_ byte: UInt8) -> Bool {
        byte < 64 ? low & (1 << UInt64(byte)) != 0 : byte < 128 && high & (1 << UInt64(byte - 64)) != 0
    }

    /// The characters of either set.
    public func union(_ other: ASCIISet) -> ASCIISet {
        var result = self
        result.low |= other.low
        result.high |= other.high
        return result
    }

    /// The set with the other case of every letter added.
    var caseInsensitive: ASCIISet {
        var result = self
        for byte in UInt8(ascii: "A")...UInt8(ascii: "Z") where contains(byte) || contains(byte + 32) {
            result.insert(byte)
            result.insert(byte + 32)
        }
        return result
    }
}
