/// Reads and writes integer literals in the base they were written in.
enum IntegerLiterals {
    /// The value of `42`, `1_000`, `0x7f`, `0o17` or `0b101`; nil when it does not fit an `Int`.
    static func value(of text: String) -> Int? {
        let digits = text.filter { $0 != "_" }
        let (radix, body) = split(digits)
        return Int(body, radix: radix)
    }

    /// `value` written in the same base, prefix and least number of digits as `original`
    /// (`0x07` plus one is `0x08`).
    static func text(_ value: Int, like original: String) -> String {
        let (radix, body) = split(original.filter { $0 != "_" })
        let prefix = radix == 10 ? "" : String(original.prefix(2))
        let digits = String(value, radix: radix)
        let padding = radix == 10 ? 0 : max(0, body.count - digits.count)
        return prefix + String(repeating: "0", count: padding) + digits
    }

    private static func split(_ text: String) -> (Int, Substring) {
        switch text.prefix(2) {
        case "0x": return (16, text.dropFirst(2))
        case "0o": return (8, text.dropFirst(2))
        case "0b": return (2, text.dropFirst(2))
        default: return (10, Substring(text))
        }
    }
}
