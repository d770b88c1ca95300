/// The shapes of password swcred generates (SPEC.md §4).
public enum PasswordStyle: String, Sendable, CaseIterable, CustomStringConvertible {
    /// Safari's automatic strong password: `xxxxxx-xxxxxx-xxxxxx`, syllables, one upper-case letter
    /// and one digit at a group edge. The default.
    case strong
    /// `strong` without the two dashes (18 characters), for sites that forbid `-`.
    case strongNoDash = "strong-nodash"
    /// 12 characters from the 60 unambiguous letters and digits, as `xxx-xxx-xxx-xxx`; or, when
    /// driven by rules, characters from the allowed set.
    case classic
    /// `SecCreateSharedWebCredentialPassword`: `xxx-xxx-xxx-xxx` from 55 characters.
    case legacy
    /// Words from the EFF large wordlist, six joined by `-` unless a ``PassphraseGenerator`` says
    /// otherwise: for the vault's own passphrase, not for sites.
    case passphrase

    public var description: String { rawValue }
}

/// One generated password with the facts about how it was made.
public struct GeneratedPassword: Sendable, Equatable {
    /// The password.
    public var password: String
    /// The style that produced it.
    public var style: PasswordStyle
    /// Its entropy in bits: the base-2 logarithm of one over its probability under the generator,
    /// computed from the generator's own choices (see ``PasswordGenerator``).
    public var entropyBits: Double

    /// A generated password as another process reported it (the service's client).
    public init(password: String, style: PasswordStyle, entropyBits: Double) {
        self.password = password
        self.style = style
        self.entropyBits = entropyBits
    }
}
