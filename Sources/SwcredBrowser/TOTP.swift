import CSodium
import Crypto
import Foundation
import SwcredPlatform

/// RFC 6238 time-based one-time passwords: HOTP (RFC 4226) over the number of `period`-second
/// steps since the Unix epoch, with HMAC-SHA1, -SHA256 or -SHA512 and 6 to 8 digits.
public struct TOTP: Sendable {
    /// The HMAC's hash function (`algorithm=` in the URI).
    public enum Algorithm: String, Sendable, CaseIterable {
        case sha1 = "SHA1"
        case sha256 = "SHA256"
        case sha512 = "SHA512"
    }

    /// The hash function.
    public let algorithm: Algorithm
    /// The code's length, 6 to 8.
    public let digits: Int
    /// The time step in seconds.
    public let period: Int
    private let secret: Secret

    /// The generator an `otpauth://totp/…` URI describes.
    ///
    /// - Throws: ``OTPAuthError`` naming the first problem found.
    public init(uri: String) throws(OTPAuthError) {
        var parsed = try OTPAuthURI(parsing: uri)
        defer { sodium_memzero(&parsed.secret, parsed.secret.count) }
        self.init(
            checkedSecret: parsed.secret, algorithm: parsed.algorithm, digits: parsed.digits, period: parsed.period)
    }

    /// A generator for a raw secret (RFC 6238's test keys, for instance).
    ///
    /// - Throws: ``OTPAuthError/emptySecret``, ``OTPAuthError/invalidDigits(_:)`` or
    ///   ``OTPAuthError/invalidPeriod(_:)``.
    public init(
        secret: [UInt8], algorithm: Algorithm = .sha1, digits: Int = 6, period: Int = 30
    )
        throws(OTPAuthError)
    {
        guard !secret.isEmpty else { throw .emptySecret }
        guard (6...8).contains(digits) else { throw .invalidDigits(String(digits)) }
        guard (1...86400).contains(period) else { throw .invalidPeriod(String(period)) }
        self.init(checkedSecret: secret, algorithm: algorithm, digits: digits, period: period)
    }

    private init(checkedSecret: [UInt8], algorithm: Algorithm, digits: Int, period: Int) {
        self.secret = Secret(checkedSecret)
        self.algorithm = algorithm
        self.digits = digits
        self.period = period
    }

    /// The code for the moment `date`.
    public func code(at date: Date) -> String {
        code(atUnixTime: UInt64(max(0, date.timeIntervalSince1970.rounded(.down))))
    }

    /// The code for `seconds` since the Unix epoch.
    public func code(atUnixTime seconds: UInt64) -> String {
        let counter = seconds / UInt64(period)
        let message = withUnsafeBytes(of: counter.bigEndian) { [UInt8]($0) }
        let mac: [UInt8] = secret.withKey { key in
            switch algorithm {
            case .sha1: return [UInt8](HMAC<Insecure.SHA1>.authenticationCode(for: message, using: key))
            case .sha256: return [UInt8](HMAC<SHA256>.authenticationCode(for: message, using: key))
            case .sha512: return [UInt8](HMAC<SHA512>.authenticationCode(for: message, using: key))
            }
        }
        // RFC 4226 §5.3, dynamic truncation.
        let offset = Int(mac[mac.count - 1] & 0x0f)
        let binary =
            (UInt32(mac[offset] & 0x7f) << 24) | (UInt32(mac[offset + 1]) << 16) | (UInt32(mac[offset + 2]) << 8)
            | UInt32(mac[offset + 3])
        var modulus: UInt32 = 1
        for _ in 0..<digits { modulus *= 10 }
        let value = String(binary % modulus)
        return String(repeating: "0", count: digits - value.count) + value
    }

    /// The secret, in a buffer wiped when the last copy of the generator goes.
    private final class Secret: @unchecked Sendable {
        private let buffer: SecretBuffer

        init(_ bytes: [UInt8]) {
            buffer = SecretBuffer(count: bytes.count)
            buffer.withUnsafeMutableBytes { $0.copyBytes(from: bytes) }
        }

        func withKey<Result>(_ body: (SymmetricKey) -> Result) -> Result {
            buffer.withUnsafeBytes { body(SymmetricKey(data: $0)) }
        }
    }
}
