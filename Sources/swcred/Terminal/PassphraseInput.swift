import SharedWebCredentials

#if canImport(Glibc)
    import Glibc
#endif

/// Where a passphrase comes from: a file option, an environment variable, or a no-echo prompt.
enum PassphraseInput {
    /// Reads a passphrase from `file` if given, else `environmentVariable`, else a terminal
    /// prompt (asked twice when `confirm`). Off a terminal with neither, fails with `.vaultLocked`.
    static func read(
        file: String?, environmentVariable: String, fileOption: String, prompt: String, confirm: Bool
    ) throws -> SecureBytes {
        if let file { return try PassphraseFile.read(at: file) }
        if let value = getenv(environmentVariable) {
            return SecureBytes(copying: UnsafeRawBufferPointer(start: value, count: strlen(value)))
        }
        guard Terminal.inputIsTerminal else {
            throw SharedWebCredentialsError(
                .vaultLocked,
                "No passphrase: set \(environmentVariable), pass \(fileOption) PATH, or run on a terminal to be prompted (key-file vaults: --key-file PATH)."
            )
        }
        let first = try promptWithoutEcho(prompt)
        guard confirm else { return first }
        let second = try promptWithoutEcho("Repeat to confirm: ")
        guard first.isEqual(to: second) else {
            throw SharedWebCredentialsError(
                .invalidInput, "The two passphrases differ; nothing was changed. Try again.")
        }
        return first
    }

    /// Asks on the terminal with echo turned off and reads one line into locked memory.
    static func promptWithoutEcho(_ prompt: String) throws -> SecureBytes {
        Terminal.writeToStandardError(prompt)
        return try TerminalEchoGuard.withEchoOff {
            var length = 0
            let line = SecureBytes(count: PassphraseFile.maximumLength) { buffer in
                var byte: UInt8 = 0
                while length < buffer.count, Glibc.read(STDIN_FILENO, &byte, 1) == 1, byte != 0x0A {
                    buffer[length] = byte
                    length += 1
                }
                byte = 0
            }
            return line.withUnsafeBytes { SecureBytes(copying: UnsafeRawBufferPointer(rebasing: $0[0..<length])) }
        }
    }
}
