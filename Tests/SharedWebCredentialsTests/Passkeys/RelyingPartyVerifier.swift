import Foundation
import TestSupport
import Testing

/// Runs Tests/Passkeys/verify_webauthn.py (py_webauthn and python-fido2, through
/// ``PasskeyTools``) and returns its verdicts.
enum RelyingPartyVerifier {
    /// One library's verdict on one check.
    struct Verdict {
        let fields: [String: Any]
        var verified: Bool { fields["verified"] as? Bool == true }
        var error: String { fields["error"] as? String ?? "" }
        subscript(key: String) -> Any? { fields[key] }
        /// A flag of the authenticator data as the library read it (fido2's verdicts).
        func flag(_ name: String) -> Bool? { (fields["flags"] as? [String: Any])?[name] as? Bool }
    }

    /// Both libraries' verdicts on one check.
    struct Verdicts {
        let pyWebAuthn: Verdict
        let fido2: Verdict
        var bothVerified: Bool { pyWebAuthn.verified && fido2.verified }
        var neitherVerified: Bool { !pyWebAuthn.verified && !fido2.verified }
        var summary: String { "py_webauthn: \(pyWebAuthn.error); fido2: \(fido2.error)" }
    }

    /// A registration check: the response as the app would send it and what the RP expects.
    static func registration(
        _ response: [String: Any], challenge: [UInt8], origin: String, rpID: String,
        requireUserVerification: Bool = false
    ) -> [String: Any] {
        [
            "ceremony": "registration", "response": response, "challenge": PasskeyTestSupport.b64(challenge),
            "origin": origin, "rp_id": rpID, "require_user_verification": requireUserVerification,
        ]
    }

    /// An authentication check against the public key a registration verdict gave.
    static func authentication(
        _ response: [String: Any], challenge: [UInt8], origin: String, rpID: String, publicKey: String,
        credentialID: String, requireUserVerification: Bool = false
    ) -> [String: Any] {
        [
            "ceremony": "authentication", "response": response, "challenge": PasskeyTestSupport.b64(challenge),
            "origin": origin, "rp_id": rpID, "credential_public_key": publicKey, "credential_id": credentialID,
            "require_user_verification": requireUserVerification,
        ]
    }

    /// The response JSON as a dictionary (the Python side reads JSON anyway).
    static func object(_ json: [UInt8]) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(json)) as? [String: Any])
    }

    /// Runs every check in one process; one ``Verdicts`` per check, in order.
    static func verify(_ checks: [[String: Any]]) throws -> [Verdicts] {
        try PasskeyTools.verifyWebAuthn(checks).map {
            Verdicts(pyWebAuthn: Verdict(fields: $0.pyWebAuthn), fido2: Verdict(fields: $0.fido2))
        }
    }
}
