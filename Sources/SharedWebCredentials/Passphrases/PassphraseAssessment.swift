import Foundation

/// A passphrase judged together with the Argon2id parameters that protect it: how long trying
/// every guess zxcvbn-c expects it to need would take at ``OfflineAttackModel``'s rate.
public struct PassphraseAssessment: Sendable, Equatable {
    /// What the assessment means for a new passphrase.
    public enum Verdict: Sendable, Equatable {
        /// It would fall in under a year: refused unless the owner insists.
        case tooWeak
        /// It would hold between one and a hundred years: a warning, and a confirmation.
        case weak
        /// It would hold for a century or more.
        case strong
    }

    /// Below this many seconds a passphrase is ``Verdict/tooWeak``: one year.
    public static let refusalThreshold = OfflineAttackModel.secondsPerYear
    /// Below this many seconds a passphrase is ``Verdict/weak``: a hundred years.
    public static let warningThreshold = 100 * OfflineAttackModel.secondsPerYear

    /// zxcvbn-c's estimate: the base-2 logarithm of the guesses the passphrase takes.
    public let estimatedBits: Double
    /// The Argon2id parameters judged with it.
    public let parameters: KDFParameters
    /// Whether only the first ``PassphraseStrength/judgedCharacterLimit`` characters were judged.
    public let judgedPrefixOnly: Bool

    /// Judges an estimate of `estimatedBits` under `parameters`.
    public init(estimatedBits: Double, parameters: KDFParameters, judgedPrefixOnly: Bool = false) {
        self.estimatedBits = estimatedBits
        self.parameters = parameters
        self.judgedPrefixOnly = judgedPrefixOnly
    }

    /// Judges `passphrase` under `parameters`; `context` as in
    /// ``PassphraseStrength/estimatedBits(of:context:)``.
    public init(passphrase: SecureBytes, parameters: KDFParameters, context: [String] = []) {
        self.init(
            estimatedBits: PassphraseStrength.estimatedBits(of: passphrase, context: context), parameters: parameters,
            judgedPrefixOnly: PassphraseStrength.exceedsJudgedLength(passphrase))
    }

    /// The modelled attacker's guesses per second.
    public var guessesPerSecond: Double { OfflineAttackModel.guessesPerSecond(parameters) }

    /// Seconds to try every guess the estimate counts.
    public var secondsToExhaust: Double { exp2(estimatedBits) / guessesPerSecond }

    /// Refused, warned about, or accepted. Fails closed: an estimate that is not a number is
    /// too weak.
    public var verdict: Verdict {
        let seconds = secondsToExhaust
        guard seconds >= Self.refusalThreshold else { return .tooWeak }
        return seconds < Self.warningThreshold ? .weak : .strong
    }

    /// One sentence with the figures behind the verdict, for messages: the estimate, the rate
    /// and the time, in words.
    public var explanation: String {
        let bits = String(format: "%.1f", estimatedBits)
        let passes = parameters.opslimit == 1 ? "1 pass" : "\(parameters.opslimit) passes"
        let judged =
            judgedPrefixOnly
            ? " for its first \(PassphraseStrength.judgedCharacterLimit) characters (later ones are not counted)" : ""
        return
            "zxcvbn estimates \(bits) bits\(judged), and Argon2id with \(passes) over \(ApproximateWording.bytes(parameters.memlimit)) "
            + "lets one GPU try about \(ApproximateWording.number(guessesPerSecond)) guesses per second: "
            + "\(ApproximateWording.duration(seconds: secondsToExhaust)) to try them all"
    }
}
