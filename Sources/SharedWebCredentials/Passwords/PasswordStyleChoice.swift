/// How rule-driven generation picks a style and shape, as Apple's Password Rules tool does
/// (SPEC.md §4), with two deliberate departures.
///
/// - `strong` when minlength ≤ 20, maxlength is absent or ≥ 20, the allowed set holds all 60
///   unambiguous characters, at most one required set is exactly `digit` and one exactly `upper`,
///   and every required set is certain to be met by a strong password: it holds every lower-case
///   letter strong uses, every digit, every upper-case letter strong may produce, or (with dashes)
///   `-`. `strong-nodash` when the same holds but `-` is not allowed (and minlength ≤ 18, its length). Strong passwords also need
///   repeated runs of 2 and sequential runs of 5 (`stuvw` can occur across syllables); tighter
///   limits choose `classic`. *Departure:* Apple only asks that each required set meet the
///   unambiguous characters or `-`, then regenerates; requiring certainty keeps every strong password
///   uniform over its whole space, so its entropy stays exact.
/// - Otherwise `classic` over the allowed set (dropping space, `l` and `O` when every required set
///   keeps a character): `xxx-xxx-xxx-xxx` (15 characters) when `-` is allowed and 15 fits the
///   length limits, else one piece of `min(maxlength, max(minlength, 20))` characters.
///   *Departure:* where Apple's tool drops to 12 characters (maxlength 15 to 19, `-` forbidden),
///   this uses the longest length the rules allow.
struct PasswordStyleChoice {
    /// The shape of the passwords to make.
    enum Plan {
        /// Strong, with or without dashes.
        case strong(dashes: Bool)
        /// Random characters from `alphabet` in `segments` (joined by `-` when more than one), each
        /// required set met.
        case characterSet(alphabet: PasswordCharacterSet, segments: [Int], required: [PasswordCharacterSet])
    }

    /// The longest password rule-driven generation makes.
    static let maximumLength = 256
    /// The most `required` properties rule-driven generation accepts.
    static let maximumRequiredSets = 12
    /// The 60 unambiguous letters and digits: no `l`, no `O`.
    static let unambiguous = PasswordCharacterSet("abcdefghijkmnopqrstuvwxyzABCDEFGHIJKLMNPQRSTUVWXYZ0123456789")
    /// The lower-case letters a strong password is made of.
    private static let strongLower = PasswordCharacterSet("bcdfghjkmnpqrstvwxzaeiouy")
    /// The upper-case letters a strong password may contain (any of its letters but `o`).
    private static let strongUpper = PasswordCharacterSet("BCDFGHJKMNPQRSTVWXZAEIUY")
    /// Characters left out of rule-driven `classic` passwords when possible.
    private static let ambiguous = PasswordCharacterSet(" lO")

    /// The chosen style.
    let style: PasswordStyle
    /// The chosen shape.
    let plan: Plan

    /// Chooses for `rules`, or fails with `.invalidInput` when they cannot be met.
    init(rules: PasswordRules) throws {
        let minLength = rules.minLength ?? 0
        let maxLength = rules.maxLength ?? Int.max
        guard minLength <= maxLength else {
            throw SharedWebCredentialsError(
                .invalidInput, "minlength \(minLength) is larger than maxlength \(maxLength); fix the rules.")
        }
        guard minLength <= Self.maximumLength else {
            throw SharedWebCredentialsError(
                .invalidInput, "minlength \(minLength) is beyond the \(Self.maximumLength) characters swcred generates."
            )
        }
        guard rules.required.count <= Self.maximumRequiredSets else {
            throw SharedWebCredentialsError(
                .invalidInput,
                "The rules have \(rules.required.count) required properties; swcred supports at most "
                    + "\(Self.maximumRequiredSets). Merge some of them.")
        }
        let allowed = rules.allowed.characters
        let required = rules.required.map(\.characters)
        if minLength <= 20 && maxLength >= 20 && Self.unambiguous.isSubset(of: allowed)
            && required.filter({ $0 == .digits }).count <= 1 && required.filter({ $0 == .upper }).count <= 1
            && (rules.effectiveMaxRepeating ?? 2) >= 2 && (rules.effectiveMaxSequential ?? 5) >= 5
        {
            let dashes = allowed.contains("-")
            let certain = required.allSatisfy { set in
                Self.strongLower.isSubset(of: set) || PasswordCharacterSet.digits.isSubset(of: set)
                    || Self.strongUpper.isSubset(of: set) || (dashes && set.contains("-"))
            }
            // strong-nodash has 18 characters, so it also needs minlength <= 18.
            if certain && (dashes || minLength <= 18) {
                style = dashes ? .strong : .strongNoDash
                plan = .strong(dashes: dashes)
                return
            }
        }
        style = .classic
        var alphabet = allowed.subtracting(Self.ambiguous)
        if alphabet.isEmpty || !required.allSatisfy({ $0.intersects(alphabet) }) { alphabet = allowed }
        let dash = PasswordCharacterSet("-")
        let dashedAlphabet = alphabet.subtracting(dash)
        if allowed.contains("-") && minLength <= 15 && maxLength >= 15 && !dashedAlphabet.isEmpty {
            plan = .characterSet(
                alphabet: dashedAlphabet, segments: [3, 3, 3, 3], required: required.filter { !$0.contains("-") })
        } else {
            let length = min(maxLength, max(minLength, 20))
            plan = .characterSet(alphabet: alphabet, segments: [length], required: required)
        }
    }
}
