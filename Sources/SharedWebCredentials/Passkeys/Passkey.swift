import Foundation

/// One passkey as the vault will keep it: the private key and everything the authenticator must
/// remember to answer for it (a discoverable credential: the user handle and names are kept).
public struct Passkey: Sendable {
    /// The credential ID the relying party stores (``credentialIDByteCount`` random bytes).
    public let credentialID: [UInt8]
    /// The relying party it belongs to; it can sign for no other.
    public let rpID: RelyingPartyID
    /// The relying party's user handle (`user.id`), returned as `userHandle` by every assertion.
    public let userHandle: [UInt8]
    /// `user.name` at creation (an account name, such as an e-mail address).
    public let userName: String
    /// `user.displayName` at creation.
    public let userDisplayName: String
    /// The private key and its algorithm.
    public let privateKey: PasskeyPrivateKey
    /// When it was created.
    public let created: Date

    /// The length of the credential IDs swcred makes: 16 random bytes, WebAuthn's minimum of
    /// entropy for an ID that is not an encrypted key handle (§6.1 asks for at least 16).
    public static let credentialIDByteCount = 16

    /// A passkey with every field given (from a creation, or read back from the vault).
    public init(
        credentialID: [UInt8], rpID: RelyingPartyID, userHandle: [UInt8], userName: String,
        userDisplayName: String, privateKey: PasskeyPrivateKey, created: Date
    ) {
        self.credentialID = credentialID
        self.rpID = rpID
        self.userHandle = userHandle
        self.userName = userName
        self.userDisplayName = userDisplayName
        self.privateKey = privateKey
        self.created = created
    }

    /// The algorithm of its key.
    public var algorithm: PasskeyAlgorithm { privateKey.algorithm }
}
