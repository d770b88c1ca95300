import CSodium

/// XChaCha20-Poly1305-IETF: seals data under a 32-byte key with a fresh random 192-bit nonce,
/// binding associated data that must match when the box is opened.
///
/// A sealed box is `nonce (24 bytes) || ciphertext || tag (16 bytes)`.
enum AuthenticatedEncryption {
    /// The key length in bytes.
    static let keyLength = Int(crypto_aead_xchacha20poly1305_ietf_KEYBYTES)
    /// The nonce length in bytes.
    static let nonceLength = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
    /// The authentication tag length in bytes.
    static let tagLength = Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)

    /// Encrypts `plaintext` with a fresh random nonce and returns the sealed box.
    static func seal(_ plaintext: SecureBytes, key: SecureBytes, associatedData: [UInt8]) -> [UInt8] {
        plaintext.withUnsafeBytes { seal($0, key: key, associatedData: associatedData) }
    }

    /// Encrypts bytes the caller holds (and zeroes afterwards) where they are, without a locked
    /// copy: for a plaintext that was never in locked memory, such as an audit entry's subject.
    static func seal(_ plaintext: UnsafeRawBufferPointer, key: SecureBytes, associatedData: [UInt8]) -> [UInt8] {
        precondition(key.count == keyLength, "AEAD key must be \(keyLength) bytes")
        Sodium.ensureInitialized()
        var box = [UInt8](repeating: 0, count: nonceLength + plaintext.count + tagLength)
        box.withUnsafeMutableBufferPointer { out in
            let nonce = out.baseAddress!
            randombytes_buf(nonce, nonceLength)
            var written: UInt64 = 0
            let status = key.withUnsafeBytes { keyBytes in
                associatedData.withUnsafeBufferPointer { ad in
                    crypto_aead_xchacha20poly1305_ietf_encrypt(
                        nonce + nonceLength, &written,
                        plaintext.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(plaintext.count),
                        ad.baseAddress, UInt64(ad.count),
                        nil, nonce,
                        keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self))
                }
            }
            precondition(status == 0 && Int(written) == plaintext.count + tagLength, "AEAD encryption failed")
        }
        return box
    }

    /// Opens a sealed box. Returns nil when the box, key or associated data do not match.
    static func open(_ box: UnsafeRawBufferPointer, key: SecureBytes, associatedData: [UInt8]) -> SecureBytes? {
        associatedData.withUnsafeBytes { open(box, key: key, associatedData: $0) }
    }

    /// Opens a sealed box with associated data the caller holds in place.
    static func open(
        _ box: UnsafeRawBufferPointer, key: SecureBytes, associatedData: UnsafeRawBufferPointer
    ) -> SecureBytes? {
        precondition(key.count == keyLength, "AEAD key must be \(keyLength) bytes")
        Sodium.ensureInitialized()
        guard box.count >= nonceLength + tagLength, let base = box.baseAddress else { return nil }
        let input = base.assumingMemoryBound(to: UInt8.self)
        let plaintextLength = box.count - nonceLength - tagLength
        struct AuthenticationFailed: Error {}
        return try? SecureBytes(count: plaintextLength) { output in
            var written: UInt64 = 0
            let status = key.withUnsafeBytes { keyBytes in
                crypto_aead_xchacha20poly1305_ietf_decrypt(
                    output.baseAddress?.assumingMemoryBound(to: UInt8.self), &written,
                    nil,
                    input + nonceLength, UInt64(box.count - nonceLength),
                    associatedData.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(associatedData.count),
                    input,
                    keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
            guard status == 0 else { throw AuthenticationFailed() }
        }
    }

    /// Opens a sealed box held in a byte array.
    static func open(_ box: [UInt8], key: SecureBytes, associatedData: [UInt8]) -> SecureBytes? {
        box.withUnsafeBytes { open($0, key: key, associatedData: associatedData) }
    }
}
