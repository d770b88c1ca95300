/// The text form of an app token: a fixed prefix, then 32 random bytes in unpadded base64url.
///
/// The prefix makes a leaked token recognisable (secret scanners, logs); the random part is
/// what the vault hashes and looks up.
enum AppTokenFormat {
    /// The prefix of every token.
    static let prefix = "swcred_"
    /// The number of random bytes in a token.
    static let randomLength = 32
    /// The number of base64url characters that encode them.
    static let encodedLength = 43

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// The token text for `random`, in locked memory.
    static func encode(_ random: SecureBytes) -> SecureBytes {
        precondition(random.count == randomLength)
        return SecureBytes(count: prefix.utf8.count + encodedLength) { output in
            var index = 0
            for byte in prefix.utf8 {
                output[index] = byte
                index += 1
            }
            random.withUnsafeBytes { bytes in
                var bits: UInt32 = 0
                var bitCount = 0
                for byte in bytes {
                    bits = (bits << 8) | UInt32(byte)
                    bitCount += 8
                    while bitCount >= 6 {
                        bitCount -= 6
                        output[index] = alphabet[Int((bits >> UInt32(bitCount)) & 0x3F)]
                        index += 1
                    }
                }
                if bitCount > 0 {
                    output[index] = alphabet[Int((bits << UInt32(6 - bitCount)) & 0x3F)]
                    index += 1
                }
                bits = 0
            }
        }
    }

    /// The random bytes of a token's text, or nil when it is not a well-formed token.
    static func decode(_ token: SecureBytes) -> SecureBytes? {
        token.withUnsafeBytes { text -> SecureBytes? in
            let prefixBytes = Array(prefix.utf8)
            guard text.count == prefixBytes.count + encodedLength, Array(text.prefix(prefixBytes.count)) == prefixBytes
            else { return nil }
            let encoded = text.dropFirst(prefixBytes.count)
            var valid = true
            let decoded = SecureBytes(count: randomLength) { output in
                var bits: UInt32 = 0
                var bitCount = 0
                var index = 0
                for character in encoded {
                    guard let value = sextet(character) else {
                        valid = false
                        return
                    }
                    bits = (bits << 6) | UInt32(value)
                    bitCount += 6
                    if bitCount >= 8 {
                        bitCount -= 8
                        if index < randomLength { output[index] = UInt8((bits >> UInt32(bitCount)) & 0xFF) }
                        index += 1
                    }
                }
                // The last character carries 2 padding bits, which must be zero (one text per token).
                if bits & ((1 << UInt32(bitCount)) - 1) != 0 { valid = false }
                bits = 0
            }
            return valid ? decoded : nil
        }
    }

    private static func sextet(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): character - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): character - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"): 62
        case UInt8(ascii: "_"): 63
        default: nil
        }
    }
}
