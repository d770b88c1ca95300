import Foundation
import Testing

@testable import SwcredBrowser

/// RFC 6238 Appendix B: the test seeds (ASCII "1234567890" repeated to 20, 32 and 64 bytes) and
/// the 8-digit codes of its table.
enum RFC6238 {
    static let seeds: [TOTP.Algorithm: [UInt8]] = [
        .sha1: Array("12345678901234567890".utf8),
        .sha256: Array("12345678901234567890123456789012".utf8),
        .sha512: Array("1234567890123456789012345678901234567890123456789012345678901234".utf8),
    ]
    /// The seeds in base32, for otpauth URIs.
    static let base32: [TOTP.Algorithm: String] = [
        .sha1: "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ",
        .sha256: "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZA====",
        .sha512:
            "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNA=",
    ]
    static let vectors: [(time: UInt64, algorithm: TOTP.Algorithm, code: String)] = [
        (59, .sha1, "94287082"), (59, .sha256, "46119246"), (59, .sha512, "90693936"),
        (1_111_111_109, .sha1, "07081804"), (1_111_111_109, .sha256, "68084774"), (1_111_111_109, .sha512, "25091201"),
        (1_111_111_111, .sha1, "14050471"), (1_111_111_111, .sha256, "67062674"), (1_111_111_111, .sha512, "99943326"),
        (1_234_567_890, .sha1, "89005924"), (1_234_567_890, .sha256, "91819424"), (1_234_567_890, .sha512, "93441116"),
        (2_000_000_000, .sha1, "69279037"), (2_000_000_000, .sha256, "90698825"), (2_000_000_000, .sha512, "38618901"),
        (20_000_000_000, .sha1, "65353130"), (20_000_000_000, .sha256, "77737706"),
        (20_000_000_000, .sha512, "47863826"),
    ]
}

@Suite("RFC 6238 TOTP")
struct TOTPTests {
    @Test("Appendix B's vectors, from the raw seeds")
    func vectorsFromSeeds() throws {
        for vector in RFC6238.vectors {
            let totp = try TOTP(secret: RFC6238.seeds[vector.algorithm]!, algorithm: vector.algorithm, digits: 8)
            #expect(totp.code(atUnixTime: vector.time) == vector.code, "\(vector.algorithm) at \(vector.time)")
        }
    }

    @Test("Appendix B's vectors, through otpauth URIs")
    func vectorsFromURIs() throws {
        for vector in RFC6238.vectors {
            let uri =
                "otpauth://totp/ACME%20Co:john@example.com?secret=\(RFC6238.base32[vector.algorithm]!)&issuer=ACME%20Co&algorithm=\(vector.algorithm.rawValue)&digits=8&period=30"
            let totp = try TOTP(uri: uri)
            #expect(totp.algorithm == vector.algorithm)
            #expect(totp.code(atUnixTime: vector.time) == vector.code)
            #expect(totp.code(at: Date(timeIntervalSince1970: TimeInterval(vector.time))) == vector.code)
        }
    }

    @Test("defaults are SHA-1, 6 digits, 30 seconds; 6 digits are the last 6 of the 8")
    func defaults() throws {
        let totp = try TOTP(uri: "otpauth://totp/x?secret=gezdgnbvgy3tqojqgezdgnbvgy3tqojq")
        #expect(totp.algorithm == .sha1 && totp.digits == 6 && totp.period == 30)
        #expect(totp.code(atUnixTime: 59) == "287082")
        #expect(totp.code(atUnixTime: 1_111_111_109) == "081804")
    }

    @Test("a 60-second period and 7 digits")
    func periodAndDigits() throws {
        let thirty = try TOTP(secret: RFC6238.seeds[.sha1]!, digits: 7, period: 30)
        let sixty = try TOTP(uri: "otpauth://totp/x?secret=\(RFC6238.base32[.sha1]!)&period=60&digits=7")
        // Step 60 s at T = 120 is counter 2, which the 30 s generator reaches at T = 60.
        #expect(sixty.code(atUnixTime: 120) == thirty.code(atUnixTime: 60))
        #expect(sixty.code(atUnixTime: 120) == sixty.code(atUnixTime: 179))
        #expect(sixty.code(atUnixTime: 120) != sixty.code(atUnixTime: 180))
        #expect(sixty.code(atUnixTime: 120).count == 7)
    }

    @Test("each malformed URI is refused naming its problem")
    func malformedURIs() {
        let secret = RFC6238.base32[.sha1]!
        let cases: [(String, OTPAuthError)] = [
            ("https://example.com/?secret=\(secret)", .notOTPAuth),
            ("otpauth:/", .notOTPAuth),
            ("otpauth://hotp/x?secret=\(secret)&counter=1", .notTOTP(type: "hotp")),
            ("otpauth://totp/x?issuer=Example", .missingSecret),
            ("otpauth://totp/x?secret=", .emptySecret),
            ("otpauth://totp/x?secret=GEZD1NBV", .secretNotBase32(offset: 4)),
            ("otpauth://totp/x?secret=GEZDG=NBV", .secretPadding),
            ("otpauth://totp/x?secret=GEZDGNBVG", .secretPadding),
            ("otpauth://totp/x?secret=\(secret)&algorithm=MD5", .unsupportedAlgorithm("MD5")),
            ("otpauth://totp/x?secret=\(secret)&digits=9", .invalidDigits("9")),
            ("otpauth://totp/x?secret=\(secret)&digits=5", .invalidDigits("5")),
            ("otpauth://totp/x?secret=\(secret)&digits=+6", .invalidDigits("+6")),
            ("otpauth://totp/x?secret=\(secret)&period=0", .invalidPeriod("0")),
            ("otpauth://totp/x?secret=\(secret)&period=-30", .invalidPeriod("-30")),
            ("otpauth://totp/x?secret=\(secret)&period=86401", .invalidPeriod("86401")),
            ("otpauth://totp/x?secret=\(secret)&secret=\(secret)", .repeatedParameter("secret")),
            ("otpauth://totp/x?secret=\(secret)&Digits=6&digits=8", .repeatedParameter("digits")),
        ]
        for (uri, error) in cases {
            #expect(throws: error, "\(uri)") { try TOTP(uri: uri) }
        }
        #expect(throws: OTPAuthError.emptySecret) { try TOTP(secret: []) }
        #expect(throws: OTPAuthError.invalidDigits("10")) { try TOTP(secret: [1], digits: 10) }
        #expect(throws: OTPAuthError.invalidPeriod("0")) { try TOTP(secret: [1], period: 0) }
        #expect(throws: OTPAuthError.invalidPeriod("86401")) { try TOTP(secret: [1], digits: 8, period: 86401) }
    }

    @Test("refusals name the problem without the secret")
    func descriptions() {
        #expect(OTPAuthError.secretNotBase32(offset: 4).description.contains("character 5"))
        #expect(
            OTPAuthError.notTOTP(type: "hotp").description
                == "the otpauth URI is of type \"hotp\"; only totp is supported")
        do {
            _ = try TOTP(uri: "otpauth://totp/x?secret=SECRETSECRET1&algorithm=MD5")
            Issue.record("a bad secret was accepted")
        } catch {
            #expect(!error.description.contains("SECRET"))
        }
    }
}
