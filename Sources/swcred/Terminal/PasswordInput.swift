import SharedWebCredentials

/// Reads a password for `swcred add --password-stdin`. Passwords never come from argv.
enum PasswordInput {
    /// On a terminal, prompts with echo off; otherwise reads standard input up to its end, without
    /// one trailing newline, straight into locked memory.
    static func readFromStandardInput(account: String, domain: some CustomStringConvertible) throws -> SecureBytes {
        if Terminal.inputIsTerminal {
            return try PassphraseInput.promptWithoutEcho(
                "Password for \"\(Terminal.displayable(account))\" on \(domain): ")
        }
        return try PassphraseFile.readStandardInput(what: "password on standard input")
    }
}
