#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The tool's access to its standard streams. The library never prints; only the CLI does.
enum Terminal {
    /// Whether standard input is a terminal (prompts and pickers are possible).
    static var inputIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }

    /// Whether standard error is a terminal (progress may be drawn).
    static var errorIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    /// Writes one line to standard error, as `swcred: error: MESSAGE` unless `prefixed` is false.
    static func printError(_ message: String, prefixed: Bool = true) {
        writeToStandardError(prefixed ? "swcred: error: \(message)\n" : "\(message)\n")
    }

    /// Writes one line to standard error as `swcred: warning: MESSAGE`.
    static func printWarning(_ message: String) {
        writeToStandardError("swcred: warning: \(message)\n")
    }

    /// Writes text to standard error unbuffered.
    static func writeToStandardError(_ text: String) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(STDERR_FILENO, buffer.baseAddress! + offset, buffer.count - offset)
                if written <= 0 { break }
                offset += written
            }
        }
    }
}
