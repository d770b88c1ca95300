/// WebAuthn Level 3's `PublicKeyCredentialCreationOptionsJSON`: what a relying party asks for
/// when it registers a passkey, as an app hands it over.
///
/// Decoded strictly: the JSON is I-JSON (no repeated member), every member the shape defines has
/// its type, binary members are canonical unpadded base64url, and a member the shape does not
/// define is refused (`TypeError`) at every level but inside `extensions`, whose content is
/// ignored (swcred supports no extension and answers `clientExtensionResults: {}`). Browsers
/// ignore unknown members instead; refusing them catches a misspelt `excludeCredentials`
/// before it silently allows a duplicate. Enumerated strings (`userVerification`, `residentKey`,
/// `attestation`, ...) with unknown values count as their defaults, as WebAuthn says.
public struct PasskeyCreationOptions: Sendable {
    /// `rp.id`: required here (an app has no origin to default it from); not yet validated.
    public var rpID: String
    /// `rp.name`.
    public var rpName: String
    /// `user.id`: the user handle, 1 to 64 bytes.
    public var userHandle: [UInt8]
    /// `user.name`.
    public var userName: String
    /// `user.displayName`.
    public var userDisplayName: String
    /// `challenge`: at least 16 bytes.
    public var challenge: [UInt8]
    /// The COSE algorithms of `pubKeyCredParams` of type `public-key`, in the relying party's
    /// order; an empty list means ES256 and RS256, WebAuthn's default.
    public var algorithms: [Int]
    /// `timeout` in milliseconds, if given.
    public var timeout: Int?
    /// `excludeCredentials` of type `public-key`.
    public var excludeCredentials: [CredentialDescriptor]
    /// `authenticatorSelection.authenticatorAttachment`, if given.
    public var authenticatorAttachment: String?
    /// `authenticatorSelection.residentKey` (or `requireResidentKey`); swcred's passkeys are
    /// always discoverable, which meets every value.
    public var residentKey: String?
    /// `authenticatorSelection.userVerification`.
    public var userVerification: UserVerificationRequirement
    /// `attestation`; swcred answers `none` whatever is asked, which WebAuthn allows.
    public var attestation: String
    /// `hints`.
    public var hints: [String]

    private static let members: Set<String> = [
        "rp", "user", "challenge", "pubKeyCredParams", "timeout", "excludeCredentials", "authenticatorSelection",
        "hints", "attestation", "attestationFormats", "extensions",
    ]

    /// Decodes the JSON text of the options.
    public init(json: [UInt8]) throws(WebAuthnError) {
        let options = try WebAuthnJSONReader.parse(json, path: "options")
        try options.requireOnly(Self.members)

        guard let rp = try options.object("rp") else { throw .type("options.rp is required") }
        try rp.requireOnly(["id", "name"])
        guard let rpID = try rp.string("id") else {
            throw .type("options.rp.id is required: an app has no web origin to take the RP ID from")
        }
        self.rpID = rpID
        rpName = try rp.requiredString("name")

        guard let user = try options.object("user") else { throw .type("options.user is required") }
        try user.requireOnly(["id", "name", "displayName"])
        userHandle = try user.requiredBytes("id")
        guard (1...64).contains(userHandle.count) else {
            throw .type("options.user.id has \(userHandle.count) bytes; a user handle has 1 to 64")
        }
        userName = try user.requiredString("name")
        userDisplayName = try user.requiredString("displayName")

        challenge = try Challenge.read(options)

        guard let parameters = try options.array("pubKeyCredParams") else {
            throw .type("options.pubKeyCredParams is required")
        }
        var algorithms: [Int] = []
        for (index, item) in parameters.enumerated() {
            let parameter = try WebAuthnJSONReader(item, path: "options.pubKeyCredParams[\(index)]")
            try parameter.requireOnly(["type", "alg"])
            let type = try parameter.requiredString("type")
            guard let alg = try parameter.integer("alg", in: Int(Int32.min)...Int(Int32.max)) else {
                throw .type("\(parameter.path).alg is required")
            }
            if type == "public-key" { algorithms.append(alg) }
        }
        self.algorithms = parameters.isEmpty ? [PasskeyAlgorithm.es256.rawValue, -257] : algorithms

        timeout = try options.integer("timeout", in: 0...Int(UInt32.max))
        excludeCredentials = try CredentialDescriptor.list(
            try options.array("excludeCredentials"), path: "options.excludeCredentials")

        let selection = try options.object("authenticatorSelection")
        try selection?.requireOnly(["authenticatorAttachment", "residentKey", "requireResidentKey", "userVerification"])
        authenticatorAttachment = try selection?.string("authenticatorAttachment")
        let requireResidentKey = try selection?.bool("requireResidentKey")
        residentKey = try selection?.string("residentKey") ?? (requireResidentKey == true ? "required" : nil)
        userVerification = UserVerificationRequirement(member: try selection?.string("userVerification"))

        hints = try options.strings("hints")
        attestation = try options.string("attestation") ?? "none"
        _ = try options.strings("attestationFormats")
        _ = try options.object("extensions")
    }
}
