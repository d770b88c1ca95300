/// An app's identifier. An Apple app's application identifier is a 10-character upper-case
/// alphanumeric prefix (the team ID or App ID prefix), a dot, and a bundle identifier, as in
/// `ABCDE12345.com.example.app`; an Android app is `android:` and its package name, as in
/// `android:com.example.shop`.
public struct ApplicationIdentifier: Hashable, Sendable, CustomStringConvertible, Comparable {
    /// The two kinds of app.
    public enum Platform: String, Sendable {
        /// Named by an application identifier; its sites approve it in apple-app-site-association.
        case apple
        /// Named by a package name; its sites approve it in Digital Asset Links.
        case android
    }

    /// The text before an Android app's package name.
    public static let androidScheme = "android:"

    /// Which kind of app this is.
    public let platform: Platform
    /// The 10-character App ID prefix (team ID or App ID prefix), upper-case; empty for an
    /// Android app.
    public let prefix: String
    /// The bundle identifier (an Android app's package name), compared exactly (case-sensitively).
    public let bundleIdentifier: String

    /// The SHA-256 fingerprints of an Android app's signing certificates, as its registration
    /// gives them (empty for an Apple app, and for an identifier parsed from text): an Android app
    /// is its package name signed by one of these. Not part of the identifier's identity:
    /// equality, hashing and ``description`` ignore it.
    public private(set) var signingCertificates: [CertificateFingerprint] = []

    /// The package name of an Android app; nil for an Apple app.
    public var androidPackageName: String? { platform == .android ? bundleIdentifier : nil }

    /// This Android app with its registered signing-certificate fingerprints.
    public func signed(by fingerprints: [CertificateFingerprint]) -> ApplicationIdentifier {
        var signed = self
        signed.signingCertificates = fingerprints
        return signed
    }

    /// Parses and validates an application identifier (`TEAMID1234.bundle.id`) or an Android app
    /// (`android:package.name`); the error names the rule that was broken.
    public init(_ text: String) throws {
        if let (prefix, bundle) = Self.wellFormedApple(text) {
            self.init(apple: prefix, bundleIdentifier: bundle)
            return
        }
        try self.init(validating: text)
    }

    private init(apple prefix: String, bundleIdentifier: String) {
        platform = .apple
        self.prefix = prefix
        self.bundleIdentifier = bundleIdentifier
    }

    /// The prefix and bundle ID of a well-formed Apple application identifier, found in one pass
    /// over its bytes: ten upper-case ASCII letters or digits, a dot, then ASCII letters, digits,
    /// hyphens and dots with no empty component. Nil for anything else, which
    /// ``validated(_:)`` decides; for what this accepts, that makes the same identifier.
    /// Identifiers are parsed from stored rows on the service's hot path.
    private static func wellFormedApple(_ text: String) -> (prefix: String, bundle: String)? {
        var text = text
        return text.withUTF8 { bytes -> (String, String)? in
            guard bytes.count >= 12, bytes[10] == UInt8(ascii: ".") else { return nil }
            for byte in bytes[..<10] {
                guard
                    (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                        || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                else { return nil }
            }
            var previous = UInt8(ascii: ".")
            for byte in bytes[11...] {
                switch byte {
                case UInt8(ascii: "."):
                    guard previous != UInt8(ascii: ".") else { return nil }
                case UInt8(ascii: "-"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"):
                    break
                default:
                    return nil
                }
                previous = byte
            }
            guard previous != UInt8(ascii: ".") else { return nil }
            return (
                String(decoding: UnsafeBufferPointer(rebasing: bytes[..<10]), as: UTF8.self),
                String(decoding: UnsafeBufferPointer(rebasing: bytes[11...]), as: UTF8.self)
            )
        }
    }

    /// ``init(_:)`` for any text, every rule checked in turn, so that the error names the first
    /// rule broken (without the one-pass shortcut, so that tests can compare the two).
    package static func validated(_ text: String) throws -> ApplicationIdentifier {
        try ApplicationIdentifier(validating: text)
    }

    private init(validating text: String) throws {
        if text.hasPrefix(Self.androidScheme) {
            bundleIdentifier = try AndroidPackageName.validate(String(text.dropFirst(Self.androidScheme.count)))
            prefix = ""
            platform = .android
            return
        }
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
        platform = .apple
    }

    /// The identifier as written: `PREFIX.bundle.id`, or `android:package.name`.
    public var description: String {
        platform == .android ? Self.androidScheme + bundleIdentifier : "\(prefix).\(bundleIdentifier)"
    }

    /// Whether a string from an AASA file names this app: only ASCII strings can; the prefix is
    /// compared ASCII-case-insensitively and the bundle ID byte for byte. (Unicode case rules or
    /// canonical equivalence would let `ſ`, `ß`, `ﬀ` or a Kelvin sign stand for ASCII letters.)
    /// An AASA file never names an Android app.
    public func isNamed(by listed: String) -> Bool {
        guard platform == .apple else { return false }
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

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.description == rhs.description }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(description)
    }
}

extension Unicode.Scalar {
    /// Whether the scalar is an ASCII letter or digit.
    var isASCIIAlphanumeric: Bool {
        ("a"..."z").contains(self) || ("A"..."Z").contains(self) || ("0"..."9").contains(self)
    }
}
