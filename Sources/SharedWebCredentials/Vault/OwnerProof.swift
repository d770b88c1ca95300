import Foundation

/// The vault owner's proof to the vault service: who can unlock the vault (with its passphrase
/// or key file) can answer a random challenge of the service with a keyed BLAKE2b under a subkey
/// of the vault key, which the service, holding the unlocked vault, checks. An app's token, a
/// peer's uid or access to the socket never gives that key; the challenge is single use, so a
/// proof seen once cannot be replayed.
public enum OwnerProof {
    /// The length of a challenge, a proof and an owner session's secret, in bytes.
    public static let length = 32

    /// Fresh random bytes for a challenge or a session secret.
    public static func randomBytes() -> [UInt8] {
        RandomBytes.array(count: length)
    }

    /// Whether two proofs (or session secrets) are equal, in time that does not depend on where
    /// they differ.
    public static func matches(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        lhs.withUnsafeBytes { left in rhs.withUnsafeBytes { right in ConstantTime.equals(left, right) } }
    }

    /// `bytes` in base64url without padding (RFC 4648 §5), as challenges, proofs and sessions travel.
    public static func text(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// The bytes of a base64url text without padding, or nil when it is anything else.
    public static func bytes(fromText text: some StringProtocol) -> [UInt8]? {
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        guard text.utf8.allSatisfy(alphabet.contains), text.utf8.count % 4 != 1 else { return nil }
        let standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        return Data(base64Encoded: standard + String(repeating: "=", count: (4 - standard.utf8.count % 4) % 4))
            .map { Array($0) }
    }
}

extension Vault {
    /// The owner's answer to `challenge`: its keyed BLAKE2b under the owner-proof subkey of this
    /// vault's key, labelled so that it can never equal another of the vault's MACs or indexes.
    public func ownerProof(answering challenge: [UInt8]) -> [UInt8] {
        let key = KeyDerivation.subkey(.ownerProof, from: keys.vaultKey)
        return KeyedHash.digest(key: key, fields: [Array("swcred/owner-proof".utf8), challenge])
    }

    /// Whether `proof` is the owner's answer to `challenge` (compared in constant time).
    public func isOwnerProof(_ proof: [UInt8], answering challenge: [UInt8]) -> Bool {
        OwnerProof.matches(ownerProof(answering: challenge), proof)
    }
}
