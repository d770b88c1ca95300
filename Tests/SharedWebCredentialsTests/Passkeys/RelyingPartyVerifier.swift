import Foundation
import Testing

/// Runs Tests/Passkeys/verify_webauthn.py in the pinned environment Scripts/bootstrap makes
/// (.build-venv/webauthn: py_webauthn and python-fido2), and returns its verdicts.
///
/// A missing environment fails the test with what to run: CI runs Scripts/bootstrap first, so a
/// missing one is a broken setup, never a reason to skip.
enum RelyingPartyVerifier {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let python = root.appendingPathComponent(".build-venv/webauthn/bin/python").path
    static let script = root.appendingPathComponent("Tests/Passkeys/verify_webauthn.py").path

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

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
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw Failure(
                description:
                    "the relying-party verifiers are not installed: \(python) is missing. Run Scripts/bootstrap (it makes .build-venv/webauthn with py_webauthn and python-fido2 pinned)"
            )
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script]
        let input = Pipe()
        let output = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let request = try JSONSerialization.data(withJSONObject: ["checks": checks])
        // The request is small; the reads run after the write has been closed.
        input.fileHandleForWriting.write(request)
        try input.fileHandleForWriting.close()
        let stdout = output.fileHandleForReading.readDataToEndOfFile()
        let stderr = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0,
            let answer = try JSONSerialization.jsonObject(with: stdout) as? [String: Any],
            let verdicts = answer["verdicts"] as? [[String: Any]], verdicts.count == checks.count
        else {
            throw Failure(
                description:
                    "verify_webauthn.py exited \(process.terminationStatus): \(String(decoding: stderr, as: UTF8.self))"
            )
        }
        return verdicts.map {
            Verdicts(
                pyWebAuthn: Verdict(fields: $0["py_webauthn"] as? [String: Any] ?? [:]),
                fido2: Verdict(fields: $0["fido2"] as? [String: Any] ?? [:]))
        }
    }
}
