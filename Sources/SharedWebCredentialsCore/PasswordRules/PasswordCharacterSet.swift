/// A set of printable ASCII characters (space through `~`), as used by the Password Rules language
/// and the generators. Stored as a 128-bit mask indexed by the character's code.
public struct PasswordCharacterSet: Sendable, Hashable {
    private var low: UInt64 = 0
    private var high: UInt64 = 0

    /// The empty set.
    public init() {}

    /// The printable ASCII characters among `characters`; anything else is left out.
    public init(_ characters: String) {
        for scalar in characters.unicodeScalars { insert(scalar) }
    }

    /// The set of every printable ASCII character with a code in `range`.
    init(codes range: ClosedRange<UInt8>) {
        for code in range { insert(code: code) }
    }

    /// `A`-`Z` (26).
    public static let upper = PasswordCharacterSet(codes: 0x41...0x5A)
    /// `a`-`z` (26).
    public static let lower = PasswordCharacterSet(codes: 0x61...0x7A)
    /// `0`-`9` (10).
    public static let digits = PasswordCharacterSet(codes: 0x30...0x39)
    /// Space and the 32 ASCII punctuation marks (33).
    public static let special = PasswordCharacterSet(codes: 0x20...0x7E).subtracting(
        upper.union(lower).union(digits))
    /// Every printable ASCII character, space through `~` (95).
    public static let asciiPrintable = PasswordCharacterSet(codes: 0x20...0x7E)

    /// Whether the set contains the character with this ASCII code.
    @inline(__always)
    public func contains(code: UInt8) -> Bool {
        code < 64 ? low & (1 << UInt64(code)) != 0 : code < 128 && high & (1 << UInt64(code - 64)) != 0
    }

    /// Whether the set contains this character.
    public func contains(_ character: Character) -> Bool {
        guard let ascii = character.asciiValue else { return false }
        return contains(code: ascii)
    }

    /// Adds a printable ASCII scalar; other scalars are ignored. Returns whether it was printable ASCII.
    @discardableResult
    public mutating func insert(_ scalar: Unicode.Scalar) -> Bool {
        guard scalar.value >= 0x20 && scalar.value <= 0x7E else { return false }
        insert(code: UInt8(scalar.value))
        return true
    }

    /// Adds the character with this code, which must be printable ASCII.
    mutating func insert(code: UInt8) {
        precondition(code >= 0x20 && code <= 0x7E, "not printable ASCII")
        if code < 64 { low |= 1 << UInt64(code) } else { high |= 1 << UInt64(code - 64) }
    }

    /// The characters in either set.
    public func union(_ other: PasswordCharacterSet) -> PasswordCharacterSet {
        var result = self
        result.low |= other.low
        result.high |= other.high
        return result
    }

    /// The characters in both sets.
    public func intersection(_ other: PasswordCharacterSet) -> PasswordCharacterSet {
        var result = self
        result.low &= other.low
        result.high &= other.high
        return result
    }

    /// The characters of this set that are not in `other`.
    public func subtracting(_ other: PasswordCharacterSet) -> PasswordCharacterSet {
        var result = self
        result.low &= ~other.low
        result.high &= ~other.high
        return result
    }

    /// Whether every character of this set is in `other`.
    public func isSubset(of other: PasswordCharacterSet) -> Bool { subtracting(other).isEmpty }

    /// Whether the sets share a character.
    public func intersects(_ other: PasswordCharacterSet) -> Bool { !intersection(other).isEmpty }

    /// Whether the set has no characters.
    public var isEmpty: Bool { low == 0 && high == 0 }

    /// How many characters the set has.
    public var count: Int { low.nonzeroBitCount + high.nonzeroBitCount }

    /// The characters' codes in ascending ASCII order.
    public var codes: [UInt8] { (0x20...0x7E).filter { contains(code: $0) } }
}
