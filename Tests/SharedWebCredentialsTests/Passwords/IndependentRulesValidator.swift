@testable import SharedWebCredentials

/// Checks passwords against parsed rules with code written only for the tests, so that the
/// generator's own checks are not what judges it.
struct IndependentRulesValidator {
    private let rules: PasswordRules
    private let allowed: Set<UInt8>
    private let required: [Set<UInt8>]
    private let repeatLimit: Int?
    private let sequenceLimit: Int?
    /// For each character that starts a step of an ascending run (`a`→`b`, `8`→`9`), the next one.
    private let nextInRun: [UInt8: UInt8]

    init(_ rules: PasswordRules) {
        self.rules = rules
        allowed = Set(rules.allowed.characters.codes)
        required = rules.required.map { Set($0.characters.codes) }
        repeatLimit = [rules.maxRepeating, rules.maxConsecutive].compactMap { $0 }.min()
        sequenceLimit = [rules.maxSequential, rules.maxConsecutive].compactMap { $0 }.min()
        var next: [UInt8: UInt8] = [:]
        for run in ["abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "0123456789"] {
            let codes = Array(run.utf8)
            for index in codes.indices.dropLast() { next[codes[index]] = codes[index + 1] }
        }
        nextInRun = next
    }

    /// The first rule `password` breaks, or `nil`.
    func violation(_ password: String) -> String? {
        let bytes = Array(password.utf8)
        if let minimum = rules.minLength, bytes.count < minimum { return "shorter than minlength \(minimum)" }
        if let maximum = rules.maxLength, bytes.count > maximum { return "longer than maxlength \(maximum)" }
        if let stray = bytes.first(where: { !allowed.contains($0) }) { return "character \(stray) not allowed" }
        for (index, set) in required.enumerated() where !bytes.contains(where: set.contains) {
            return "required set \(index) missing"
        }
        var repeated = 1
        var ascending = 1
        var descending = 1
        for index in bytes.indices.dropFirst() {
            let (previous, current) = (bytes[index - 1], bytes[index])
            repeated = previous == current ? repeated + 1 : 1
            ascending = nextInRun[previous] == current ? ascending + 1 : 1
            descending = nextInRun[current] == previous ? descending + 1 : 1
            if let repeatLimit, repeated > repeatLimit { return "more than \(repeatLimit) repeated" }
            if let sequenceLimit, max(ascending, descending) > sequenceLimit {
                return "sequence longer than \(sequenceLimit)"
            }
        }
        return nil
    }
}

/// The first rule `password` breaks, or `nil`.
func ruleViolation(_ password: String, _ rules: PasswordRules) -> String? {
    IndependentRulesValidator(rules).violation(password)
}
