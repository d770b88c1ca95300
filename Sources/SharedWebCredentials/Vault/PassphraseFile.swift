import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Reading a passphrase from a file (for scripts), straight into locked memory.
public enum PassphraseFile {
    /// The longest passphrase accepted, in bytes.
    public static let maximumLength = 4096

    /// Reads the passphrase in the file at `path`, without one trailing newline (`\n` or `\r\n`).
    /// Throws `.invalidInput` if the file cannot be read, is longer than ``maximumLength``, or
    /// (with `requirePrivate`) is a regular file that its group or others may read.
    ///
    /// - Parameters:
    ///   - what: how messages name the file (a password on standard input is read the same way).
    ///   - requirePrivate: refuse a file others may read (true for passphrase files).
    public static func read(
        at path: String, what: String = "passphrase file", requirePrivate: Bool = true
    ) throws -> SecureBytes {
        let contents = try SecretFile.read(
            at: path, limit: maximumLength + 3, what: what, requirePrivate: requirePrivate)
        return try trimmed(contents, naming: "The \(what) \(path)")
    }

    /// Reads a passphrase or password piped into standard input, from file descriptor 0 itself
    /// (not by reopening `/dev/stdin`, which fails for a pipe another user made, as with `sudo -u`,
    /// and for a socket), up to its end, without one trailing newline. A terminal is refused:
    /// the caller prompts there instead. `what` names the input, as "password on standard input".
    public static func readStandardInput(what: String) throws -> SecureBytes {
        guard isatty(STDIN_FILENO) == 0 else {
            throw SharedWebCredentialsError(
                .invalidInput, "The \(what) must be piped in, but standard input is a terminal.")
        }
        let contents = try SecretFile.read(descriptor: STDIN_FILENO, limit: maximumLength + 3, naming: "the \(what)")
        return try trimmed(contents, naming: "The \(what)")
    }

    /// `contents` without one trailing newline; throws when longer than ``maximumLength``.
    private static func trimmed(_ contents: SecureBytes, naming: String) throws -> SecureBytes {
        try contents.withUnsafeBytes { bytes in
            var end = bytes.count
            if end > 0, bytes[end - 1] == 0x0A { end -= 1 }
            if end > 0, bytes[end - 1] == 0x0D { end -= 1 }
            guard end <= maximumLength else {
                throw SharedWebCredentialsError(
                    .invalidInput, "\(naming) is longer than \(maximumLength) bytes; is it the right input?")
            }
            return SecureBytes(copying: UnsafeRawBufferPointer(rebasing: bytes[0..<end]))
        }
    }
}
