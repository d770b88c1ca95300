/// An app's application identifier: a 10-character upper-case alphanumeric prefix (the team ID or
/// App ID prefix), a dot, and a bundle identifier, as in `ABCDE12345.com.example.app`.
public struct ApplicationIdentifier: Hashable, Sendable, CustomStringConvertible, Comparable {
    /// The 10-character App ID prefix (team ID or App ID prefix), upper-case.
    public let prefix: String
    /// The bundle identifier, compared exactly (case-sensitively).
    public let bundleIdentifier: String

    /// Parses and validates an application identifier; the error names the rule that was broken.
    public init(_ text: String) throws {
        func invalid(_ rule: String) -> SharedWebCredentialsError {
            SharedWebCredentialsError(
                .invalidInput,
                "invalid application identifier \"\(text)\": \(rule); expected TEAMID1234.com.example.app")
        }
        if text.isEmpty { throw invalid("it is empty") }
        if text.contains(where: { $0.isWhitespace }) { throw invalid("it contains white space") }
        guard let dot = text.firstIndex(of: ".") else {
            throw invalid("there is no dot between the 10-character prefix and the bundle ID")
        }
        let prefix = String(text[..<dot])
        let bundle = String(text[text.index(after: dot)...])
        guard prefix.count == 10 else {
            throw invalid("the prefix \"\(prefix)\" has \(prefix.count) characters, it must have exactly 10")
        }
        guard prefix.unicodeScalars.allSatisfy({ $0.isASCIIAlphanumeric }) else {
            throw invalid("the prefix may contain only the letters A-Z and digits 0-9")
        }
        guard prefix == prefix.uppercased() else {
            throw invalid("the prefix must be upper-case (\(prefix.uppercased()))")
        }
        if bundle.isEmpty { throw invalid("the bundle ID after the prefix is empty") }
        guard bundle.unicodeScalars.allSatisfy({ $0.isASCIIAlphanumeric || $0 == "-" || $0 == "." }) else {
            throw invalid("the bundle ID may contain only letters, digits, hyphens and dots")
        }
        if bundle.hasPrefix(".") || bundle.hasSuffix(".") || bundle.contains("..") {
            throw invalid("the bundle ID has an empty component (leading, trailing or double dot)")
        }
        self.prefix = prefix
        self.bundleIdentifier = bundle
    }

    /// The identifier as written: `PREFIX.bundle.id`.
    public var description: String { "\(prefix).\(bundleIdentifier)" }

    /// Whether a string from an AASA file names this app: only ASCII strings can; the prefix is
    /// compared ASCII-case-insensitively and the bundle ID byte for byte. (Unicode case rules or
    /// canonical equivalence would let `ſ`, `ß`, `ﬀ` or a Kelvin sign stand for ASCII letters.)
    public func isNamed(by listed: String) -> Bool {
        let bytes = Array(listed.utf8)
        guard bytes.allSatisfy({ $0 < 0x80 }), let dot = bytes.firstIndex(of: UInt8(ascii: ".")) else { return false }
        let listedPrefix = bytes[..<dot]
        let ownPrefix = Array(prefix.utf8)
        guard listedPrefix.count == ownPrefix.count,
            zip(listedPrefix, ownPrefix).allSatisfy({ asciiUppercased($0) == $1 })
        else { return false }
        return bytes[(dot + 1)...].elementsEqual(bundleIdentifier.utf8)
    }

    private func asciiUppercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) ? byte - 0x20 : byte
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.description < rhs.description }
}

extension Unicode.Scalar {
    /// Whether the scalar is an ASCII letter or digit.
    var isASCIIAlphanumeric: Bool {
        ("a"..."z").contains(self) || ("A"..."Z").contains(self) || ("0"..."9").contains(self)
    }
}
