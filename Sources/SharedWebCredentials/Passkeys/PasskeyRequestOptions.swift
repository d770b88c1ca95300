/// WebAuthn Level 3's `PublicKeyCredentialRequestOptionsJSON`: what a relying party asks for when
/// a person signs in with a passkey. Decoded as strictly as ``PasskeyCreationOptions``.
public struct PasskeyRequestOptions: Sendable {
    /// `rpId`: required here (an app has no origin to default it from); not yet validated.
    public var rpID: String
    /// `challenge`: at least 16 bytes.
    public var challenge: [UInt8]
    /// `timeout` in milliseconds, if given.
    public var timeout: Int?
    /// `allowCredentials` of type `public-key`; empty means any discoverable credential of the RP.
    public var allowCredentials: [CredentialDescriptor]
    /// `userVerification`.
    public var userVerification: UserVerificationRequirement
    /// `hints`.
    public var hints: [String]

    private static let members: Set<String> = [
        "challenge", "timeout", "rpId", "allowCredentials", "userVerification", "hints", "extensions",
    ]

    /// Decodes the JSON text of the options.
    public init(json: [UInt8]) throws(WebAuthnError) {
        let options = try WebAuthnJSONReader.parse(json, path: "options")
        try options.requireOnly(Self.members)
        guard let rpID = try options.string("rpId") else {
            throw .type("options.rpId is required: an app has no web origin to take the RP ID from")
        }
        self.rpID = rpID
        challenge = try Challenge.read(options)
        timeout = try options.integer("timeout", in: 0...Int(UInt32.max))
        allowCredentials = try CredentialDescriptor.list(
            try options.array("allowCredentials"), path: "options.allowCredentials")
        userVerification = UserVerificationRequirement(member: try options.string("userVerification"))
        hints = try options.strings("hints")
        _ = try options.object("extensions")
    }
}
