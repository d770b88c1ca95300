import Foundation

/// Unpadded base64url (RFC 4648 §5), the encoding of every binary member of WebAuthn's JSON.
public enum Base64URL {
    /// The unpadded base64url text of `bytes`.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The bytes of unpadded base64url text; nil unless the text is canonical: only the
    /// alphabet `A-Z a-z 0-9 - _`, no padding or white space, a length that is not 1 modulo 4,
    /// and zero bits where the last character has more bits than bytes need.
    public static func decode(_ text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 4 != 1,
            utf8.allSatisfy({
                ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39)
                    || $0 == 0x2D || $0 == 0x5F
            })
        else { return nil }
        var standard = String(decoding: utf8, as: UTF8.self)
            .replacingOccurrences(of: "-", with: "+")
            .replacingOccurrences(of: "_", with: "/")
        standard += String(repeating: "=", count: (4 - utf8.count % 4) % 4)
        guard let data = Data(base64Encoded: standard) else { return nil }
        let bytes = [UInt8](data)
        // Refuse non-zero unused bits, so that each byte string has exactly one text.
        guard encode(bytes) == text else { return nil }
        return bytes
    }
}
