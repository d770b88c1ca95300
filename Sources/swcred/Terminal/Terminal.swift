import SharedWebCredentials

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The tool's access to its standard streams. The library never prints; only the CLI does.
enum Terminal {
    /// Whether standard input is a terminal (prompts and pickers are possible).
    static var inputIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }

    /// Whether standard output is a terminal (someone may be looking at what is printed).
    static var outputIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }

    /// Whether standard error is a terminal (progress may be drawn).
    static var errorIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    /// Writes one line to standard error, as `swcred: error: MESSAGE` unless `prefixed` is false.
    /// The message is made safe first (see ``displayable(_:)``); argument-parser's own
    /// multi-line messages (`prefixed` false) keep their line breaks.
    static func printError(_ message: String, prefixed: Bool = true) {
        if prefixed {
            writeToStandardError("swcred: error: \(displayable(message))\n")
        } else {
            let lines = message.split(separator: "\n", omittingEmptySubsequences: false)
            writeToStandardError(lines.map { displayable(String($0)) }.joined(separator: "\n") + "\n")
        }
    }

    /// Writes one line to standard error as `swcred: warning: MESSAGE`.
    static func printWarning(_ message: String) {
        writeToStandardError("swcred: warning: \(displayable(message))\n")
    }

    /// The longest line a diagnostic may print; longer ones lose their middle.
    static let maximumDiagnosticLength = 1_000

    /// `text` made safe for a terminal (``DisplayText/escaped(_:)``) and kept to one readable
    /// line: one longer than ``maximumDiagnosticLength`` keeps its start and end around a note of
    /// what was left out.
    static func displayable(_ text: String) -> String {
        let escaped = DisplayText.escaped(text)
        guard escaped.count > maximumDiagnosticLength else { return escaped }
        let kept = maximumDiagnosticLength / 2
        let omitted = escaped.count - 2 * kept
        return "\(escaped.prefix(kept))…(\(omitted) characters left out)…\(escaped.suffix(kept))"
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
