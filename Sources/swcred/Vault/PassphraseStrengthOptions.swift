import ArgumentParser
import Foundation
import SharedWebCredentials

/// `--allow-weak-passphrase`, and the judgement `init` and `passwd` make of a new passphrase
/// together with its Argon2id settings (DESIGN.md, "Passphrase strength").
struct PassphraseStrengthOptions: ParsableArguments {
    @Flag(help: "Accept a passphrase that would fall to an offline attack in under 100 years (with a warning).")
    var allowWeakPassphrase = false

    /// The attack model, for the commands' `--help`.
    static let modelHelp = """
        A new passphrase is judged with its Argon2id settings: zxcvbn-c estimates the guesses it \
        takes, and one GPU with 3.35 TB/s of memory bandwidth tries 3.35e12 / (3 x memlimit x \
        opslimit) guesses per second, at most 10^9 (about 5,500 at the default settings, 260 with \
        --kdf sensitive). If trying them all takes under a year the passphrase is refused (exit 2); \
        under 100 years it is accepted with a warning, after a confirmation on a terminal (declined: \
        exit 6). --allow-weak-passphrase accepts either with the warning. A key file is not judged. \
        `swcred generate --style passphrase` makes a strong passphrase.
        """

    /// Judges `passphrase` under `parameters` for the vault at `vaultPath`. Returns when it may be
    /// used; throws `invalidInput` (exit 2) when it is refused and `declined` (exit 6) when the
    /// owner declines it on the terminal. `unchanged` says what was left as it was, for messages.
    func judge(_ passphrase: SecureBytes, parameters: KDFParameters, vaultPath: String, unchanged: String) throws {
        let assessment = PassphraseAssessment(
            passphrase: passphrase, parameters: parameters, context: Self.contextWords(vaultPath: vaultPath))
        switch assessment.verdict {
        case .strong:
            return
        case .tooWeak where !allowWeakPassphrase:
            throw SharedWebCredentialsError(
                .invalidInput,
                "The passphrase would fall to an offline attack in under a year: \(assessment.explanation). Choose a longer one (`swcred generate --style passphrase` makes one), stronger Argon2id settings (--kdf sensitive), or give --allow-weak-passphrase; \(unchanged)."
            )
        case .tooWeak:
            Terminal.printWarning(
                "The passphrase would fall to an offline attack in under a year: \(assessment.explanation). Accepted because of --allow-weak-passphrase."
            )
        case .weak:
            Terminal.printWarning(
                "The passphrase would hold less than 100 years against an offline attack: \(assessment.explanation).")
            guard !allowWeakPassphrase, Consent.canAsk else { return }
            guard Consent.ask("Use this passphrase anyway?") else {
                throw SharedWebCredentialsError(.declined, "Declined the weak passphrase; \(unchanged).")
            }
        }
    }

    /// Words an attacker tries first: the program's name, the vault's file name with and without
    /// its extension, and the user's name (zxcvbn-c's user dictionary).
    static func contextWords(vaultPath: String) -> [String] {
        let file = URL(fileURLWithPath: vaultPath).lastPathComponent
        let stem = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
        return ["swcred", file, stem, ProcessInfo.processInfo.userName]
    }
}
