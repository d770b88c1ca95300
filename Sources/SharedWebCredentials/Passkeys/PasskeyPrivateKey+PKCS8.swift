import Foundation

/// A passkey's private key as a PKCS#8 `PrivateKeyInfo` (RFC 5208; RFC 5958's
/// `OneAsymmetricKey`), the form the Credential Exchange Format carries keys in.
///
/// Written as OpenSSL and Apple's CryptoKit write them: ES256 as an `ecPublicKey` on `prime256v1`
/// holding an RFC 5915 `ECPrivateKey` with its public key (138 bytes), Ed25519 as RFC 8410's
/// 48 bytes. Read strictly (DER, every length checked, nothing after the last field); what a
/// key may optionally carry (the curve again, a public key, attributes) is accepted, and a public
/// key that is not the private key's is refused.
extension PasskeyPrivateKey {
    /// Why a PKCS#8 key could not be read.
    public enum PKCS8Error: Error, Equatable, CustomStringConvertible {
        /// A well-formed key of an algorithm or curve swcred does not sign with, named ("an RSA
        /// key", "a key on the elliptic curve P-384").
        case unsupported(String)
        /// Not a PKCS#8 key swcred can read, and what is wrong.
        case malformed(String)

        public var description: String {
            switch self {
            case .unsupported(let what): "its key is \(what), and swcred signs only with ES256 (P-256) and Ed25519"
            case .malformed(let what): "its key is not a PKCS#8 private key: \(what)"
            }
        }
    }

    /// The key as DER PKCS#8, in locked memory.
    public func pkcs8() throws -> SecureBytes {
        switch algorithm {
        case .es256:
            let point = try publicKeyBytes()
            let publicKey = [0x04] + point.x + (point.y ?? [])
            return SecureBytes(count: Self.es256Prefix.count + 32 + Self.es256PublicKeyPrefix.count + 65) { buffer in
                var writer = PayloadWriter(buffer: buffer)
                writer.append(bytes: Self.es256Prefix)
                secret.withUnsafeBytes { writer.append(bytes: $0) }
                writer.append(bytes: Self.es256PublicKeyPrefix)
                writer.append(bytes: publicKey)
            }
        case .ed25519:
            return SecureBytes(count: Self.ed25519Prefix.count + 32) { buffer in
                var writer = PayloadWriter(buffer: buffer)
                writer.append(bytes: Self.ed25519Prefix)
                secret.withUnsafeBytes { writer.append(bytes: $0) }
            }
        }
    }

    /// Reads a DER PKCS#8 private key of ES256 (P-256) or Ed25519.
    public init(pkcs8 der: UnsafeRawBufferPointer) throws(PKCS8Error) {
        var outer = DERReader(der)
        var info = try outer.sequence("the key")
        guard outer.isAtEnd else { throw .malformed("bytes follow the key") }
        let version = try info.integer("its version")
        guard version == [0] || version == [1] else { throw .malformed("its version is not 0 or 1") }
        var algorithmIdentifier = try info.sequence("its algorithm")
        let algorithmOID = try algorithmIdentifier.element(tag: DERReader.objectIdentifier, "its algorithm")
        let secret: SecureBytes
        let algorithm: PasskeyAlgorithm
        var publicKeys: [[UInt8]] = []
        switch Array(algorithmOID) {
        case Self.ecPublicKeyOID:
            let curve = try algorithmIdentifier.element(tag: DERReader.objectIdentifier, "its curve")
            guard Array(curve) == Self.prime256v1OID else {
                throw .unsupported("a key on the elliptic curve \(Self.curveName(Array(curve)))")
            }
            algorithm = .es256
            var wrapper = DERReader(try info.element(tag: DERReader.octetString, "its private key"))
            var ecKey = try wrapper.sequence("its ECPrivateKey")
            guard wrapper.isAtEnd else { throw .malformed("bytes follow its ECPrivateKey") }
            guard try ecKey.integer("the ECPrivateKey's version") == [1] else {
                throw .malformed("its ECPrivateKey's version is not 1")
            }
            let scalar = try ecKey.element(tag: DERReader.octetString, "its private scalar")
            guard (1...32).contains(scalar.count) else {
                throw .malformed("its private scalar has \(scalar.count) bytes, not 32")
            }
            // Some encoders drop leading zero bytes of the scalar: put them back.
            secret = SecureBytes(count: 32) { buffer in
                var writer = PayloadWriter(buffer: buffer)
                writer.append(bytes: [UInt8](repeating: 0, count: 32 - scalar.count))
                writer.append(bytes: scalar)
            }
            if let parameters = try ecKey.optional(tag: 0xA0) {
                var inner = DERReader(parameters)
                guard Array(try inner.element(tag: DERReader.objectIdentifier, "its curve")) == Self.prime256v1OID,
                    inner.isAtEnd
                else { throw .malformed("its ECPrivateKey names another curve than its algorithm") }
            }
            if let wrapped = try ecKey.optional(tag: 0xA1) {
                var inner = DERReader(wrapped)
                publicKeys.append(try inner.bitString("its public key"))
                guard inner.isAtEnd else { throw .malformed("bytes follow its public key") }
            }
            guard ecKey.isAtEnd else { throw .malformed("its ECPrivateKey has unknown fields") }
        case Self.ed25519OID:
            guard algorithmIdentifier.isAtEnd else { throw .malformed("its Ed25519 algorithm has parameters") }
            algorithm = .ed25519
            var wrapper = DERReader(try info.element(tag: DERReader.octetString, "its private key"))
            let seed = try wrapper.element(tag: DERReader.octetString, "its Ed25519 seed")
            guard wrapper.isAtEnd, seed.count == 32 else {
                throw .malformed("its Ed25519 private key is not a 32-byte octet string")
            }
            secret = SecureBytes(copying: seed)
        default:
            throw .unsupported(Self.algorithmName(Array(algorithmOID)))
        }
        guard algorithmIdentifier.isAtEnd else { throw .malformed("its algorithm has unknown parameters") }
        _ = try info.optional(tag: 0xA0)  // attributes: nothing a passkey needs
        if let publicKey = try info.optional(tag: 0x81) {
            guard publicKey.first == 0 else { throw .malformed("its public key's bit string has unused bits") }
            publicKeys.append(Array(publicKey.dropFirst()))
        }
        guard info.isAtEnd else { throw .malformed("it has fields after its public key") }
        do {
            try self.init(algorithm: algorithm, secret: secret)
        } catch {
            throw .malformed("its private key is not a valid \(algorithm) key")
        }
        let point = try? publicKeyBytes()
        let expected = point.map { point in point.y.map { [0x04] + point.x + $0 } ?? point.x }
        guard publicKeys.allSatisfy({ $0 == expected }) else {
            throw .malformed("the public key it carries is not its private key's")
        }
    }

    // MARK: The fixed parts

    /// SEQUENCE { INTEGER 0, SEQUENCE { ecPublicKey, prime256v1 }, OCTET STRING { SEQUENCE {
    /// INTEGER 1, OCTET STRING (32 bytes follow)
    static let es256Prefix: [UInt8] =
        [0x30, 0x81, 0x87, 0x02, 0x01, 0x00, 0x30, 0x13, 0x06, 0x07] + ecPublicKeyOID + [0x06, 0x08]
        + prime256v1OID + [0x04, 0x6D, 0x30, 0x6B, 0x02, 0x01, 0x01, 0x04, 0x20]
    /// [1] { BIT STRING (no unused bits; the 65-byte uncompressed point follows) } } }
    static let es256PublicKeyPrefix: [UInt8] = [0xA1, 0x44, 0x03, 0x42, 0x00]
    /// SEQUENCE { INTEGER 0, SEQUENCE { Ed25519 }, OCTET STRING { OCTET STRING (32 bytes follow)
    static let ed25519Prefix: [UInt8] =
        [0x30, 0x2E, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03] + ed25519OID + [0x04, 0x22, 0x04, 0x20]

    /// 1.2.840.10045.2.1
    static let ecPublicKeyOID: [UInt8] = [0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01]
    /// 1.2.840.10045.3.1.7
    static let prime256v1OID: [UInt8] = [0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07]
    /// 1.3.101.112
    static let ed25519OID: [UInt8] = [0x2B, 0x65, 0x70]

    /// What an unsupported algorithm is, for the message.
    static func algorithmName(_ oid: [UInt8]) -> String {
        switch oid {
        case [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01]: "an RSA key"
        case [0x2B, 0x65, 0x71]: "an Ed448 key"
        case [0x2B, 0x65, 0x6E], [0x2B, 0x65, 0x6F]: "an X25519 or X448 key (for key agreement, not signatures)"
        default: "a key of the algorithm \(DERReader.dotted(oid))"
        }
    }

    /// What an unsupported curve is, for the message.
    static func curveName(_ oid: [UInt8]) -> String {
        switch oid {
        case [0x2B, 0x81, 0x04, 0x00, 0x22]: "P-384"
        case [0x2B, 0x81, 0x04, 0x00, 0x23]: "P-521"
        case [0x2B, 0x81, 0x04, 0x00, 0x0A]: "secp256k1"
        default: DERReader.dotted(oid)
        }
    }
}
