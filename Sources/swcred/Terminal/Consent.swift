import Foundation
import SharedWebCredentials

/// The person's consent, asked on the terminal: Apple's confirmation sheet and account picker.
///
/// "On a terminal" means both standard input and standard error are terminals: the question
/// goes to standard error and the answer comes from standard input. Anywhere else nobody can be
/// asked, so changes need `--yes` and requests return every match.
enum Consent {
    /// Whether a person can be asked.
    static var canAsk: Bool { Terminal.inputIsTerminal && Terminal.errorIsTerminal }

    /// Asks a yes/no question; only `y` or `yes` (any case) agrees. With `assumeYes` nobody is
    /// asked. Off a terminal without `assumeYes`, fails with `declined`.
    static func confirm(_ change: CredentialChange, assumeYes: Bool) throws -> Bool {
        if assumeYes { return true }
        guard canAsk else {
            throw SharedWebCredentialsError(
                .declined,
                "confirmation required: \(change.kind.rawValue) of \"\(Terminal.displayable(change.account))\" on \(change.site.name) needs a terminal to ask on, or --yes; nothing was changed"
            )
        }
        return ask(Terminal.displayable(change.description))
    }

    /// Lets the person pick one credential: a numbered list of server and account (never the
    /// passwords) when there are several, a confirmation when there is one. Returns nil when
    /// they cancel.
    static func pick<Released: ReleasableCredential>(from credentials: [Released]) -> Released? {
        if credentials.count == 1, let only = credentials.first {
            return ask("Use the saved password for \"\(Terminal.displayable(only.account))\" on \(only.location)?")
                ? only : nil
        }
        var menu = "Saved passwords:\n"
        for (number, credential) in credentials.enumerated() {
            menu += "  \(number + 1)) \(Terminal.displayable(credential.account)) on \(credential.location)\n"
        }
        menu += "Choose 1-\(credentials.count), or press Return to cancel: "
        Terminal.writeToStandardError(menu)
        while let line = readLine(strippingNewline: true) {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.isEmpty { return nil }
            if let number = Int(text), (1...credentials.count).contains(number) { return credentials[number - 1] }
            Terminal.writeToStandardError("Type a number from 1 to \(credentials.count), or press Return to cancel: ")
        }
        return nil
    }

    /// Puts a yes/no question on standard error; only `y` or `yes` (any case) agrees.
    static func ask(_ question: String) -> Bool {
        Terminal.writeToStandardError("\(question) [y/N] ")
        let answer = readLine(strippingNewline: true)?.trimmingCharacters(in: .whitespaces).lowercased()
        return answer == "y" || answer == "yes"
    }
}
