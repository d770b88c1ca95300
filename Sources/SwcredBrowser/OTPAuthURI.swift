import Foundation

/// Why an `otpauth://` URI was refused. Each names the exact problem, and none repeats the
/// secret.
public enum OTPAuthError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The text is not a URI of the `otpauth` scheme.
    case notOTPAuth
    /// The URI is of another type than `totp` (such as `hotp`, a counter this host does not keep).
    case notTOTP(type: String)
    /// The URI has no `secret` parameter.
    case missingSecret
    /// The secret is empty once decoded.
    case emptySecret
    /// The secret has a character outside base32's alphabet at this offset.
    case secretNotBase32(offset: Int)
    /// The secret's padding or length is not one base32 allows.
    case secretPadding
    /// The algorithm is not SHA1, SHA256 or SHA512.
    case unsupportedAlgorithm(String)
    /// `digits` is not 6, 7 or 8.
    case invalidDigits(String)
    /// `period` is not a whole number of seconds from 1 to 86400.
    case invalidPeriod(String)
    /// A parameter appears more than once.
    case repeatedParameter(String)
    /// The URI cannot be parsed at all.
    case malformed

    public var description: String {
        switch self {
        case .notOTPAuth: return "not an otpauth:// URI"
        case .notTOTP(let type): return "the otpauth URI is of type \"\(type)\"; only totp is supported"
        case .missingSecret: return "the otpauth URI has no secret parameter"
        case .emptySecret: return "the otpauth URI's secret is empty"
        case .secretNotBase32(let offset):
            return "the otpauth URI's secret is not base32: character \(offset + 1) is outside A-Z and 2-7"
        case .secretPadding: return "the otpauth URI's secret has a length or padding base32 does not allow"
        case .unsupportedAlgorithm(let name):
            return "the otpauth URI's algorithm \"\(name)\" is not SHA1, SHA256 or SHA512"
        case .invalidDigits(let value): return "the otpauth URI's digits \"\(value)\" is not 6, 7 or 8"
        case .invalidPeriod(let value):
            return "the otpauth URI's period \"\(value)\" is not a whole number of seconds from 1 to 86400"
        case .repeatedParameter(let name): return "the otpauth URI gives \(name) more than once"
        case .malformed: return "the otpauth URI cannot be parsed"
        }
    }
}

/// The TOTP parameters of an `otpauth://totp/LABEL?secret=…&algorithm=…&digits=…&period=…` URI
/// (the Key URI Format of Google Authenticator, which KeePassXC and the CXF format use).
/// Defaults: SHA1, 6 digits, 30 seconds.
struct OTPAuthURI {
    var secret: [UInt8]
    var algorithm: TOTP.Algorithm
    var digits: Int
    var period: Int

    init(parsing text: String) throws(OTPAuthError) {
        guard text.utf8.count > 10, text.prefix(10).lowercased() == "otpauth://" else { throw .notOTPAuth }
        guard let components = URLComponents(string: text) else { throw .malformed }
        let type = (components.host ?? "").lowercased()
        guard type == "totp" else { throw .notTOTP(type: DisplayTextLite.cut(type)) }
        var parameters: [String: String] = [:]
        for item in components.queryItems ?? [] {
            let name = item.name.lowercased()
            guard parameters[name] == nil else { throw .repeatedParameter(DisplayTextLite.cut(item.name)) }
            parameters[name] = item.value ?? ""
        }
        guard let secretText = parameters["secret"] else { throw .missingSecret }
        do {
            secret = try Base32.decode(secretText.replacingOccurrences(of: " ", with: ""))
        } catch .invalidCharacter(let offset) {
            throw .secretNotBase32(offset: offset)
        } catch {
            throw .secretPadding
        }
        guard !secret.isEmpty else { throw .emptySecret }
        if let name = parameters["algorithm"] {
            guard let algorithm = TOTP.Algorithm(rawValue: name.uppercased()) else {
                throw .unsupportedAlgorithm(DisplayTextLite.cut(name))
            }
            self.algorithm = algorithm
        } else {
            algorithm = .sha1
        }
        if let value = parameters["digits"] {
            guard value.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let digits = Int(value), (6...8).contains(digits)
            else { throw .invalidDigits(DisplayTextLite.cut(value)) }
            self.digits = digits
        } else {
            digits = 6
        }
        if let value = parameters["period"] {
            guard value.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let period = Int(value), (1...86400).contains(period)
            else { throw .invalidPeriod(DisplayTextLite.cut(value)) }
            self.period = period
        } else {
            period = 30
        }
    }
}

/// Cuts and escapes a value from a URI for an error message.
enum DisplayTextLite {
    static func cut(_ text: String) -> String {
        String(
            text.prefix(32).unicodeScalars.map {
                $0.isASCII && $0.value >= 0x20 && $0.value < 0x7f ? Character($0) : "?"
            })
    }
}
