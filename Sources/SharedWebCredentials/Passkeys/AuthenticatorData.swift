import Crypto

/// The authenticator data of WebAuthn §6.1, and the attestation object around it at registration.
///
/// Layout: SHA-256 of the RP ID (32 bytes), flags (1), signature counter (4, big-endian), then at
/// registration the attested credential data: AAGUID (16), credential ID length (2, big-endian),
/// credential ID, and the credential's public key as a COSE_Key.
public enum AuthenticatorData {
    /// swcred's AAGUID: all zeros. Its attestation is `none`, and for `none` WebAuthn clients
    /// replace the AAGUID with 16 zero bytes anyway; an unattested project UUID would prove nothing
    /// and would only let sites single out swcred's users. Apple's iCloud Keychain passkeys report
    /// zeros too.
    public static let aaguid = [UInt8](repeating: 0, count: 16)

    /// The signature counter swcred reports: always 0, as Apple's synced passkeys do. A counter
    /// cannot stay monotonic across copies of a credential (an export, two vaults, a restored
    /// backup), and WebAuthn lets an authenticator that does not count send 0, which relying
    /// parties then do not compare.
    public static let signCount: UInt32 = 0

    /// The credential-creation part: the key's identity as the relying party will store it.
    public struct AttestedCredential: Sendable {
        /// The credential ID (16 to 1023 bytes).
        public var credentialID: [UInt8]
        /// The public key as a COSE_Key.
        public var cosePublicKey: [UInt8]

        /// Both parts.
        public init(credentialID: [UInt8], cosePublicKey: [UInt8]) {
            self.credentialID = credentialID
            self.cosePublicKey = cosePublicKey
        }
    }

    /// SHA-256 of the RP ID's text: the first 32 bytes of authenticator data.
    public static func rpIDHash(_ rpID: RelyingPartyID) -> [UInt8] {
        Array(SHA256.hash(data: Array(rpID.value.utf8)))
    }

    /// Authenticator data for `rpID` with the signals' flags; AT is set exactly when `attested`
    /// is given (registration), which then follows the counter.
    public static func encode(
        rpID: RelyingPartyID, signals: AuthenticatorSignals, attested: AttestedCredential?
    ) -> [UInt8] {
        var flags = signals.flags
        if attested != nil { flags.insert(.attestedCredentialData) }
        var bytes = rpIDHash(rpID)
        bytes.append(flags.rawValue)
        bytes += withUnsafeBytes(of: signCount.bigEndian, Array.init)
        if let attested {
            precondition((16...1023).contains(attested.credentialID.count), "credential ID length out of range")
            bytes += aaguid
            bytes += withUnsafeBytes(of: UInt16(attested.credentialID.count).bigEndian, Array.init)
            bytes += attested.credentialID
            bytes += attested.cosePublicKey
        }
        return bytes
    }

    /// The attestation object for attestation `none` (WebAuthn §6.5.4 and §8.7): the CBOR map
    /// `{"fmt": "none", "attStmt": {}, "authData": <authenticator data>}`.
    public static func attestationObject(authenticatorData: [UInt8]) -> [UInt8] {
        CBOR.map([
            (.text("fmt"), .text("none")),
            (.text("attStmt"), .map([])),
            (.text("authData"), .bytes(authenticatorData)),
        ]).encoded
    }
}
