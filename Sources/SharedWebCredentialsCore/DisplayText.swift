/// Text from outside (an AASA file, an account name, a server's error) made safe to show on a
/// terminal: the one escaping function every human-readable output and every stored message uses.
public enum DisplayText {
    /// `text` with every character that could act on a terminal written as a `\u{…}` escape:
    /// C0 controls (escape, carriage return, backspace, newline, tab...), DEL, C1 controls (which
    /// some terminals treat like escape sequences) and the bidirectional overrides and isolates
    /// that reorder what follows them (U+202A to U+202E, U+2066 to U+2069). A backslash stays as
    /// it is, so escaped text is for reading, not for parsing back.
    public static func escaped(_ text: some StringProtocol) -> String {
        guard text.unicodeScalars.contains(where: isUnsafeForTerminal) else { return String(text) }
        var escaped = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isUnsafeForTerminal(scalar) {
                escaped.append(contentsOf: "\\u{\(String(scalar.value, radix: 16))}".unicodeScalars)
            } else {
                escaped.append(scalar)
            }
        }
        return String(escaped)
    }

    /// Whether printing `scalar` raw could change what the terminal shows elsewhere.
    public static func isUnsafeForTerminal(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// Appends one field of a tab-separated line (`request`'s `SERVER TAB ACCOUNT TAB PASSWORD`):
    /// a backslash, tab, newline and carriage return become `\\`, `\t`, `\n` and `\r`, and any
    /// other control byte (below 0x20, or 0x7F) `\xHH`, so a field can neither split a line, forge
    /// another, nor act on a terminal, and undoing the escapes gives the original back exactly.
    /// Every other byte is kept. Works on bytes so that a password can go from locked memory to
    /// the output buffer without becoming a `String`.
    public static func appendTabSeparatedField(_ bytes: some Sequence<UInt8>, to output: inout [UInt8]) {
        let hexDigits = Array("0123456789abcdef".utf8)
        for byte in bytes {
            switch byte {
            case 0x5C: output += [0x5C, 0x5C]
            case 0x09: output += [0x5C, UInt8(ascii: "t")]
            case 0x0A: output += [0x5C, UInt8(ascii: "n")]
            case 0x0D: output += [0x5C, UInt8(ascii: "r")]
            case 0x00..<0x20, 0x7F:
                output += [0x5C, UInt8(ascii: "x"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xF)]]
            default: output.append(byte)
            }
        }
    }
}
