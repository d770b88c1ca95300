/// Generates passwords of one style, or that satisfy a set of Password Rules (SPEC.md §4).
///
/// Every choice comes from ``SecureRandom``, except a passphrase's words (see
/// ``PassphraseGenerator``). Each password reports its exact entropy: for `strong`
/// see ``StrongPasswordEngine``; for `classic`, `legacy` and rule-driven passwords, which are drawn
/// by rejection, the base-2 logarithm of the number of passwords that can be accepted.
///
/// Not thread-safe: give each thread its own generator.
public final class PasswordGenerator {
    private enum Engine {
        case strong(StrongPasswordEngine)
        case characterSet(CharacterSetPasswordEngine)
        case passphrase(PassphraseGenerator)
    }

    private let engine: Engine
    private var random = SecureRandom()

    /// The style of every password this generator makes.
    public let style: PasswordStyle

    /// A generator of one fixed style.
    public init(style: PasswordStyle) {
        self.style = style
        switch style {
        case .strong: engine = .strong(StrongPasswordEngine(dashes: true))
        case .strongNoDash: engine = .strong(StrongPasswordEngine(dashes: false))
        // The fixed styles' alphabets and requirements are constants that admit most candidates,
        // so building their engines cannot fail.
        case .classic: engine = .characterSet(try! Self.classicEngine())
        case .legacy: engine = .characterSet(try! Self.legacyEngine())
        case .passphrase: engine = .passphrase(try! PassphraseGenerator())
        }
    }

    /// A generator of passphrases made by `passphrase` (style ``PasswordStyle/passphrase``).
    public init(passphrase: PassphraseGenerator) {
        style = .passphrase
        engine = .passphrase(passphrase)
    }

    /// A generator whose every password satisfies `rules`, in the style Apple's tool would pick
    /// (see ``PasswordStyleChoice``).
    ///
    /// - Throws: `SharedWebCredentialsError(.invalidInput)` when the rules cannot be met.
    public init(rules: PasswordRules) throws {
        let choice = try PasswordStyleChoice(rules: rules)
        style = choice.style
        switch choice.plan {
        case .strong(let dashes): engine = .strong(StrongPasswordEngine(dashes: dashes))
        case .characterSet(let alphabet, let segments, let required):
            engine = .characterSet(
                try CharacterSetPasswordEngine(
                    alphabet: alphabet, segments: segments,
                    separator: segments.count > 1 ? UInt8(ascii: "-") : nil, required: required,
                    maxRepeating: rules.effectiveMaxRepeating, maxSequential: rules.effectiveMaxSequential))
        }
    }

    /// The next password.
    public func next() -> GeneratedPassword {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        let bits = append(to: &bytes)
        let password = String(decoding: bytes, as: UTF8.self)
        for index in bytes.indices { bytes[index] = 0 }
        return GeneratedPassword(password: password, style: style, entropyBits: bits)
    }

    /// The next password in locked memory, for a caller that stores or prints it without ever
    /// making it a `String` (which cannot be wiped). The bytes pass through one buffer of the
    /// generator's, wiped at once.
    public func nextSecret() -> SecureBytes {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(PasswordStyleChoice.maximumLength + 8)
        _ = append(to: &bytes)
        let secret = SecureBytes(copying: bytes)
        for index in bytes.indices { bytes[index] = 0 }
        return secret
    }

    /// Appends the next password's ASCII bytes to `output` (for streaming many without making a
    /// `String` each) and returns its entropy in bits.
    public func append(to output: inout [UInt8]) -> Double {
        switch engine {
        case .strong(let strong): return strong.append(to: &output, random: &random)
        case .characterSet(let characterSet): return characterSet.append(to: &output, random: &random)
        case .passphrase(let passphrase):
            passphrase.next().withUnsafeBytes { output.append(contentsOf: $0) }
            return passphrase.entropyBits
        }
    }

    /// `classic`: `xxx-xxx-xxx-xxx` from the 60 unambiguous characters, with a lower-case letter,
    /// an upper-case letter and a digit: 60^12 - 2·35^12 - 50^12 + 10^12 + 2·25^12 accepted, ≈ 70.71 bits.
    private static func classicEngine() throws -> CharacterSetPasswordEngine {
        try CharacterSetPasswordEngine(
            alphabet: PasswordStyleChoice.unambiguous, segments: [3, 3, 3, 3],
            separator: UInt8(ascii: "-"),
            required: [
                PasswordStyleChoice.unambiguous.intersection(.lower),
                PasswordStyleChoice.unambiguous.intersection(.upper), .digits,
            ], maxRepeating: nil, maxSequential: nil)
    }

    /// `legacy`: exactly `SecCreateSharedWebCredentialPassword`'s sets and requirements. The accepted
    /// passwords number, by inclusion-exclusion, 55^12 - 32^12 - 31^12 - 48^12 + 8^12 + 25^12 + 24^12 - 1^12,
    /// so each has log2 of that ≈ 69.06 bits.
    private static func legacyEngine() throws -> CharacterSetPasswordEngine {
        let lower = PasswordCharacterSet("abcdefghkmnopqrstuvwxyz")
        let upper = PasswordCharacterSet("ABCDEFGHJKLMNPQRSTUVWXYZ")
        let alphabet = lower.union(upper).union(PasswordCharacterSet("23456789"))
        return try CharacterSetPasswordEngine(
            alphabet: alphabet, segments: [3, 3, 3, 3], separator: UInt8(ascii: "-"),
            required: [lower, upper, PasswordCharacterSet("3456789")], maxRepeating: nil, maxSequential: nil)
    }
}
