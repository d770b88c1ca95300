import Foundation

/// WebAuthn Level 3's `RegistrationResponseJSON`: what `PublicKeyCredential.toJSON()` gives after
/// a creation, which the app sends to its relying party. Binary members are unpadded base64url.
public struct RegistrationResponseJSON: Encodable, Sendable, Equatable {
    /// `AuthenticatorAttestationResponseJSON`.
    public struct Response: Encodable, Sendable, Equatable {
        /// `clientDataJSON`.
        public let clientDataJSON: String
        /// The attestation object (format `none`).
        public let attestationObject: String
        /// The authenticator data inside it, for relying parties that do not parse CBOR.
        public let authenticatorData: String
        /// The public key as DER SubjectPublicKeyInfo.
        public let publicKey: String
        /// The COSE algorithm of the key.
        public let publicKeyAlgorithm: Int
        /// `["internal"]`: swcred is a platform authenticator.
        public let transports: [String]
    }

    /// The credential ID, base64url.
    public let id: String
    /// The same, as `rawId`.
    public let rawId: String
    /// The attestation response.
    public let response: Response
    /// `platform`.
    public let authenticatorAttachment: String
    /// `{}`: no client extension is supported.
    public let clientExtensionResults: [String: String]
    /// `public-key`.
    public let type: String

    /// The JSON text, members sorted.
    public func jsonBytes() -> [UInt8] { WebAuthnJSONWriter.encode(self) }
}

/// WebAuthn Level 3's `AuthenticationResponseJSON`: what `PublicKeyCredential.toJSON()` gives after
/// a sign-in.
public struct AuthenticationResponseJSON: Encodable, Sendable, Equatable {
    /// `AuthenticatorAssertionResponseJSON`.
    public struct Response: Encodable, Sendable, Equatable {
        /// `clientDataJSON`.
        public let clientDataJSON: String
        /// The authenticator data that was signed.
        public let authenticatorData: String
        /// The signature over authenticator data and SHA-256 of `clientDataJSON`.
        public let signature: String
        /// The user handle stored with the credential.
        public let userHandle: String
    }

    /// The credential ID, base64url.
    public let id: String
    /// The same, as `rawId`.
    public let rawId: String
    /// The assertion response.
    public let response: Response
    /// `platform`.
    public let authenticatorAttachment: String
    /// `{}`.
    public let clientExtensionResults: [String: String]
    /// `public-key`.
    public let type: String

    /// The JSON text, members sorted.
    public func jsonBytes() -> [UInt8] { WebAuthnJSONWriter.encode(self) }
}

enum WebAuthnJSONWriter {
    static func encode(_ value: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Only strings, integers, arrays and a string dictionary: encoding cannot fail.
        return [UInt8](try! encoder.encode(value))
    }
}

/// DER SubjectPublicKeyInfo (RFC 5480, RFC 8410) of a passkey's public key, for `publicKey`.
enum SubjectPublicKeyInfo {
    /// SEQUENCE { SEQUENCE { id-ecPublicKey, prime256v1 }, BIT STRING 04 || x || y }.
    private static let p256Prefix: [UInt8] = [
        0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01, 0x06, 0x08, 0x2A, 0x86, 0x48,
        0xCE, 0x3D, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00, 0x04,
    ]
    /// SEQUENCE { SEQUENCE { id-Ed25519 }, BIT STRING key }.
    private static let ed25519Prefix: [UInt8] = [
        0x30, 0x2A, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x03, 0x21, 0x00,
    ]

    static func der(of key: PasskeyPrivateKey) throws -> [UInt8] {
        let publicKey = try key.publicKeyBytes()
        switch key.algorithm {
        case .es256: return p256Prefix + publicKey.x + (publicKey.y ?? [])
        case .ed25519: return ed25519Prefix + publicKey.x
        }
    }
}
