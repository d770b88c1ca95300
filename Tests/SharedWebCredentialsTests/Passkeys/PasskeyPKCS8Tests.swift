import Crypto
import Foundation
import Testing

@testable import SharedWebCredentials

/// A passkey's private key as PKCS#8, the form CXF carries: written as swift-crypto (BoringSSL)
/// writes it, read back bit for bit, and every malformed or foreign key refused by name.
@Suite("Passkey private keys as PKCS#8")
struct PasskeyPKCS8Tests {
    static func read(_ der: [UInt8]) -> Result<PasskeyPrivateKey, PasskeyPrivateKey.PKCS8Error> {
        der.withUnsafeBytes { bytes in
            Result { () throws(PasskeyPrivateKey.PKCS8Error) in try PasskeyPrivateKey(pkcs8: bytes) }
        }
    }

    static func bytes(_ secure: SecureBytes) -> [UInt8] { secure.withUnsafeBytes { Array($0) } }

    static func problem(_ der: [UInt8]) -> PasskeyPrivateKey.PKCS8Error? {
        if case .failure(let error) = read(der) { return error }
        return nil
    }

    @Test("ES256: the bytes swift-crypto's derRepresentation writes, and read back from them")
    func es256MatchesSwiftCrypto() throws {
        for _ in 0..<20 {
            let key = PasskeyPrivateKey.generate(.es256)
            let crypto = try key.secret.withUnsafeBytes { try P256.Signing.PrivateKey(rawRepresentation: $0) }
            let written = Self.bytes(try key.pkcs8())
            #expect(written == [UInt8](crypto.derRepresentation))
            let back = try Self.read([UInt8](crypto.derRepresentation)).get()
            #expect(back.algorithm == .es256)
            #expect(back.secret.isEqual(to: key.secret))
        }
    }

    @Test("Ed25519: RFC 8410's 48 bytes, read back")
    func ed25519RoundTrip() throws {
        let key = PasskeyPrivateKey.generate(.ed25519)
        let written = Self.bytes(try key.pkcs8())
        #expect(written.count == 48)
        #expect(
            Array(written.prefix(16)) == [
                0x30, 0x2E, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
            ])
        #expect(Array(written.suffix(32)) == Self.bytes(key.secret))
        let back = try Self.read(written).get()
        #expect(back.algorithm == .ed25519 && back.secret.isEqual(to: key.secret))
    }

    @Test("what keys may carry besides the scalar: no public key, a v2 public key, a short scalar")
    func optionalParts() throws {
        let key = PasskeyPrivateKey.generate(.es256)
        let scalar = Self.bytes(key.secret)
        // SEC 1 inside PKCS#8 without the optional public key (as some encoders write it).
        let bare: [UInt8] =
            [0x30, 0x41, 0x02, 0x01, 0x00, 0x30, 0x13, 0x06, 0x07]
            + PasskeyPrivateKey.ecPublicKeyOID + [0x06, 0x08] + PasskeyPrivateKey.prime256v1OID
            + [0x04, 0x27, 0x30, 0x25, 0x02, 0x01, 0x01, 0x04, 0x20] + scalar
        #expect(try Self.read(bare).get().secret.isEqual(to: key.secret))

        // Ed25519 as RFC 5958 v2, with its public key after the private one.
        let edKey = PasskeyPrivateKey.generate(.ed25519)
        let edPublic = try edKey.publicKeyBytes().x
        var v2 = Self.bytes(try edKey.pkcs8())
        v2[4] = 0x01
        v2 += [0x81, 0x21, 0x00] + edPublic
        v2[1] = UInt8(v2.count - 2)
        #expect(try Self.read(v2).get().secret.isEqual(to: edKey.secret))
        // ... and the same with another key's public key is refused.
        var wrong = v2
        wrong.replaceSubrange((wrong.count - 32)..., with: try PasskeyPrivateKey.generate(.ed25519).publicKeyBytes().x)
        #expect(Self.problem(wrong) == .malformed("the public key it carries is not its private key's"))

        // A scalar written without its leading zero byte is padded back.
        let short: [UInt8] = [0x00] + (0..<31).map { _ in UInt8.random(in: 0...255) }
        let shortKey = try PasskeyPrivateKey(algorithm: .es256, secret: SecureBytes(copying: short))
        let trimmed: [UInt8] =
            [0x30, 0x40, 0x02, 0x01, 0x00, 0x30, 0x13, 0x06, 0x07]
            + PasskeyPrivateKey.ecPublicKeyOID + [0x06, 0x08] + PasskeyPrivateKey.prime256v1OID
            + [0x04, 0x26, 0x30, 0x24, 0x02, 0x01, 0x01, 0x04, 0x1F] + Array(short.dropFirst())
        #expect(try Self.read(trimmed).get().secret.isEqual(to: shortKey.secret))

        // The shortest: a scalar below 256 is one byte once its 31 zero bytes are dropped; none is refused.
        func withScalar(_ scalar: [UInt8]) -> [UInt8] {
            let length = UInt8(scalar.count)
            return [0x30, 33 + length, 0x02, 0x01, 0x00, 0x30, 0x13, 0x06, 0x07]
                + PasskeyPrivateKey.ecPublicKeyOID + [0x06, 0x08] + PasskeyPrivateKey.prime256v1OID
                + [0x04, 7 + length, 0x30, 5 + length, 0x02, 0x01, 0x01, 0x04, length] + scalar
        }
        let seven = try PasskeyPrivateKey(
            algorithm: .es256, secret: SecureBytes(copying: [UInt8](repeating: 0, count: 31) + [0x07]))
        #expect(try Self.read(withScalar([0x07])).get().secret.isEqual(to: seven.secret))
        #expect(Self.problem(withScalar([])) == .malformed("its private scalar has 0 bytes, not 32"))
    }

    @Test("a stored key of the wrong length is an integrity failure naming both lengths, for either algorithm")
    func storedKeyLength() throws {
        for algorithm in [PasskeyAlgorithm.es256, .ed25519] {
            for count in [0, 31, 33, 64] {
                let error = try #require(throws: SharedWebCredentialsError.self) {
                    _ = try PasskeyPrivateKey(
                        algorithm: algorithm, secret: SecureBytes(copying: [UInt8](repeating: 1, count: count)))
                }
                #expect(error.code == .integrityFailure)
                #expect(error.message == "a passkey's private key has \(count) bytes, not 32", "\(algorithm)")
            }
        }
    }

    @Test("an ECPrivateKey may name its curve: P-256 is read; another curve, or bytes after the name, are refused")
    func namedCurve() throws {
        func tlv(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] { [tag, UInt8(content.count)] + content }
        let scalar = [UInt8](repeating: 1, count: 32)
        func pkcs8(curve: [UInt8]) -> [UInt8] {
            let algorithm = tlv(
                0x30, tlv(0x06, PasskeyPrivateKey.ecPublicKeyOID) + tlv(0x06, PasskeyPrivateKey.prime256v1OID))
            let ecKey = tlv(0x30, tlv(0x02, [1]) + tlv(0x04, scalar) + tlv(0xA0, curve))
            return tlv(0x30, tlv(0x02, [0]) + algorithm + tlv(0x04, ecKey))
        }
        let named = pkcs8(curve: tlv(0x06, PasskeyPrivateKey.prime256v1OID))
        #expect(try Self.read(named).get().secret.isEqual(to: SecureBytes(copying: scalar)))
        let refused = "its ECPrivateKey names another curve than its algorithm"
        #expect(Self.problem(pkcs8(curve: tlv(0x06, [0x2B, 0x81, 0x04, 0x00, 0x22]))) == .malformed(refused))
        #expect(
            Self.problem(pkcs8(curve: tlv(0x06, PasskeyPrivateKey.prime256v1OID) + [0x05, 0x00])) == .malformed(refused)
        )
    }

    @Test("keys of other algorithms are named, not guessed at")
    func unsupported() {
        let rsaOID: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01]
        let rsa: [UInt8] = [0x30, 0x14, 0x02, 0x01, 0x00, 0x30, 0x0D, 0x06, 0x09] + rsaOID + [0x05, 0x00, 0x04, 0x00]
        #expect(Self.problem(rsa) == .unsupported("an RSA key"))
        let p384: [UInt8] =
            [0x30, 0x17, 0x02, 0x01, 0x00, 0x30, 0x10, 0x06, 0x07] + PasskeyPrivateKey.ecPublicKeyOID
            + [0x06, 0x05, 0x2B, 0x81, 0x04, 0x00, 0x22, 0x04, 0x00]
        #expect(Self.problem(p384) == .unsupported("a key on the elliptic curve P-384"))
        let other: [UInt8] = [0x30, 0x0B, 0x02, 0x01, 0x00, 0x30, 0x04, 0x06, 0x02, 0x2A, 0x03, 0x04, 0x00]
        #expect(Self.problem(other) == .unsupported("a key of the algorithm 1.2.3"))
        #expect(
            "\(PasskeyPrivateKey.PKCS8Error.unsupported("an RSA key"))"
                == "its key is an RSA key, and swcred signs only with ES256 (P-256) and Ed25519")
    }

    @Test("malformed keys are refused, each naming what is wrong")
    func malformed() throws {
        let good = Self.bytes(try PasskeyPrivateKey.generate(.es256).pkcs8())
        let cases: [(String, [UInt8], String)] = [
            ("empty", [], "the key is missing"),
            ("truncated", Array(good.dropLast()), "an element is longer than what holds it"),
            ("trailing bytes", good + [0x00], "bytes follow the key"),
            (
                "version 2",
                {
                    var d = good; d[5] = 0x02; return d
                }(), "its version is not 0 or 1"
            ),
            (
                "non-minimal length", [0x30, 0x81, 0x03, 0x02, 0x01, 0x00],
                "an element's length is not in its shortest form (DER)"
            ),
            (
                "indefinite length", [0x30, 0x80, 0x00, 0x00],
                "an element's length is not a definite length of one to four bytes"
            ),
            // Four length bytes are the most DER takes here: four read as a length (too long for
            // what follows), five are refused before they are read.
            ("four length bytes", [0x30, 0x84, 0x01, 0x00, 0x00, 0x00], "an element is longer than what holds it"),
            (
                "five length bytes", [0x30, 0x85, 0x01, 0x00, 0x00, 0x00, 0x00],
                "an element's length is not a definite length of one to four bytes"
            ),
            ("a tag and no length", [0x30], "it ends inside an element's header"),
            ("two length bytes announced, one there", [0x30, 0x82, 0x01], "it ends inside an element's length"),
            ("not a sequence", [0x04, 0x01, 0x00], "the key is not where it should be"),
            (
                "ECPrivateKey version 2",
                {
                    var d = good; d[33] = 0x02; return d
                }(), "its ECPrivateKey's version is not 1"
            ),
        ]
        for (name, der, expected) in cases {
            #expect(Self.problem(der) == .malformed(expected), "\(name)")
        }
        // The scalar 0, and the group order n, are not keys.
        for scalar in [[UInt8](repeating: 0, count: 32), Self.p256Order] {
            var der = good
            der.replaceSubrange(36..<68, with: scalar)
            #expect(Self.problem(der) == .malformed("its private key is not a valid ES256 key"))
        }
        // A public key that is not the private key's.
        var mismatched = good
        mismatched[good.count - 1] ^= 0x01
        #expect(Self.problem(mismatched) == .malformed("the public key it carries is not its private key's"))
    }

    /// The order n of P-256.
    static let p256Order: [UInt8] = [
        0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
        0xBC, 0xE6, 0xFA, 0xAD, 0xA7, 0x17, 0x9E, 0x84, 0xF3, 0xB9, 0xCA, 0xC2, 0xFC, 0x63, 0x25, 0x51,
    ]
}

/// The P-256 scalar range check that replaced computing the public key on every read.
@Suite("P-256 private scalars: 1 to n - 1, checked without a point multiplication")
struct P256ScalarRangeTests {
    static func check(_ bytes: [UInt8]) -> Bool { bytes.withUnsafeBytes(PasskeyPrivateKey.isP256Scalar) }

    @Test("the edges agree with swift-crypto: 0 and n and above refused, 1 and n - 1 accepted")
    func edges() {
        let order = PasskeyPKCS8Tests.p256Order
        var belowOrder = order
        belowOrder[31] -= 1
        var aboveOrder = order
        aboveOrder[31] += 1
        let one = [UInt8](repeating: 0, count: 31) + [1]
        let cases: [([UInt8], Bool)] = [
            ([UInt8](repeating: 0, count: 32), false), (one, true), (belowOrder, true), (order, false),
            (aboveOrder, false), ([UInt8](repeating: 0xFF, count: 32), false),
            ([0xFF, 0xFF, 0xFF, 0xFF] + [UInt8](repeating: 0, count: 28), true),
        ]
        for (bytes, valid) in cases {
            #expect(Self.check(bytes) == valid, "\(bytes)")
            let crypto = bytes.withUnsafeBytes { (try? P256.Signing.PrivateKey(rawRepresentation: $0)) != nil }
            #expect(crypto == valid, "swift-crypto disagrees on \(bytes)")
        }
        #expect(!Self.check([UInt8](repeating: 1, count: 31)))
    }

    @Test("random scalars: the check and swift-crypto agree")
    func random() {
        for _ in 0..<2_000 {
            // Bias the top bytes toward n's, where the comparison is decided late.
            var bytes = (0..<32).map { _ in UInt8.random(in: 0...255) }
            if Bool.random() { bytes.replaceSubrange(0..<16, with: PasskeyPKCS8Tests.p256Order[0..<16]) }
            let crypto = bytes.withUnsafeBytes { (try? P256.Signing.PrivateKey(rawRepresentation: $0)) != nil }
            #expect(Self.check(bytes) == crypto, "\(bytes)")
        }
    }
}
