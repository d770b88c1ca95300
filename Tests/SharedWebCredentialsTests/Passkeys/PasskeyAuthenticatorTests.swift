import Foundation
import Testing

@testable import SharedWebCredentials

@Suite("Passkey authenticator: what it refuses and what it writes")
struct PasskeyAuthenticatorTests {
    typealias Support = PasskeyTestSupport

    static func createError(
        _ json: [UInt8], client: PasskeyClient = Support.apple, existing: [Passkey] = [],
        signals: AuthenticatorSignals = Support.verified
    ) -> WebAuthnError? {
        Support.webAuthnError {
            _ = try PasskeyAuthenticator.create(
                options: try PasskeyCreationOptions(json: json), client: client, approvedDomains: Support.approved,
                existing: existing, signals: signals)
        }
    }

    static func getError(
        _ json: [UInt8], passkeys: [Passkey], signals: AuthenticatorSignals = Support.verified,
        choose: ([Passkey]) -> Passkey? = { $0.first }
    ) -> WebAuthnError? {
        Support.webAuthnError {
            _ = try PasskeyAuthenticator.get(
                options: try PasskeyRequestOptions(json: json), client: Support.apple,
                approvedDomains: Support.approved, passkeys: passkeys, signals: signals, choose: choose)
        }
    }

    @Test("only unsupported algorithms is NotSupportedError; an empty list means ES256")
    func unsupportedAlgorithms() throws {
        let error = try #require(Self.createError(Support.creationJSON(algorithms: [-257, -35, -36])))
        #expect(error.name == .notSupported)
        #expect(error.code.exitStatus == 2)
        let registration = try PasskeyAuthenticator.create(
            options: try PasskeyCreationOptions(json: Support.creationJSON(algorithms: [])), client: Support.apple,
            approvedDomains: Support.approved, existing: [], signals: Support.verified)
        #expect(registration.passkey.algorithm == .es256)
        #expect(registration.response.response.publicKeyAlgorithm == -7)
    }

    @Test("a credential of excludeCredentials that exists for the RP is InvalidStateError; one of another RP is not")
    func excludeList() throws {
        let existing = try Support.register().passkey
        let error = try #require(
            Self.createError(
                Support.creationJSON(exclude: [Array(repeating: 9, count: 16), existing.credentialID]),
                existing: [existing]))
        #expect(error.name == .invalidState)
        // Listed but absent from the vault: created.
        #expect(Self.createError(Support.creationJSON(exclude: [existing.credentialID]), existing: []) == nil)
        // The same ID held for another RP does not block this one.
        let elsewhere = Passkey(
            credentialID: existing.credentialID, rpID: try RelyingPartyID("other.example.org"),
            userHandle: existing.userHandle, userName: "a", userDisplayName: "A", privateKey: existing.privateKey,
            created: existing.created)
        #expect(Self.createError(Support.creationJSON(exclude: [existing.credentialID]), existing: [elsewhere]) == nil)
    }

    @Test("an RP ID the app is not approved for, or that is a public suffix, is SecurityError")
    func relyingPartyRefused() throws {
        for rpID in ["example.com", "evil.example", "com", "github.io", "127.0.0.1"] {
            let error = try #require(Self.createError(Support.creationJSON(rpID: rpID)), "\(rpID)")
            #expect(error.name == .security, "\(rpID)")
            let passkey = try Support.register().passkey
            #expect(Self.getError(Support.requestJSON(rpID: rpID), passkeys: [passkey])?.name == .security)
        }
        #expect(Self.createError(Support.creationJSON(rpID: "example.com"))?.code == .notApproved)
    }

    @Test("required user verification without a verifier is NotAllowedError (declined)")
    func verificationRequired() throws {
        let unverified = AuthenticatorSignals(presence: .ownerConsented, verification: nil, backup: .eligible)
        let error = try #require(
            Self.createError(Support.creationJSON(userVerification: "required"), signals: unverified))
        #expect(error.name == .notAllowed)
        #expect(error.code == .declined)
        #expect(Self.createError(Support.creationJSON(userVerification: "preferred"), signals: unverified) == nil)
        let passkey = try Support.register().passkey
        #expect(
            Self.getError(Support.requestJSON(userVerification: "required"), passkeys: [passkey], signals: unverified)?
                .code == .declined)
    }

    @Test("a cross-platform attachment request is NotAllowedError")
    func crossPlatform() throws {
        let json = Support.creationJSON(extra: ["authenticatorSelection": ["authenticatorAttachment": "cross-platform"]]
        )
        #expect(Self.createError(json)?.name == .notAllowed)
    }

    @Test(
        "no matching credential, or none chosen, is NotAllowedError; allowCredentials narrows the choice; another site's passkey is never offered"
    )
    func matching() throws {
        let first = try Support.register().passkey
        let second = try Support.register(algorithms: [-8]).passkey
        let noMatch = try #require(
            Self.getError(Support.requestJSON(allow: [Array(repeating: 3, count: 16)]), passkeys: [first, second]))
        #expect(noMatch.name == .notAllowed)
        #expect(noMatch.code == .itemNotFound)
        #expect(Self.getError(Support.requestJSON(), passkeys: [])?.code == .itemNotFound)
        #expect(Self.getError(Support.requestJSON(), passkeys: [first], choose: { _ in nil })?.code == .declined)
        var offered: [[UInt8]] = []
        _ = Self.getError(Support.requestJSON(allow: [second.credentialID]), passkeys: [first, second]) {
            offered = $0.map(\.credentialID)
            return $0.first
        }
        #expect(offered == [second.credentialID])
        _ = Self.getError(Support.requestJSON(), passkeys: [first, second]) {
            offered = $0.map(\.credentialID)
            return $0.first
        }
        #expect(offered == [first.credentialID, second.credentialID])
        // Another site's passkey is never offered, even when allowCredentials names it.
        let elsewhere = try Support.register(rpID: "other.example.org").passkey
        _ = Self.getError(Support.requestJSON(), passkeys: [elsewhere, first]) {
            offered = $0.map(\.credentialID)
            return $0.first
        }
        #expect(offered == [first.credentialID])
        let otherSite = Self.getError(
            Support.requestJSON(allow: [elsewhere.credentialID]), passkeys: [first, elsewhere])
        #expect(otherSite?.code == .itemNotFound)
        // A passkey from outside the offered ones is refused.
        let stranger = try Support.register().passkey
        #expect(Self.getError(Support.requestJSON(), passkeys: [first], choose: { _ in stranger })?.name == .notAllowed)
    }

    @Test(
        "authenticator data: RP ID hash, flags from the signals only, counter 0, zero AAGUID, a 16-byte credential ID")
    func authenticatorDataLayout() throws {
        let registration = try Support.register(
            signals: AuthenticatorSignals(presence: .absent, verification: nil, backup: .notEligible))
        let data = Support.unb64(registration.response.response.authenticatorData)
        let rpID = try RelyingPartyID(Support.rpID)
        #expect(Array(data[0..<32]) == AuthenticatorData.rpIDHash(rpID))
        #expect(data[32] == 0x40)  // AT only: no presence, no verification, no backup
        #expect(Array(data[33..<37]) == [0, 0, 0, 0])
        #expect(Array(data[37..<53]) == Array(repeating: 0, count: 16))
        #expect(Array(data[53..<55]) == [0, 16])
        #expect(Array(data[55..<71]) == registration.passkey.credentialID)
        #expect(Array(data[71...]) == (try registration.passkey.privateKey.cosePublicKey()))
        #expect(registration.response.id == registration.response.rawId)
        #expect(registration.response.authenticatorAttachment == "platform")
        #expect(registration.response.response.transports == ["internal"])

        let cases: [(AuthenticatorSignals, UInt8)] = [
            (AuthenticatorSignals(presence: .ownerConsented, verification: nil, backup: .notEligible), 0x01),
            (AuthenticatorSignals(presence: .standingConsent, verification: nil, backup: .eligible), 0x09),
            (AuthenticatorSignals(presence: .ownerConsented, verification: .ownerPassphrase, backup: .backedUp), 0x1D),
            (AuthenticatorSignals(presence: .absent, verification: .ownerPassphrase, backup: .notEligible), 0x04),
        ]
        for (signals, flags) in cases {
            let encoded = AuthenticatorData.encode(rpID: rpID, signals: signals, attested: nil)
            #expect(encoded.count == 37)
            #expect(encoded[32] == flags, "\(signals)")
        }
    }

    @Test("credential IDs are 16 fresh random bytes")
    func credentialIDs() throws {
        var seen = Set<[UInt8]>()
        var bytesSeen = Set<UInt8>()
        for _ in 0..<32 {
            let id = try Support.register().passkey.credentialID
            #expect(id.count == 16)
            seen.insert(id)
            bytesSeen.formUnion(id)
        }
        #expect(seen.count == 32)
        #expect(bytesSeen.count > 200)
    }

    @Test("clientDataJSON is the platform's serialisation, its origin from the app's identity")
    func clientDataJSON() throws {
        let challenge = Array(repeating: UInt8(0xFB), count: 16)
        let apple = try Support.register(client: Support.apple, challenge: challenge)
        #expect(
            String(decoding: Support.unb64(apple.response.response.clientDataJSON), as: UTF8.self)
                == #"{"type":"webauthn.create","challenge":"-_v7-_v7-_v7-_v7-_v7-w","origin":"https://login.example.com","crossOrigin":false}"#
        )
        let android = try Support.register(client: Support.android, challenge: challenge)
        #expect(
            String(decoding: Support.unb64(android.response.response.clientDataJSON), as: UTF8.self)
                == #"{"type":"webauthn.create","challenge":"-_v7-_v7-_v7-_v7-_v7-w","origin":"android:apk-key-hash:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8","crossOrigin":false}"#
        )
        #expect(ClientData.quoted("a\"b\\c\u{1}é") == #""a\"b\\c\u0001é""#)
    }

    @Test("an Android client needs a registered signing certificate; an Apple one none")
    func clients() throws {
        #expect(throws: SharedWebCredentialsError.self) {
            try PasskeyClient(try ApplicationIdentifier("android:com.example.shop"))
        }
        let other = try CertificateFingerprint(bytes: Array(repeating: 0xAA, count: 32))
        #expect(throws: SharedWebCredentialsError.self) {
            try PasskeyClient(Support.androidApp, signingCertificate: other)
        }
        #expect(throws: SharedWebCredentialsError.self) {
            try PasskeyClient(Support.appleApp, signingCertificate: other)
        }
        #expect(Support.android.origin(for: try RelyingPartyID("x.example.com")) == Support.androidOrigin)
        #expect(Support.apple.origin(for: try RelyingPartyID("x.example.com")) == "https://x.example.com")
    }

    @Test("the registration response has every member of RegistrationResponseJSON")
    func registrationJSONShape() throws {
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(try Support.register(algorithms: [-8]).response.jsonBytes()))
                as? [String: Any])
        #expect(
            Set(json.keys) == ["id", "rawId", "type", "response", "authenticatorAttachment", "clientExtensionResults"])
        #expect(json["type"] as? String == "public-key")
        #expect((json["clientExtensionResults"] as? [String: Any])?.isEmpty == true)
        let response = try #require(json["response"] as? [String: Any])
        #expect(
            Set(response.keys) == [
                "clientDataJSON", "attestationObject", "authenticatorData", "publicKey", "publicKeyAlgorithm",
                "transports",
            ])
        #expect(response["publicKeyAlgorithm"] as? Int == -8)
        #expect(Support.unb64(try #require(response["publicKey"] as? String)).count == 44)
    }
}
