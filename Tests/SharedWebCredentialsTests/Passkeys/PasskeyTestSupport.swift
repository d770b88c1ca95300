import Foundation
import Testing

@testable import SharedWebCredentials

/// Fixtures shared by the passkey suites: an Apple and an Android app approved for one site, and
/// options as a relying party's server would send them.
enum PasskeyTestSupport {
    static let rpID = "login.example.com"
    static let appleApp = try! ApplicationIdentifier("ABCDE12345.com.example.app")
    /// A fixed certificate digest: the bytes 0x00, 0x01, ..., 0x1F.
    static let certificateBytes = (0..<32).map { UInt8($0) }
    static let androidApp = try! ApplicationIdentifier("android:com.example.shop")
        .signed(by: [try! CertificateFingerprint(bytes: certificateBytes)])

    static let apple = try! PasskeyClient(appleApp)
    static let android = try! PasskeyClient(androidApp)

    /// The origins, written out independently of the library's encoders.
    static let appleOrigin = "https://login.example.com"
    static let androidOrigin = "android:apk-key-hash:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"

    static let approved = ["login.example.com", "other.example.org"]

    /// Present, verified by the passphrase, not backed up: the strongest honest signals.
    static let verified = AuthenticatorSignals(
        presence: .ownerConsented, verification: .ownerPassphrase, backup: .eligible)

    /// A random challenge of 32 bytes.
    static func challenge() -> [UInt8] { (0..<32).map { _ in UInt8.random(in: 0...255) } }

    static func b64(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    static func unb64(_ text: String) -> [UInt8] {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        return [UInt8](Data(base64Encoded: standard)!)
    }

    /// `PublicKeyCredentialCreationOptionsJSON` text; `extra` members replace or add top-level ones.
    static func creationJSON(
        rpID: String = rpID, challenge: [UInt8] = challenge(), algorithms: [Int] = [-7, -8, -257],
        exclude: [[UInt8]] = [], userVerification: String = "preferred", extra: [String: Any] = [:]
    ) -> [UInt8] {
        var options: [String: Any] = [
            "rp": ["id": rpID, "name": "Example"],
            "user": ["id": b64(Array("user-1234".utf8)), "name": "alice@example.com", "displayName": "Alice"],
            "challenge": b64(challenge),
            "pubKeyCredParams": algorithms.map { ["type": "public-key", "alg": $0] },
            "timeout": 60000,
            "excludeCredentials": exclude.map { ["type": "public-key", "id": b64($0)] },
            "authenticatorSelection": ["residentKey": "required", "userVerification": userVerification],
            "attestation": "none",
        ]
        options.merge(extra) { $1 }
        return [UInt8](try! JSONSerialization.data(withJSONObject: options))
    }

    /// `PublicKeyCredentialRequestOptionsJSON` text.
    static func requestJSON(
        rpID: String = rpID, challenge: [UInt8] = challenge(), allow: [[UInt8]] = [],
        userVerification: String = "preferred", extra: [String: Any] = [:]
    ) -> [UInt8] {
        var options: [String: Any] = [
            "rpId": rpID, "challenge": b64(challenge), "timeout": 60000,
            "allowCredentials": allow.map { ["type": "public-key", "id": b64($0)] },
            "userVerification": userVerification,
        ]
        options.merge(extra) { $1 }
        return [UInt8](try! JSONSerialization.data(withJSONObject: options))
    }

    /// Creates a passkey for `rpID` through the authenticator.
    static func register(
        rpID: String = rpID, client: PasskeyClient = apple, algorithms: [Int] = [-7],
        challenge: [UInt8] = challenge(), signals: AuthenticatorSignals = verified
    ) throws -> PasskeyAuthenticator.Registration {
        try PasskeyAuthenticator.create(
            options: try PasskeyCreationOptions(
                json: creationJSON(rpID: rpID, challenge: challenge, algorithms: algorithms)),
            client: client, approvedDomains: approved, existing: [], signals: signals)
    }

    /// The WebAuthn error a throwing call raises, or nil.
    static func webAuthnError(_ body: () throws -> Void) -> WebAuthnError? {
        do {
            try body()
            return nil
        } catch let error as WebAuthnError {
            return error
        } catch {
            Issue.record("not a WebAuthnError: \(error)")
            return nil
        }
    }
}
