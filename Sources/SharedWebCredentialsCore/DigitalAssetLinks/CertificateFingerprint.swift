/// The SHA-256 fingerprint of an Android app's signing certificate: 32 bytes, written as
/// colon-separated hex pairs (`14:6D:E9:...`). Either case is read; the canonical form, the one
/// stored and shown, is upper-case with colons, as Digital Asset Links writes it.
public struct CertificateFingerprint: Hashable, Sendable, CustomStringConvertible, Comparable, Codable {
    /// The number of bytes in a SHA-256 fingerprint.
    public static let byteCount = 32

    /// The 32 bytes.
    public let bytes: [UInt8]

    /// Wraps 32 bytes (the SHA-256 digest of a certificate's DER encoding).
    public init(bytes: [UInt8]) throws {
        guard bytes.count == Self.byteCount else {
            throw SharedWebCredentialsError(
                .invalidInput, "a SHA-256 fingerprint has \(Self.byteCount) bytes, not \(bytes.count)")
        }
        self.bytes = bytes
    }

    /// Parses `AA:BB:...` (32 pairs of hex digits, either case); the error names the problem.
    public init(_ text: String) throws {
        func invalid(_ problem: String) -> SharedWebCredentialsError {
            SharedWebCredentialsError(
                .invalidInput,
                "invalid SHA-256 certificate fingerprint \"\(text)\": \(problem); write 32 bytes as colon-separated hex pairs, such as 14:6D:E9:...:44:E5 (`keytool -printcert` and `openssl x509 -fingerprint -sha256` print it so)"
            )
        }
        if text.isEmpty { throw invalid("it is empty") }
        let pairs = text.split(separator: ":", omittingEmptySubsequences: false)
        var bytes: [UInt8] = []
        for (index, pair) in pairs.enumerated() {
            if let bad = pair.unicodeScalars.first(where: { !$0.isHexDigit }) {
                throw invalid("byte \(index + 1) contains \(bad.codePointDescription), which is not a hex digit")
            }
            guard pair.unicodeScalars.count == 2, let byte = UInt8(pair, radix: 16) else {
                throw invalid(
                    "byte \(index + 1) \"\(pair)\" has \(pair.unicodeScalars.count) hex digits; each byte is exactly two, separated by colons"
                )
            }
            bytes.append(byte)
        }
        guard bytes.count == Self.byteCount else {
            throw invalid("it has \(bytes.count) bytes; a SHA-256 fingerprint has \(Self.byteCount)")
        }
        self.bytes = bytes
    }

    /// Upper-case hex pairs separated by colons.
    public var description: String {
        bytes.map { byte in
            let hex = String(byte, radix: 16, uppercase: true)
            return hex.count == 1 ? "0" + hex : hex
        }.joined(separator: ":")
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.bytes.lexicographicallyPrecedes(rhs.bytes) }

    public init(from decoder: any Decoder) throws {
        try self.init(try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

extension Unicode.Scalar {
    /// Whether the scalar is an ASCII hex digit.
    var isHexDigit: Bool { ("0"..."9").contains(self) || ("a"..."f").contains(self) || ("A"..."F").contains(self) }
}
