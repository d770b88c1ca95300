import Foundation
import SharedWebCredentials

/// The vault owner's side of the service's owner proof, for tests that call the consent routes
/// over raw HTTP: what `swcred consent` does before it asks anything.
public enum OwnerSession {
    /// Answers a fresh challenge of the service at `socketPath` with the owner proof of the vault
    /// at `vaultPath` (unlocked with `passphrase`) and returns the session's bearer text.
    public static func open(socketPath: String, vaultPath: String, passphrase: String) throws -> String {
        let challenge = try UnixHTTP.request(socketPath, "POST", "/v1/owner/challenge")
        guard challenge.status == 200, let text = (challenge.json as? [String: Any])?["challenge"] as? String,
            let bytes = OwnerProof.bytes(fromText: text)
        else { throw UnixHTTP.Failure(description: "no challenge: \(challenge.status) \(challenge.text)") }
        let vault = try Vault.open(at: vaultPath, secret: .passphrase(SecureBytes(utf8: passphrase)))
        let answer = try UnixHTTP.request(
            socketPath, "POST", "/v1/owner/session",
            json: ["challenge": text, "proof": OwnerProof.text(vault.ownerProof(answering: bytes))])
        guard answer.status == 200, let session = (answer.json as? [String: Any])?["session"] as? String else {
            throw UnixHTTP.Failure(description: "no session: \(answer.status) \(answer.text)")
        }
        return session
    }
}
