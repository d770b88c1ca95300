import Crypto
import Foundation

/// A passkey's private key: 32 bytes in locked memory (``SecureBytes``) and its algorithm.
///
/// swift-crypto's key objects are made from the bytes only for the moment of one signature or of
/// reading the public key, straight from the locked buffer (no `Data` copy of the secret on
/// swcred's side); what BoringSSL keeps inside those objects is freed, not wiped, by it.
public struct PasskeyPrivateKey: Sendable {
    /// The signature algorithm.
    public let algorithm: PasskeyAlgorithm
    /// The P-256 scalar (big-endian) or the Ed25519 seed.
    public let secret: SecureBytes

    /// A key from stored bytes; throws integrity-failure unless they are a valid key of the
    /// algorithm (32 bytes; for P-256 a scalar in 1..<n).
    public init(algorithm: PasskeyAlgorithm, secret: SecureBytes) throws {
        guard secret.count == algorithm.privateKeyByteCount else {
            throw SharedWebCredentialsError(
                .integrityFailure,
                "a passkey's private key has \(secret.count) bytes, not \(algorithm.privateKeyByteCount)")
        }
        self.algorithm = algorithm
        self.secret = secret
        // Every 32 bytes are an Ed25519 seed; a P-256 scalar must be in 1..<n. Checked without
        // computing the public key: a point multiplication on every read of a passkey was a
        // tenth of an assertion's time.
        guard algorithm == .ed25519 || secret.withUnsafeBytes(Self.isP256Scalar) else {
            throw SharedWebCredentialsError(
                .integrityFailure, "a passkey's private key is not a valid \(algorithm) key")
        }
    }

    /// The order n of the P-256 group, big-endian.
    private static let p256Order: [UInt8] = [
        0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
        0xBC, 0xE6, 0xFA, 0xAD, 0xA7, 0x17, 0x9E, 0x84, 0xF3, 0xB9, 0xCA, 0xC2, 0xFC, 0x63, 0x25, 0x51,
    ]

    /// Whether 32 big-endian bytes are a P-256 private scalar (1 ≤ k < n), in time that does not
    /// depend on their value: `k - n` borrows exactly when k < n, and no byte is set only for 0.
    static func isP256Scalar(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count == 32 else { return false }
        var borrow: UInt16 = 0
        var any: UInt8 = 0
        for index in stride(from: 31, through: 0, by: -1) {
            let difference = UInt16(bytes[index]) &- UInt16(p256Order[index]) &- borrow
            borrow = (difference >> 8) & 1
            any |= bytes[index]
        }
        return borrow == 1 && any != 0
    }

    /// A new key from libsodium's CSPRNG. (A P-256 scalar outside 1..<n, odds about 2^-32, is
    /// drawn again.)
    public static func generate(_ algorithm: PasskeyAlgorithm) -> PasskeyPrivateKey {
        while true {
            let secret = SecureBytes.random(count: algorithm.privateKeyByteCount)
            if let key = try? PasskeyPrivateKey(algorithm: algorithm, secret: secret) { return key }
        }
    }

    /// The public key: for ES256 the uncompressed point's x and y (32 bytes each), for Ed25519
    /// the 32-byte public key.
    func publicKeyBytes() throws -> (x: [UInt8], y: [UInt8]?) {
        try secret.withUnsafeBytes { bytes in
            switch algorithm {
            case .es256:
                let point = [UInt8](try P256.Signing.PrivateKey(rawRepresentation: bytes).publicKey.x963Representation)
                return (Array(point[1..<33]), Array(point[33..<65]))
            case .ed25519:
                return (
                    [UInt8](try Curve25519.Signing.PrivateKey(rawRepresentation: bytes).publicKey.rawRepresentation),
                    nil
                )
            }
        }
    }

    /// The public key as a COSE_Key (RFC 9052/9053) in deterministic CBOR: ES256 is
    /// `{1: 2 (EC2), 3: -7, -1: 1 (P-256), -2: x, -3: y}`, Ed25519 `{1: 1 (OKP), 3: -8,
    /// -1: 6 (Ed25519), -2: x}`.
    public func cosePublicKey() throws -> [UInt8] {
        let key = try publicKeyBytes()
        var entries: [(CBOR, CBOR)] = [
            (.integer(3), .integer(Int64(algorithm.rawValue))), (.integer(-2), .bytes(key.x)),
        ]
        switch algorithm {
        case .es256:
            entries += [(.integer(1), .integer(2)), (.integer(-1), .integer(1)), (.integer(-3), .bytes(key.y ?? []))]
        case .ed25519:
            entries += [(.integer(1), .integer(1)), (.integer(-1), .integer(6))]
        }
        return CBOR.map(entries).encoded
    }

    /// The signature of `message` as WebAuthn wants it: ES256 as an ASN.1 DER `Ecdsa-Sig-Value`
    /// over SHA-256 of the message, Ed25519 as its raw 64 bytes.
    public func signature(for message: [UInt8]) throws -> [UInt8] {
        try secret.withUnsafeBytes { bytes in
            switch algorithm {
            case .es256:
                [UInt8](try P256.Signing.PrivateKey(rawRepresentation: bytes).signature(for: message).derRepresentation)
            case .ed25519:
                [UInt8](try Curve25519.Signing.PrivateKey(rawRepresentation: bytes).signature(for: message))
            }
        }
    }
}
