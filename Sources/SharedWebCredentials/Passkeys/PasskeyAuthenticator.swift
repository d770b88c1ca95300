import Foundation

/// swcred's WebAuthn authenticator and client in one, with no storage: it creates passkeys and
/// signs assertions in memory, and the caller keeps the ``Passkey`` records (sealed with
/// ``PasskeyPayload``) and supplies those of the relying party on each call.
///
/// Everything the platform decides is decided here from the caller's trusted inputs, never from
/// the relying party's options: the RP ID must be one the app is approved for
/// (``RelyingPartyPolicy``), the `origin` comes from the app's identity (``PasskeyClient``), and
/// the flags from ``AuthenticatorSignals``. Attestation is always `none`, the AAGUID
/// ``AuthenticatorData/aaguid`` (zeros) and the counter ``AuthenticatorData/signCount`` (0).
public enum PasskeyAuthenticator {
    /// A new passkey and the response the app hands its relying party.
    public struct Registration: Sendable {
        /// The passkey to seal into the vault.
        public let passkey: Passkey
        /// `RegistrationResponseJSON`.
        public let response: RegistrationResponseJSON
    }

    /// A validated RP ID the app may act for, or `SecurityError`.
    ///
    /// - Parameters:
    ///   - rpID: the RP ID of the options.
    ///   - client: the calling app.
    ///   - approvedDomains: the hosts the gate has approved the app for (see ``RelyingPartyPolicy``).
    public static func authorizedRelyingParty(
        _ rpID: String, client: PasskeyClient, approvedDomains: some Sequence<String>,
        publicSuffixes: PublicSuffixList = .embedded
    ) throws(WebAuthnError) -> RelyingPartyID {
        let relyingParty = try RelyingPartyID(rpID, publicSuffixes: publicSuffixes)
        try RelyingPartyPolicy.requireAllowed(relyingParty, approvedDomains: approvedDomains, app: client.appName)
        return relyingParty
    }

    /// Creates a passkey (`navigator.credentials.create`), checking in WebAuthn's order: the RP ID,
    /// the algorithms, the attachment, the exclude list, then user verification.
    ///
    /// - Parameters:
    ///   - options: the relying party's creation options.
    ///   - client: the calling app, from its registration; it decides the origin.
    ///   - approvedDomains: the hosts the gate has approved the app for.
    ///   - existing: the passkeys the vault holds (those of other RPs are ignored): one named by
    ///     `excludeCredentials` refuses the creation with `InvalidStateError`.
    ///   - signals: presence, verification and backup state, which set the flags.
    ///   - now: the creation date to record.
    public static func create(
        options: PasskeyCreationOptions, client: PasskeyClient, approvedDomains: some Sequence<String>,
        existing: [Passkey], signals: AuthenticatorSignals, publicSuffixes: PublicSuffixList = .embedded,
        now: Date = Date()
    ) throws(WebAuthnError) -> Registration {
        let rpID = try authorizedRelyingParty(
            options.rpID, client: client, approvedDomains: approvedDomains, publicSuffixes: publicSuffixes)
        guard let algorithm = PasskeyAlgorithm.preferred(among: options.algorithms) else {
            throw WebAuthnError(
                .notSupported, .invalidInput,
                "none of the requested algorithms \(options.algorithms) is supported; swcred supports ES256 (-7) and EdDSA (-8)"
            )
        }
        if options.authenticatorAttachment == "cross-platform" {
            throw WebAuthnError(
                .notAllowed, .invalidInput,
                "the relying party asks for a cross-platform (roaming) authenticator; swcred is a platform one")
        }
        let excluded = Set(options.excludeCredentials.map(\.id))
        if existing.contains(where: { $0.rpID == rpID && excluded.contains($0.credentialID) }) {
            throw WebAuthnError(
                .invalidState, .invalidInput,
                "a passkey for \(rpID.value) named in excludeCredentials already exists in the vault")
        }
        try requireVerification(options.userVerification, signals: signals)

        let privateKey = PasskeyPrivateKey.generate(algorithm)
        let credentialID = RandomBytes.array(count: Passkey.credentialIDByteCount)
        let passkey = Passkey(
            credentialID: credentialID, rpID: rpID, userHandle: options.userHandle, userName: options.userName,
            userDisplayName: options.userDisplayName, privateKey: privateKey, created: now)
        do {
            let authenticatorData = AuthenticatorData.encode(
                rpID: rpID, signals: signals,
                attested: .init(credentialID: credentialID, cosePublicKey: try privateKey.cosePublicKey()))
            let clientData = ClientData.json(
                ceremony: .create, challenge: options.challenge, origin: client.origin(for: rpID))
            let id = Base64URL.encode(credentialID)
            let response = RegistrationResponseJSON(
                id: id, rawId: id,
                response: .init(
                    clientDataJSON: Base64URL.encode(clientData),
                    attestationObject: Base64URL.encode(
                        AuthenticatorData.attestationObject(authenticatorData: authenticatorData)),
                    authenticatorData: Base64URL.encode(authenticatorData),
                    publicKey: Base64URL.encode(try SubjectPublicKeyInfo.der(of: privateKey)),
                    publicKeyAlgorithm: algorithm.rawValue, transports: ["internal"]),
                authenticatorAttachment: "platform", clientExtensionResults: [:], type: "public-key")
            return Registration(passkey: passkey, response: response)
        } catch {
            throw WebAuthnError(.notAllowed, .internalError, "the new key could not be used: \(error)")
        }
    }

    /// The passkeys that can answer a request for `rpID`: those of the RP, and when
    /// `allowCredentials` is not empty, only those it names (else every one: discoverable).
    public static func matching(
        _ options: PasskeyRequestOptions, rpID: RelyingPartyID, among passkeys: [Passkey]
    ) -> [Passkey] {
        let allowed = Set(options.allowCredentials.map(\.id))
        return passkeys.filter { $0.rpID == rpID && (allowed.isEmpty || allowed.contains($0.credentialID)) }
    }

    /// Signs in with a passkey (`navigator.credentials.get`).
    ///
    /// - Parameters:
    ///   - options: the relying party's request options.
    ///   - client: the calling app, from its registration; it decides the origin.
    ///   - approvedDomains: the hosts the gate has approved the app for.
    ///   - passkeys: the vault's passkeys (those of other RPs are ignored).
    ///   - signals: presence, verification and backup state, which set the flags.
    ///   - choose: picks one of the matching passkeys (never empty), as a picker would; nil when
    ///     the person declines.
    /// - Throws: `SecurityError` for an RP ID the app may not use; `NotAllowedError` when no
    ///   passkey matches (item-not-found), the person declines (declined) or verification is
    ///   required and absent (declined).
    public static func get(
        options: PasskeyRequestOptions, client: PasskeyClient, approvedDomains: some Sequence<String>,
        passkeys: [Passkey], signals: AuthenticatorSignals, publicSuffixes: PublicSuffixList = .embedded,
        choose: ([Passkey]) -> Passkey?
    ) throws(WebAuthnError) -> AuthenticationResponseJSON {
        let rpID = try authorizedRelyingParty(
            options.rpID, client: client, approvedDomains: approvedDomains, publicSuffixes: publicSuffixes)
        try requireVerification(options.userVerification, signals: signals)
        let candidates = matching(options, rpID: rpID, among: passkeys)
        guard !candidates.isEmpty else {
            throw WebAuthnError(.notAllowed, .itemNotFound, "no passkey for \(rpID.value) matches the request")
        }
        guard let passkey = choose(candidates) else {
            throw WebAuthnError(.notAllowed, .declined, "no passkey was chosen")
        }
        guard candidates.contains(where: { $0.credentialID == passkey.credentialID && $0.rpID == passkey.rpID }) else {
            throw WebAuthnError(.notAllowed, .internalError, "the chosen passkey is not one of those offered")
        }
        let authenticatorData = AuthenticatorData.encode(rpID: rpID, signals: signals, attested: nil)
        let clientData = ClientData.json(ceremony: .get, challenge: options.challenge, origin: client.origin(for: rpID))
        let signature: [UInt8]
        do {
            signature = try passkey.privateKey.signature(for: authenticatorData + ClientData.hash(clientData))
        } catch {
            throw WebAuthnError(.notAllowed, .internalError, "the passkey's key could not sign: \(error)")
        }
        let id = Base64URL.encode(passkey.credentialID)
        return AuthenticationResponseJSON(
            id: id, rawId: id,
            response: .init(
                clientDataJSON: Base64URL.encode(clientData), authenticatorData: Base64URL.encode(authenticatorData),
                signature: Base64URL.encode(signature), userHandle: Base64URL.encode(passkey.userHandle)),
            authenticatorAttachment: "platform", clientExtensionResults: [:], type: "public-key")
    }

    /// `NotAllowedError` (declined) when the relying party requires verification and nothing
    /// verified the person.
    private static func requireVerification(
        _ requirement: UserVerificationRequirement, signals: AuthenticatorSignals
    ) throws(WebAuthnError) {
        if requirement == .required, signals.verification == nil {
            throw WebAuthnError(
                .notAllowed, .declined,
                "the relying party requires user verification, and nothing verified the person for this request")
        }
    }
}
