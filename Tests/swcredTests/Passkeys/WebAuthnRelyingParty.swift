import Foundation
import TestSupport
import Testing

/// The relying party's side of the service's passkey tests: options as a site would send them,
/// and Tests/Passkeys/verify_webauthn.py (py_webauthn and python-fido2, through ``PasskeyTools``)
/// to verify what the service answers.
enum WebAuthnRelyingParty {
    /// Unpadded base64url.
    static func b64(_ bytes: some Sequence<UInt8>) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// 32 random challenge bytes.
    static func challenge() -> [UInt8] { (0..<32).map { _ in UInt8.random(in: 0...255) } }

    /// `PublicKeyCredentialCreationOptionsJSON` for `rpID`.
    static func creationOptions(
        rpID: String, challenge: [UInt8], user: String = "alice@example.com", exclude: [String] = [],
        userVerification: String = "preferred"
    ) -> [String: Any] {
        [
            "rp": ["id": rpID, "name": "Shop"],
            "user": ["id": b64(Array("user-\(user)".utf8).prefix(64)), "name": user, "displayName": "Alice"],
            "challenge": b64(challenge),
            "pubKeyCredParams": [["type": "public-key", "alg": -7], ["type": "public-key", "alg": -8]],
            "excludeCredentials": exclude.map { ["type": "public-key", "id": $0] },
            "authenticatorSelection": ["residentKey": "required", "userVerification": userVerification],
            "attestation": "none",
        ]
    }

    /// `PublicKeyCredentialRequestOptionsJSON` for `rpID`.
    static func requestOptions(rpID: String, challenge: [UInt8], allow: [String] = []) -> [String: Any] {
        [
            "rpId": rpID, "challenge": b64(challenge), "userVerification": "preferred",
            "allowCredentials": allow.map { ["type": "public-key", "id": $0] },
        ]
    }

    /// The origin an Android app signed with `fingerprint` (hex with colons) has.
    static func androidOrigin(fingerprint: String) -> String {
        let hex = fingerprint.replacingOccurrences(of: ":", with: "")
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return "android:apk-key-hash:" + b64(bytes)
    }

    /// Both libraries' verdicts on one check.
    struct Verdicts {
        let pyWebAuthn: [String: Any]
        let fido2: [String: Any]
        var bothVerified: Bool { pyWebAuthn["verified"] as? Bool == true && fido2["verified"] as? Bool == true }
        var neitherVerified: Bool { pyWebAuthn["verified"] as? Bool != true && fido2["verified"] as? Bool != true }
        func flag(_ name: String) -> Bool? { (fido2["flags"] as? [String: Any])?[name] as? Bool }
        var summary: String { "py_webauthn: \(pyWebAuthn); fido2: \(fido2)" }
    }

    static func registration(_ response: Any, challenge: [UInt8], origin: String, rpID: String) -> [String: Any] {
        [
            "ceremony": "registration", "response": response, "challenge": b64(challenge), "origin": origin,
            "rp_id": rpID, "require_user_verification": false,
        ]
    }

    static func authentication(
        _ response: Any, challenge: [UInt8], origin: String, rpID: String, publicKey: String, credentialID: String
    ) -> [String: Any] {
        [
            "ceremony": "authentication", "response": response, "challenge": b64(challenge), "origin": origin,
            "rp_id": rpID, "credential_public_key": publicKey, "credential_id": credentialID,
            "require_user_verification": false,
        ]
    }

    /// Runs every check in one process.
    static func verify(_ checks: [[String: Any]]) throws -> [Verdicts] {
        try PasskeyTools.verifyWebAuthn(checks).map { Verdicts(pyWebAuthn: $0.pyWebAuthn, fido2: $0.fido2) }
    }
}
