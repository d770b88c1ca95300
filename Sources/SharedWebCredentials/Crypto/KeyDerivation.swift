import CSodium

/// Subkeys derived from a master key with libsodium's `crypto_kdf` (BLAKE2b based).
enum KeyDerivation {
    /// The master and subkey length used by the vault.
    static let keyLength = Int(crypto_kdf_KEYBYTES)

    /// What a subkey is for; each purpose has its own id, so subkeys never coincide.
    enum Purpose: UInt64 {
        /// Encrypting records (`credentials.sealed`, `never_save.sealed_host`).
        case recordEncryption = 1
        /// Keying the blind indexes used for lookups.
        case blindIndex = 2
        /// Keying the MACs of plaintext rows and the record commitment (``VaultKeys/stateMAC(table:fields:)``).
        case stateAuthentication = 3
        /// Keying the hashes of the service's app tokens.
        case appTokenHash = 4
        /// Keying the owner's proof to the vault service (``Vault/ownerProof(answering:)``).
        case ownerProof = 5
    }

    /// The 8-byte context that separates swcred's subkeys from any other use of the same key.
    private static let context: [CChar] = Array("swcredv1".utf8CString.dropLast())

    /// Derives the subkey for `purpose` from `masterKey`.
    static func subkey(_ purpose: Purpose, from masterKey: SecureBytes) -> SecureBytes {
        precondition(masterKey.count == keyLength, "master key must be \(keyLength) bytes")
        Sodium.ensureInitialized()
        return SecureBytes(count: keyLength) { output in
            let status = masterKey.withUnsafeBytes { master in
                crypto_kdf_derive_from_key(
                    output.baseAddress!.assumingMemoryBound(to: UInt8.self), keyLength,
                    purpose.rawValue, context,
                    master.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
            precondition(status == 0, "crypto_kdf_derive_from_key failed")
        }
    }
}
