/// One generated mutant: a byte range of one source file and the text that replaces it.
struct Mutant: Encodable {
    /// Stable across edits elsewhere in the file: a hash of the file, the enclosing declaration,
    /// the operator, the original text and which occurrence of that text in the declaration it is.
    var id = ""
    /// The mutation operator (see `MutationOperator`).
    let `operator`: String
    /// The folder or file given on the command line that this file was found under.
    let folder: String
    /// The file, relative to the root.
    let file: String
    /// The enclosing declarations, outermost first (`Type.method`), for reading and for the id.
    let context: String
    /// 1-based line and column of the original text's first character.
    let line: Int
    let column: Int
    /// The original text's byte range in the file (UTF-8 offset and length).
    let offset: Int
    let length: Int
    let original: String
    let replacement: String
    /// For an operator mutant: the byte range of the whole infix expression around the operator,
    /// which `Scripts/mutants --schemata` puts behind its runtime switch (an operator alone
    /// cannot be); nil for the other operators, whose own range is an expression or statement.
    var wrapOffset: Int? = nil
    var wrapLength: Int? = nil
}

/// The fixed set of mutation operators.
enum MutationOperator: String, CaseIterable {
    /// `<` to `<=`, `>=` to `>` and so on: an off-by-one at a bound.
    case comparisonBoundary = "comparison-boundary"
    /// `==` to `!=`, `<` to `>=` and so on: the comparison's opposite.
    case comparisonNegated = "comparison-negated"
    /// `&&` to `||` and back.
    case logicalSwapped = "logical-swapped"
    /// An `if`, `guard` or `while` condition `c` to `!(c)` (or `!c` to `c`).
    case conditionNegated = "condition-negated"
    /// A condition replaced by `true`: for a `guard`, the check dropped.
    case conditionTrue = "condition-true"
    /// A condition replaced by `false`.
    case conditionFalse = "condition-false"
    /// A statement that only calls a check (`try check…(…)`, `require(…)`, `validate…`) removed.
    case checkRemoved = "check-removed"
    /// An integer literal plus one.
    case integerPlusOne = "integer-plus-one"
    /// An integer literal minus one (not below zero).
    case integerMinusOne = "integer-minus-one"
    /// A returned array, set, dictionary or `Data` replaced by an empty one.
    case returnEmptied = "return-emptied"
    /// An argument that is a plain name replaced by another name in scope (``ReplacedArguments``).
    case argumentReplaced = "argument-replaced"
}

extension Array where Element == Mutant {
    /// Gives every mutant its id: the occurrence number counts earlier mutants with the same file,
    /// context, operator and original text, so an edit elsewhere keeps the id.
    mutating func assignIDs() {
        var seen: [String: Int] = [:]
        for index in indices {
            let mutant = self[index]
            let key = [mutant.file, mutant.context, mutant.operator, mutant.original].joined(separator: "\u{0}")
            let occurrence = seen[key, default: 0]
            seen[key] = occurrence + 1
            self[index].id = "g-" + fnv1a64(key + "\u{0}\(occurrence)")
        }
    }
}

/// FNV-1a, 64 bits, as 16 lower-case hex digits: stable on every platform and run (Swift's own
/// `Hasher` is seeded per process).
func fnv1a64(_ text: String) -> String {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in text.utf8 {
        hash ^= UInt64(byte)
        hash = hash &* 0x100_0000_01b3
    }
    let hex = String(hash, radix: 16)
    return String(repeating: "0", count: 16 - hex.count) + hex
}
