/// RFC 4648 base32 (section 6), as `otpauth://` URIs carry TOTP secrets: the alphabet `A`–`Z`,
/// `2`–`7`, read case-insensitively (authenticator apps print lower case too), `=` padding
/// optional but only at the end.
enum Base32 {
    /// Why a base32 text was refused.
    enum Failure: Error, Equatable {
        /// The character at this offset (0-based) is not in the alphabet.
        case invalidCharacter(offset: Int)
        /// Padding followed by something else, or a length no encoder writes.
        case invalidPadding
    }

    /// Decodes `text`.
    static func decode(_ text: String) throws(Failure) -> [UInt8] {
        var output: [UInt8] = []
        var buffer: UInt64 = 0
        var bits = 0
        var symbols = 0
        var padding = 0
        for (offset, byte) in text.utf8.enumerated() {
            if byte == UInt8(ascii: "=") {
                padding += 1
                continue
            }
            guard padding == 0 else { throw .invalidPadding }
            let value: UInt8
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = byte - UInt8(ascii: "A")
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = byte - UInt8(ascii: "a")
            case UInt8(ascii: "2")...UInt8(ascii: "7"): value = byte - UInt8(ascii: "2") + 26
            default: throw .invalidCharacter(offset: offset)
            }
            buffer = (buffer << 5) | UInt64(value)
            bits += 5
            symbols += 1
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: buffer >> UInt64(bits)))
            }
        }
        // A group of 8 symbols holds 5 bytes; the lengths an encoder leaves in the last group
        // are 2, 4, 5 and 7 symbols (1 to 4 bytes).
        guard [0, 2, 4, 5, 7].contains(symbols % 8) else { throw .invalidPadding }
        if padding > 0 && (symbols + padding) % 8 != 0 { throw .invalidPadding }
        return output
    }
}
