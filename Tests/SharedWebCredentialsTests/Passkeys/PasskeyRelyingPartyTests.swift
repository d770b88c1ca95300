import Foundation
import Testing

@testable import SharedWebCredentials

/// swcred's registrations and assertions, verified by py_webauthn and python-fido2 as a relying
/// party's server would verify them (Tests/Passkeys/verify_webauthn.py): both libraries must
/// accept the genuine responses and both must refuse every tampered one.
@Suite("Passkeys verified by py_webauthn and python-fido2")
struct PasskeyRelyingPartyTests {
    typealias Support = PasskeyTestSupport
    typealias Verifier = RelyingPartyVerifier

    enum Platform: String, CaseIterable, CustomTestStringConvertible {
        case apple, android
        var client: PasskeyClient { self == .apple ? Support.apple : Support.android }
        var origin: String { self == .apple ? Support.appleOrigin : Support.androidOrigin }
        var testDescription: String { rawValue }
    }

    static let cases: [(PasskeyAlgorithm, Platform)] = [
        (.es256, .apple), (.es256, .android), (.ed25519, .apple), (.ed25519, .android),
    ]

    @Test(
        "registration and assertion verify with both libraries, with the RP ID hash, origin, flags and counter they expect",
        arguments: cases)
    func registerAndSignIn(algorithm: PasskeyAlgorithm, platform: Platform) throws {
        let challenge = Support.challenge()
        let registration = try Support.register(
            client: platform.client, algorithms: [algorithm.rawValue], challenge: challenge)
        let response = try Verifier.object(registration.response.jsonBytes())
        let registered = try #require(
            try Verifier.verify([
                Verifier.registration(
                    response, challenge: challenge, origin: platform.origin, rpID: Support.rpID,
                    requireUserVerification: true)
            ]).first)
        #expect(registered.bothVerified, "\(registered.summary)")
        let credentialID = Support.b64(registration.passkey.credentialID)
        #expect(registered.pyWebAuthn["credential_id"] as? String == credentialID)
        #expect(registered.fido2["credential_id"] as? String == credentialID)
        #expect(registered.pyWebAuthn["sign_count"] as? Int == 0)
        #expect(registered.pyWebAuthn["aaguid"] as? String == "00000000-0000-0000-0000-000000000000")
        #expect(registered.pyWebAuthn["fmt"] as? String == "none")
        #expect(registered.pyWebAuthn["user_verified"] as? Bool == true)
        #expect(registered.pyWebAuthn["device_type"] as? String == "multi_device")
        #expect(registered.pyWebAuthn["backed_up"] as? Bool == false)
        #expect(registered.fido2["counter"] as? Int == 0)
        #expect(registered.fido2["cose_alg"] as? Int == algorithm.rawValue)
        #expect(registered.fido2["attestation_object_canonical"] as? Bool == true)
        #expect(registered.fido2["cose_key_canonical"] as? Bool == true)
        #expect(registered.fido2["fmt"] as? String == "none")
        #expect((registered.fido2["att_stmt"] as? [String: Any])?.isEmpty == true)
        #expect(registered.fido2.flag("up") == true)
        #expect(registered.fido2.flag("uv") == true)
        #expect(registered.fido2.flag("be") == true)
        #expect(registered.fido2.flag("bs") == false)
        #expect(registered.fido2.flag("at") == true)
        #expect(registered.fido2.flag("ed") == false)
        // SHA-256 of the RP ID as Python's hashlib computes it.
        let expectedHash = try #require(registered.fido2["expected_rp_id_hash"] as? String)
        #expect(registered.fido2["rp_id_hash"] as? String == expectedHash)
        let publicKey = try #require(registered.pyWebAuthn["credential_public_key"] as? String)

        // Two sign-ins: one naming the credential, one discoverable (empty allow list).
        var checks: [[String: Any]] = []
        for allow in [[registration.passkey.credentialID], []] {
            let signInChallenge = Support.challenge()
            let assertion = try PasskeyAuthenticator.get(
                options: try PasskeyRequestOptions(
                    json: Support.requestJSON(challenge: signInChallenge, allow: allow, userVerification: "required")),
                client: platform.client, approvedDomains: Support.approved, passkeys: [registration.passkey],
                signals: Support.verified, choose: { $0.first })
            #expect(assertion.response.userHandle == Support.b64(Array("user-1234".utf8)))
            checks.append(
                Verifier.authentication(
                    try Verifier.object(assertion.jsonBytes()), challenge: signInChallenge, origin: platform.origin,
                    rpID: Support.rpID, publicKey: publicKey, credentialID: credentialID,
                    requireUserVerification: true))
        }
        for verdict in try Verifier.verify(checks) {
            #expect(verdict.bothVerified, "\(verdict.summary)")
            #expect(verdict.pyWebAuthn["new_sign_count"] as? Int == 0)
            #expect(verdict.pyWebAuthn["user_verified"] as? Bool == true)
            #expect(verdict.fido2["counter"] as? Int == 0)
            #expect(verdict.fido2["rp_id_hash"] as? String == expectedHash)
            #expect(verdict.fido2["client_data_origin"] as? String == platform.origin)
            #expect(verdict.fido2["user_handle"] as? String == Support.b64(Array("user-1234".utf8)))
            #expect(verdict.fido2.flag("up") == true)
            #expect(verdict.fido2.flag("at") == false)
        }
    }

    /// The response with `clientDataJSON`'s member `key` replaced by `value`.
    static func withClientData(_ response: [String: Any], _ key: String, _ value: String) throws -> [String: Any] {
        var response = response
        var inner = try #require(response["response"] as? [String: Any])
        let clientData = Support.unb64(try #require(inner["clientDataJSON"] as? String))
        var members = try #require(try JSONSerialization.jsonObject(with: Data(clientData)) as? [String: Any])
        members[key] = value
        inner["clientDataJSON"] = Support.b64([UInt8](try JSONSerialization.data(withJSONObject: members)))
        response["response"] = inner
        return response
    }

    /// The response with one byte of `member` (of `response`) flipped.
    static func flipping(_ member: String, in response: [String: Any], at index: Int = 10) throws -> [String: Any] {
        var response = response
        var inner = try #require(response["response"] as? [String: Any])
        var bytes = Support.unb64(try #require(inner[member] as? String))
        bytes[index] ^= 0x01
        inner[member] = Support.b64(bytes)
        response["response"] = inner
        return response
    }

    @Test(
        "a tampered challenge or origin, a wrong RP ID, a flipped signature byte, a missing UP each fail both libraries",
        arguments: cases)
    func tamperedResponsesFail(algorithm: PasskeyAlgorithm, platform: Platform) throws {
        let challenge = Support.challenge()
        let registration = try Support.register(
            client: platform.client, algorithms: [algorithm.rawValue], challenge: challenge)
        let response = try Verifier.object(registration.response.jsonBytes())
        let other = Support.b64(Support.challenge())
        let registrationChecks = [
            Verifier.registration(response, challenge: challenge, origin: platform.origin, rpID: Support.rpID),
            Verifier.registration(
                try Self.withClientData(response, "challenge", other), challenge: challenge, origin: platform.origin,
                rpID: Support.rpID),
            Verifier.registration(
                try Self.withClientData(response, "origin", "https://evil.example"), challenge: challenge,
                origin: platform.origin, rpID: Support.rpID),
            Verifier.registration(response, challenge: challenge, origin: platform.origin, rpID: "example.com"),
            Verifier.registration(
                response, challenge: challenge,
                origin: platform == .apple ? Support.androidOrigin : Support.appleOrigin,
                rpID: Support.rpID),
        ]
        let registered = try Verifier.verify(registrationChecks)
        #expect(registered[0].bothVerified, "\(registered[0].summary)")
        for (index, verdict) in registered.enumerated().dropFirst() {
            #expect(verdict.neitherVerified, "tampered registration \(index) verified")
        }
        let publicKey = try #require(registered[0].pyWebAuthn["credential_public_key"] as? String)
        let credentialID = Support.b64(registration.passkey.credentialID)

        let signInChallenge = Support.challenge()
        func assertion(_ signals: AuthenticatorSignals) throws -> [String: Any] {
            try Verifier.object(
                try PasskeyAuthenticator.get(
                    options: try PasskeyRequestOptions(json: Support.requestJSON(challenge: signInChallenge)),
                    client: platform.client, approvedDomains: Support.approved, passkeys: [registration.passkey],
                    signals: signals, choose: { $0.first }
                ).jsonBytes())
        }
        let genuine = try assertion(Support.verified)
        let absent = try assertion(AuthenticatorSignals(presence: .absent, verification: nil, backup: .eligible))
        func check(
            _ response: [String: Any], rpID: String = Support.rpID, origin: String = platform.origin
        )
            -> [String: Any]
        {
            Verifier.authentication(
                response, challenge: signInChallenge, origin: origin, rpID: rpID, publicKey: publicKey,
                credentialID: credentialID)
        }
        let signatureLength = Support.unb64(
            try #require((genuine["response"] as? [String: Any])?["signature"] as? String)
        ).count
        let verdicts = try Verifier.verify([
            check(genuine),
            check(try Self.withClientData(genuine, "challenge", other)),
            check(try Self.withClientData(genuine, "origin", "https://evil.example")),
            check(genuine, rpID: "example.com"),
            check(genuine, origin: "https://example.com"),
            check(try Self.flipping("signature", in: genuine, at: signatureLength - 5)),
            check(try Self.flipping("authenticatorData", in: genuine, at: 33)),
            check(absent),
        ])
        #expect(verdicts[0].bothVerified, "\(verdicts[0].summary)")
        for (index, verdict) in verdicts.enumerated().dropFirst() {
            #expect(verdict.neitherVerified, "tampered assertion \(index) verified: \(verdict.summary)")
        }
        #expect(verdicts[7].pyWebAuthn.error.contains("not present"), "\(verdicts[7].summary)")
    }

    @Test("a registration without presence has UP clear, and both libraries refuse it")
    func registrationWithoutPresence() throws {
        let challenge = Support.challenge()
        let registration = try Support.register(
            challenge: challenge,
            signals: AuthenticatorSignals(presence: .absent, verification: nil, backup: .notEligible))
        let verdict = try #require(
            try Verifier.verify([
                Verifier.registration(
                    try Verifier.object(registration.response.jsonBytes()), challenge: challenge,
                    origin: Support.appleOrigin, rpID: Support.rpID)
            ]).first)
        #expect(verdict.neitherVerified)
        #expect(verdict.fido2.error.contains("User Present"), "\(verdict.summary)")
    }

    @Test("standing consent counts as presence; without verification UV is clear and a UV-requiring RP refuses")
    func standingConsentWithoutVerification() throws {
        let challenge = Support.challenge()
        let registration = try Support.register(
            client: Support.android, challenge: challenge,
            signals: AuthenticatorSignals(presence: .standingConsent, verification: nil, backup: .backedUp))
        let response = try Verifier.object(registration.response.jsonBytes())
        let verdicts = try Verifier.verify([
            Verifier.registration(response, challenge: challenge, origin: Support.androidOrigin, rpID: Support.rpID),
            Verifier.registration(
                response, challenge: challenge, origin: Support.androidOrigin, rpID: Support.rpID,
                requireUserVerification: true),
        ])
        #expect(verdicts[0].bothVerified, "\(verdicts[0].summary)")
        #expect(verdicts[0].pyWebAuthn["user_verified"] as? Bool == false)
        #expect(verdicts[0].pyWebAuthn["backed_up"] as? Bool == true)
        #expect(verdicts[0].fido2.flag("up") == true)
        #expect(verdicts[0].fido2.flag("uv") == false)
        #expect(verdicts[0].fido2.flag("bs") == true)
        #expect(verdicts[1].neitherVerified)
    }
}
