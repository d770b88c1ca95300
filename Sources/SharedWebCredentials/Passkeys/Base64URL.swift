/// Unpadded base64url (RFC 4648 §5), the encoding of every binary member of WebAuthn's JSON.
///
/// Written out on bytes rather than through Foundation's base64 and three string replacements:
/// an assertion encodes four members and decodes the challenge and credential IDs, and the
/// replacements (through NSString) were a tenth of an assertion's time in the service.
public enum Base64URL {
    /// The 64 characters, by value.
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// The value of each byte as a base64url character; 0xFF for every other byte.
    private static let values: [UInt8] = {
        var values = [UInt8](repeating: 0xFF, count: 256)
        for (value, character) in alphabet.enumerated() { values[Int(character)] = UInt8(value) }
        return values
    }()

    /// The unpadded base64url text of `bytes`.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        let input = Array(bytes)
        var output: [UInt8] = []
        output.reserveCapacity((input.count * 4 + 2) / 3)
        func append(_ group: UInt32, characters: Int) {
            for shift in stride(from: 18, to: 18 - 6 * characters, by: -6) {
                output.append(alphabet[Int((group >> UInt32(shift)) & 0x3F)])
            }
        }
        var index = 0
        while index + 3 <= input.count {
            append(UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2]), characters: 4)
            index += 3
        }
        switch input.count - index {
        case 1: append(UInt32(input[index]) << 16, characters: 2)
        case 2: append(UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8, characters: 3)
        default: break
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes of unpadded base64url text; nil unless the text is canonical: only the
    /// alphabet `A-Z a-z 0-9 - _`, no padding or white space, a length that is not 1 modulo 4,
    /// and zero bits where the last character has more bits than bytes need.
    public static func decode(_ text: String) -> [UInt8]? {
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count * 3 / 4)
        // The bits read and not yet output: fewer than 8 between characters.
        var pending: UInt32 = 0
        var pendingBits: UInt32 = 0
        for character in text.utf8 {
            let value = values[Int(character)]
            guard value != 0xFF else { return nil }
            pending = pending << 6 | UInt32(value)
            pendingBits += 6
            if pendingBits >= 8 {
                pendingBits -= 8
                output.append(UInt8(truncatingIfNeeded: pending >> pendingBits))
                pending &= (1 << pendingBits) - 1
            }
        }
        // 1 character left over (6 bits) cannot end a byte; unused bits must be zero.
        guard pendingBits != 6, pending == 0 else { return nil }
        return output
    }
}
