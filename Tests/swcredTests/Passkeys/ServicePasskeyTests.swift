import Foundation
import TestSupport
import Testing

/// Passkeys through `swcred serve` (issue 26): created and used by apps only for relying parties
/// their sites approve, and verified by py_webauthn and python-fido2 as the site's server would.
@Suite("swcred serve: passkeys behind the gate, verified by py_webauthn and python-fido2", .serialized)
struct ServicePasskeyTests {
    typealias RP = WebAuthnRelyingParty
    static let rpID = "shop.example"
    static let appleOrigin = "https://shop.example"
    /// SHA-256 of "shop.example", unpadded base64url (Python's hashlib).
    static let rpIDHash = "D1lGPGBsWw5dPagfNuP3wXWsIwxg51whRM47dSJHYHw"
    static let allow = ["--allow", "passkey-create,passkey-get"]

    private func entries(_ fixture: ServiceFixture, operation: String) throws -> [[String: Any]] {
        let listed = try fixture.gated.expect(["audit", "--operation", operation, "--json"], status: 0)
        return try #require(try JSONSerialization.jsonObject(with: listed.stdoutData) as? [[String: Any]])
    }

    /// Creates a passkey through the service and verifies it; returns (credential ID, public key).
    private func register(
        _ fixture: ServiceFixture, token: String, origin: String, user: String = "alice@example.com"
    ) throws -> (id: String, publicKey: String) {
        let challenge = RP.challenge()
        let created = try fixture.call(
            "POST", "/v1/passkeys/create", token: token,
            json: RP.creationOptions(rpID: Self.rpID, challenge: challenge, user: user))
        #expect(created.status == 200, "\(created.text)")
        let response = try #require(created.json as? [String: Any])
        let verdicts = try RP.verify([
            RP.registration(response, challenge: challenge, origin: origin, rpID: Self.rpID),
            RP.registration(response, challenge: RP.challenge(), origin: origin, rpID: Self.rpID),
            RP.registration(response, challenge: challenge, origin: "https://evil.example", rpID: Self.rpID),
        ])
        let registered = verdicts[0]
        #expect(registered.bothVerified, "\(registered.summary)")
        #expect(verdicts[1].neitherVerified, "a tampered challenge fails: \(verdicts[1].summary)")
        #expect(verdicts[2].neitherVerified, "another origin fails: \(verdicts[2].summary)")
        #expect(registered.pyWebAuthn["sign_count"] as? Int == 0)
        #expect(registered.pyWebAuthn["aaguid"] as? String == "00000000-0000-0000-0000-000000000000")
        #expect(registered.pyWebAuthn["user_verified"] as? Bool == false)
        #expect(registered.flag("up") == true)
        #expect(registered.flag("uv") == false)
        #expect(registered.flag("be") == true)
        #expect(registered.flag("bs") == false)
        #expect(registered.fido2["rp_id_hash"] as? String == Self.rpIDHash)
        let id = try #require(response["id"] as? String)
        let publicKey = try #require(registered.pyWebAuthn["credential_public_key"] as? String)
        return (id, publicKey)
    }

    /// Signs in through the service and verifies the assertion against `publicKey`.
    private func signIn(
        _ fixture: ServiceFixture, token: String, origin: String, credential: (id: String, publicKey: String),
        allow: [String]
    ) throws {
        let challenge = RP.challenge()
        let got = try fixture.call(
            "POST", "/v1/passkeys/get", token: token,
            json: RP.requestOptions(rpID: Self.rpID, challenge: challenge, allow: allow))
        #expect(got.status == 200, "\(got.text)")
        let response = try #require(got.json as? [String: Any])
        #expect(response["id"] as? String == credential.id)
        let verdicts = try RP.verify([
            RP.authentication(
                response, challenge: challenge, origin: origin, rpID: Self.rpID, publicKey: credential.publicKey,
                credentialID: credential.id),
            RP.authentication(
                response, challenge: RP.challenge(), origin: origin, rpID: Self.rpID, publicKey: credential.publicKey,
                credentialID: credential.id),
            RP.authentication(
                response, challenge: challenge, origin: "https://evil.example", rpID: Self.rpID,
                publicKey: credential.publicKey, credentialID: credential.id),
        ])
        #expect(verdicts[0].bothVerified, "\(verdicts[0].summary)")
        #expect(verdicts[0].pyWebAuthn["new_sign_count"] as? Int == 0)
        #expect(verdicts[0].fido2["counter"] as? Int == 0)
        #expect(verdicts[0].fido2["client_data_origin"] as? String == origin)
        #expect(verdicts[0].fido2["rp_id_hash"] as? String == Self.rpIDHash)
        #expect(verdicts[0].flag("up") == true)
        #expect(verdicts[0].flag("uv") == false)
        #expect(verdicts[1].neitherVerified, "a tampered challenge fails: \(verdicts[1].summary)")
        #expect(verdicts[2].neitherVerified, "another origin fails: \(verdicts[2].summary)")
    }

    @Test(
        "register and sign in through the service (named and discoverable); one audit entry each; owner's list and remove"
    )
    func registerAndSignIn() async throws {
        try await ServiceFixture.with { fixture in
            try fixture.start()
            let token = try fixture.token(Self.allow)
            let credential = try register(fixture, token: token, origin: Self.appleOrigin)
            try signIn(fixture, token: token, origin: Self.appleOrigin, credential: credential, allow: [credential.id])
            try signIn(fixture, token: token, origin: Self.appleOrigin, credential: credential, allow: [])

            // excludeCredentials naming it: InvalidStateError, nothing made.
            let excluded = try fixture.call(
                "POST", "/v1/passkeys/create", token: token,
                json: RP.creationOptions(rpID: Self.rpID, challenge: RP.challenge(), exclude: [credential.id]))
            #expect(excluded.status == 400)
            #expect(excluded.text.contains("InvalidStateError"), "\(excluded.text)")
            // user verification required: swcred cannot verify the person.
            let verification = try fixture.call(
                "POST", "/v1/passkeys/create", token: token,
                json: RP.creationOptions(rpID: Self.rpID, challenge: RP.challenge(), userVerification: "required"))
            #expect(verification.status == 403)
            #expect(verification.text.contains("NotAllowedError"), "\(verification.text)")
            // An unknown credential ID.
            let unknown = try fixture.call(
                "POST", "/v1/passkeys/get", token: token,
                json: RP.requestOptions(
                    rpID: Self.rpID, challenge: RP.challenge(), allow: [RP.b64([UInt8](repeating: 7, count: 16))]))
            #expect(unknown.status == 404)
            #expect(unknown.text.contains("NotAllowedError"), "\(unknown.text)")

            let created = try entries(fixture, operation: "passkey-create")
            #expect(created.filter { $0["outcome"] as? String == "done" }.count == 1, "\(created)")
            #expect(created.first?["domain"] as? String == Self.rpID)
            #expect(created.first?["account"] as? String == "alice@example.com")
            #expect(
                try entries(fixture, operation: "passkey-get").filter { $0["outcome"] as? String == "done" }.count == 2)

            let listed = try fixture.gated.expect(["passkey", "list", "--json"], status: 0)
            let passkeys = try #require(try JSONSerialization.jsonObject(with: listed.stdoutData) as? [[String: Any]])
            #expect(passkeys.count == 1)
            #expect(passkeys.first?["credentialId"] as? String == credential.id)
            #expect(passkeys.first?["rpId"] as? String == Self.rpID)
            try fixture.gated.expect(["passkey", "remove", "--", credential.id], status: 0)
            try fixture.gated.expect(["passkey", "show", "--", credential.id], status: 5)
            #expect(try entries(fixture, operation: "passkey-remove").count == 1)
            let gone = try fixture.call(
                "POST", "/v1/passkeys/get", token: token,
                json: RP.requestOptions(rpID: Self.rpID, challenge: RP.challenge()))
            #expect(gone.status == 404)
            try fixture.gated.expect(["audit", "verify"], status: 0)
            let log = try fixture.running.log
            #expect(!log.contains(credential.publicKey))
        }
    }

    @Test("an Apple app and an Android app use one site's passkey, each with its own origin")
    func appleAndAndroid() async throws {
        try await ServiceFixture.with { fixture in
            try AndroidGatedCommandTests.register(fixture.gated)
            try fixture.start()
            let apple = try fixture.token(Self.allow)
            let android = try fixture.token(app: GatedFixture.androidApp, Self.allow)
            let androidOrigin = RP.androidOrigin(fingerprint: GatedFixture.androidFingerprint)
            let credential = try register(fixture, token: apple, origin: Self.appleOrigin)
            try signIn(fixture, token: android, origin: androidOrigin, credential: credential, allow: [credential.id])
            try signIn(fixture, token: apple, origin: Self.appleOrigin, credential: credential, allow: [])
            let second = try register(fixture, token: android, origin: androidOrigin, user: "bob@example.com")
            try signIn(fixture, token: apple, origin: Self.appleOrigin, credential: second, allow: [second.id])
        }
    }

    @Test("refusals: not entitled, not listed, public suffixes, IP address, wrong token, revoked, locked, declined")
    func refusals() async throws {
        try await ServiceFixture.with { fixture in
            try fixture.start(["--consent-timeout", "10s"])
            let token = try fixture.token(Self.allow)
            func create(_ rpID: String, token: String) throws -> UnixHTTP.Response {
                try fixture.call(
                    "POST", "/v1/passkeys/create", token: token,
                    json: RP.creationOptions(rpID: rpID, challenge: RP.challenge()))
            }
            func get(_ rpID: String, token: String) throws -> UnixHTTP.Response {
                try fixture.call(
                    "POST", "/v1/passkeys/get", token: token,
                    json: RP.requestOptions(rpID: rpID, challenge: RP.challenge()))
            }
            // Not in the app's entitlement.
            for response in [try create("unlisted.example", token: token), try get("unlisted.example", token: token)] {
                #expect(response.status == 403, "\(response.text)")
                #expect(response.errorCode == "missing-entitlement")
            }
            // other.example lists only the other app.
            for response in [try create("other.example", token: token), try get("other.example", token: token)] {
                #expect(response.status == 403, "\(response.text)")
                #expect(response.errorCode == "not-approved")
            }
            // Public suffixes and IP addresses: SecurityError, invalid input.
            for rpID in ["com", "co.uk", "github.io", "127.0.0.1", "[::1]"] {
                for response in [try create(rpID, token: token), try get(rpID, token: token)] {
                    #expect(response.status == 400, "\(rpID): \(response.text)")
                    #expect(response.errorCode == "invalid-input")
                    #expect(response.text.contains("SecurityError"), "\(rpID): \(response.text)")
                }
            }
            // Another app's token: that app is not entitled to shop.example.
            let other = try fixture.token(app: GatedFixture.otherApp, Self.allow)
            #expect(try create(Self.rpID, token: other).errorCode == "missing-entitlement")
            // A token without the permissions.
            let passwordsOnly = try fixture.token()
            let denied = try create(Self.rpID, token: passwordsOnly)
            #expect(denied.status == 403)
            #expect(denied.errorCode == "permission-denied")
            #expect(try get(Self.rpID, token: passwordsOnly).errorCode == "permission-denied")
            let createOnly = try fixture.token(["--allow", "passkey-create"])
            #expect(try get(Self.rpID, token: createOnly).errorCode == "permission-denied")
            // A revoked token.
            let (revoked, revokedID) = try fixture.tokenWithID(Self.allow)
            try fixture.gated.expect(["app", "token", "revoke", revokedID], status: 0)
            #expect(try create(Self.rpID, token: revoked).status == 401)

            // Consent declined: a --consent ask token waits for the owner, who says no.
            let asking = try fixture.token(Self.allow + ["--consent", "ask"])
            let owner = try fixture.ownerSession()
            let socket = fixture.socketPath
            let options = try JSONSerialization.data(
                withJSONObject: RP.creationOptions(rpID: Self.rpID, challenge: RP.challenge()))
            let pending = BackgroundWork {
                try UnixHTTP.request(socket, "POST", "/v1/passkeys/create", token: asking, body: options)
            }
            let next = try fixture.call("GET", "/v1/consent/next?wait=10", token: owner)
            let waiting = try #require(next.json as? [String: Any])
            #expect(waiting["operation"] as? String == "passkey-create")
            #expect(waiting["domain"] as? String == Self.rpID)
            let id = try #require(waiting["id"] as? String)
            #expect(
                try fixture.call("POST", "/v1/consent/answer", token: owner, json: ["id": id, "approve": false]).status
                    == 200)
            let declined = try await pending.value
            #expect(declined.status == 403)
            #expect(declined.errorCode == "declined")
            // Approved: created, with UP.
            let approvedChallenge = RP.challenge()
            let approvedOptions = try JSONSerialization.data(
                withJSONObject: RP.creationOptions(rpID: Self.rpID, challenge: approvedChallenge))
            let approving = BackgroundWork {
                try UnixHTTP.request(socket, "POST", "/v1/passkeys/create", token: asking, body: approvedOptions)
            }
            let nextAgain = try fixture.call("GET", "/v1/consent/next?wait=10", token: owner)
            let approveID = try #require((nextAgain.json as? [String: Any])?["id"] as? String)
            #expect(
                try fixture.call("POST", "/v1/consent/answer", token: owner, json: ["id": approveID, "approve": true])
                    .status == 200)
            let approved = try await approving.value
            #expect(approved.status == 200, "\(approved.text)")
            let verdict = try RP.verify([
                RP.registration(
                    try #require(approved.json), challenge: approvedChallenge, origin: Self.appleOrigin, rpID: Self.rpID
                )
            ])
            #expect(verdict.first?.bothVerified == true)
            #expect(verdict.first?.flag("up") == true)

            // Nothing was made for any refusal: only the approved one exists.
            let listed = try fixture.gated.expect(["passkey", "list"], status: 0)
            #expect(listed.stdout.split(separator: "\n").count == 1, "\(listed.stdout)")
            let refused = try entries(fixture, operation: "passkey-create").filter {
                $0["outcome"] as? String == "refused"
            }
            #expect(refused.count >= 9, "every refusal after the token check is audited: \(refused.count)")

            // A locked vault.
            #expect(try fixture.call("POST", "/v1/lock").status == 200)
            #expect(try create(Self.rpID, token: token).status == 423)
            #expect(try get(Self.rpID, token: token).status == 423)
        }
    }

    @Test("swcred passkey create and get: directly (exit codes of the gate) and through the service with --server")
    func cli() async throws {
        try await ServiceFixture.with { fixture in
            try fixture.start()
            let token = try fixture.token(Self.allow)
            func text(_ object: [String: Any]) throws -> String {
                String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
            }
            let challenge = RP.challenge()
            let direct = try fixture.gated.expect(
                ["passkey", "create", "--app", GatedFixture.app, "--yes"], status: 0,
                stdin: try text(RP.creationOptions(rpID: Self.rpID, challenge: challenge)), network: true)
            let registration = try #require(try JSONSerialization.jsonObject(with: direct.stdoutData))
            let registered = try #require(
                try RP.verify([
                    RP.registration(registration, challenge: challenge, origin: Self.appleOrigin, rpID: Self.rpID)
                ]).first)
            #expect(registered.bothVerified, "\(registered.summary)")
            let publicKey = try #require(registered.pyWebAuthn["credential_public_key"] as? String)
            let id = try #require((registration as? [String: Any])?["id"] as? String)

            let signInChallenge = RP.challenge()
            let through = try fixture.runThroughService(
                ["passkey", "get"], token: token,
                stdin: try text(RP.requestOptions(rpID: Self.rpID, challenge: signInChallenge)))
            #expect(through.status == 0, "\(through.stderr)")
            let assertion = try #require(try JSONSerialization.jsonObject(with: through.stdoutData))
            let verified = try #require(
                try RP.verify([
                    RP.authentication(
                        assertion, challenge: signInChallenge, origin: Self.appleOrigin, rpID: Self.rpID,
                        publicKey: publicKey, credentialID: id)
                ]).first)
            #expect(verified.bothVerified, "\(verified.summary)")

            // The gate's exit codes: 3 not entitled, 4 not approved, 2 a public suffix, 6 no --yes
            // off a terminal, 5 no passkey.
            for (rpID, status, yes) in [
                ("unlisted.example", Int32(3), true), ("other.example", 4, true), ("co.uk", 2, true),
                (Self.rpID, 6, false),
            ] {
                let refused = try fixture.gated.run(
                    ["passkey", "create", "--app", GatedFixture.app] + (yes ? ["--yes"] : []),
                    stdin: try text(RP.creationOptions(rpID: rpID, challenge: RP.challenge())), network: true)
                #expect(refused.status == status, "\(rpID): \(refused.stderr)")
            }
            let missing = try fixture.runThroughService(
                ["passkey", "get"], token: token,
                stdin: try text(
                    RP.requestOptions(
                        rpID: Self.rpID, challenge: RP.challenge(), allow: [RP.b64([UInt8](repeating: 1, count: 16))])))
            #expect(missing.status == 5, "\(missing.stderr)")
            #expect(missing.stderr.contains("NotAllowedError"), "\(missing.stderr)")
            let shown = try fixture.gated.expect(["passkey", "show", "--", id], status: 0)
            #expect(shown.stdout.contains(publicKey) || shown.stdout.contains("public key:"))
        }
    }
}
