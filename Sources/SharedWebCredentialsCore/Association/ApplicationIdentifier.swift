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

    /// Whether a string from an AASA file names this app: the prefix compared case-insensitively,
    /// the bundle ID exactly.
    public func isNamed(by listed: String) -> Bool {
        guard let dot = listed.firstIndex(of: ".") else { return false }
        return listed[..<dot].uppercased() == prefix && listed[listed.index(after: dot)...] == bundleIdentifier
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.description < rhs.description }
}

extension Unicode.Scalar {
    /// Whether the scalar is an ASCII letter or digit.
    var isASCIIAlphanumeric: Bool {
        ("a"..."z").contains(self) || ("A"..."Z").contains(self) || ("0"..."9").contains(self)
    }
}
