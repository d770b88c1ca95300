import CSodium

/// A key file's 32 bytes as text, for a request body: base64url without padding (43 characters),
/// the way a client hands the key to `swcred serve`'s unlock, which opens no file a request names.
extension KeyFile {
    /// The length of a key in ``text(of:)``'s form.
    public static let textLength = 43

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// `key` in base64url without padding.
    public static func text(of key: SecureBytes) -> String {
        key.withUnsafeBytes { bytes in
            var characters: [UInt8] = []
            characters.reserveCapacity((bytes.count * 4 + 2) / 3)
            var index = 0
            while index < bytes.count {
                let chunk = min(3, bytes.count - index)
                var group = UInt32(bytes[index]) << 16
                if chunk > 1 { group |= UInt32(bytes[index + 1]) << 8 }
                if chunk > 2 { group |= UInt32(bytes[index + 2]) }
                for position in 0...chunk { characters.append(alphabet[Int((group >> (18 - 6 * position)) & 0x3F)]) }
                index += 3
            }
            defer { wipe(&characters) }
            return String(decoding: characters, as: UTF8.self)
        }
    }

    /// The key that `text` carries, decoded straight into locked memory; nil unless `text` is
    /// exactly ``textLength`` characters of base64url without padding whose unused low bits are
    /// zero (one text per key).
    public static func key(fromText text: String) -> SecureBytes? {
        let characters = Array(text.utf8)
        guard characters.count == textLength else { return nil }
        var values: [UInt8] = []
        values.reserveCapacity(textLength)
        for character in characters {
            guard let value = alphabet.firstIndex(of: character) else { return nil }
            values.append(UInt8(value))
        }
        defer { wipe(&values) }
        // 43 characters carry 258 bits: the last character's two low bits are not part of the key.
        guard values[textLength - 1] & 0b11 == 0 else { return nil }
        return SecureBytes(count: length) { key in
            var bits: UInt32 = 0
            var held = 0
            var written = 0
            for value in values {
                bits = (bits << 6) | UInt32(value)
                held += 6
                if held >= 8, written < length {
                    held -= 8
                    key[written] = UInt8((bits >> held) & 0xFF)
                    written += 1
                }
            }
            bits = 0
        }
    }

    /// Zeroes a copy of key material held outside locked memory before it is released.
    private static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { sodium_memzero($0.baseAddress, $0.count) }
    }
}
