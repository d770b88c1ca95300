import CSodium

/// Non-secret random bytes from libsodium's CSPRNG (row ids, salts). Secrets use
/// ``SecureBytes/random(count:)`` instead, which keeps them in locked memory.
enum RandomBytes {
    /// `count` random bytes in an ordinary array.
    static func array(count: Int) -> [UInt8] {
        Sodium.ensureInitialized()
        var bytes = [UInt8](repeating: 0, count: count)
        randombytes_buf(&bytes, count)
        return bytes
    }
}
