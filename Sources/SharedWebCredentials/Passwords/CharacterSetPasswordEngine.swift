import Foundation

/// Passwords of uniformly random characters from one alphabet, in segments joined by a fixed
/// separator (`xxx-xxx-xxx-xxx`) or in one piece, kept only when they hold a character of every
/// required set and respect the run limits; otherwise drawn again (rejection sampling), so every
/// accepted password is equally likely. Styles `classic` and `legacy`, and rule-driven `classic`.
struct CharacterSetPasswordEngine {
    /// The most random characters drawing one password may take on average (the password's length
    /// divided by the share of candidates accepted): rules that need more are refused, so that any
    /// rules give a password, or a refusal, within milliseconds.
    static let maximumExpectedCharacters = 1_000_000.0

    private let alphabet: [UInt8]
    private let segments: [Int]
    private let separator: UInt8?
    private let required: [PasswordCharacterSet]
    private let maxRepeating: Int?
    private let maxSequential: Int?
    /// The entropy of every accepted password: `m·log2(k) + log2(P)` (see ``AcceptanceProbability``);
    /// a lower bound when `P` is (rules with many required sets).
    let entropyBits: Double

    /// Creates an engine, or fails with `.invalidInput` when no password, or too few, could pass.
    init(
        alphabet: PasswordCharacterSet, segments: [Int], separator: UInt8?,
        required: [PasswordCharacterSet], maxRepeating: Int?, maxSequential: Int?
    ) throws {
        guard !alphabet.isEmpty else {
            throw SharedWebCredentialsError(
                .invalidInput, "The rules allow no characters to generate from; allow at least one class.")
        }
        self.alphabet = alphabet.codes
        self.segments = segments
        self.separator = separator
        self.required = required
        self.maxRepeating = maxRepeating
        self.maxSequential = maxSequential
        let acceptance = AcceptanceProbability.compute(
            alphabet: alphabet, segments: segments, required: required,
            maxRepeating: maxRepeating, maxSequential: maxSequential)
        let randomCharacters = segments.reduce(0, +)
        let probability = acceptance.probability
        guard probability > 0 || !acceptance.isExact else {
            throw SharedWebCredentialsError(
                .invalidInput,
                "No password can satisfy these rules: the length, the required classes and the "
                    + "max-consecutive limits contradict each other. Relax one of them.")
        }
        guard Double(randomCharacters) <= probability * Self.maximumExpectedCharacters else {
            if !acceptance.isExact {
                throw SharedWebCredentialsError(
                    .invalidInput,
                    "These rules have \(required.count) required classes: too many for swcred to confirm "
                        + "quickly that enough passwords meet them all. Merge some required classes, or allow "
                        + "a longer length.")
            }
            throw SharedWebCredentialsError(
                .invalidInput,
                "These rules admit too small a share of passwords to generate them reliably; "
                    + "allow more characters, a longer length or fewer required classes.")
        }
        entropyBits = Double(randomCharacters) * log2(Double(alphabet.count)) + log2(probability)
    }

    /// Appends one password to `output` and returns its entropy in bits.
    func append(to output: inout [UInt8], random: inout SecureRandom) -> Double {
        let length = segments.reduce(0, +) + (separator == nil ? 0 : segments.count - 1)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: length) { candidate in
            repeat {
                var index = 0
                for (segmentIndex, segmentLength) in segments.enumerated() {
                    if segmentIndex > 0, let separator {
                        candidate[index] = separator
                        index += 1
                    }
                    for _ in 0..<segmentLength {
                        candidate[index] = alphabet[random.uniform(alphabet.count)]
                        index += 1
                    }
                }
            } while !isAcceptable(UnsafeBufferPointer(candidate))
            output.append(contentsOf: candidate)
            candidate.initialize(repeating: 0)
        }
        return entropyBits
    }

    private func isAcceptable(_ candidate: UnsafeBufferPointer<UInt8>) -> Bool {
        for set in required where !candidate.contains(where: { set.contains(code: $0) }) {
            return false
        }
        return SequenceRuns.satisfies(candidate, maxRepeating: maxRepeating, maxSequential: maxSequential)
    }
}
