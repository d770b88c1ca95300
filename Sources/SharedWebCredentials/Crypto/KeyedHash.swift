import CSodium

/// Keyed BLAKE2b (`crypto_generichash`), used for blind indexes: equal inputs give equal
/// digests under one key, and without the key a digest reveals nothing about its input.
enum KeyedHash {
    /// The digest length in bytes.
    static let digestLength = 32

    /// The keyed digest of `fields`, each length-prefixed so that field boundaries are unambiguous.
    static func digest(key: SecureBytes, fields: [[UInt8]]) -> [UInt8] {
        Sodium.ensureInitialized()
        var message: [UInt8] = []
        message.reserveCapacity(fields.reduce(0) { $0 + 4 + $1.count })
        for field in fields {
            withUnsafeBytes(of: UInt32(field.count).littleEndian) { message.append(contentsOf: $0) }
            message.append(contentsOf: field)
        }
        var digest = [UInt8](repeating: 0, count: digestLength)
        let status = key.withUnsafeBytes { keyBytes in
            crypto_generichash(
                &digest, digestLength, message, UInt64(message.count),
                keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self), keyBytes.count)
        }
        precondition(status == 0, "crypto_generichash failed")
        sodium_memzero(&message, message.count)
        return digest
    }
}
