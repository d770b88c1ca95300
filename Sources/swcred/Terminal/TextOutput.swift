import SharedWebCredentials

/// Human-readable standard output. Every line goes through ``DisplayText/escaped(_:)``, so text
/// from outside (an AASA file, a server's error, an account name) cannot act on the terminal.
enum TextOutput {
    /// Prints one line, its control characters and bidirectional overrides escaped.
    static func line(_ text: String) {
        print(DisplayText.escaped(text))
    }

    /// Prints encoded JSON as it is: JSON escapes control characters itself.
    static func json(_ data: some Sequence<UInt8>) {
        print(String(decoding: Array(data), as: UTF8.self))
    }
}
