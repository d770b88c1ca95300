import Foundation

/// Safari's strong password (SPEC.md §4, styles `strong` and `strong-nodash`).
///
/// The generator makes these uniform choices, each independent of the others:
/// - 17 letters in the pattern CVC CVC CVC CVC CVC C V: 11 consonants from
///   `bcdfghjkmnpqrstvwxz` (19) and 6 vowels from `aeiouy` (6);
/// - which letter to upper-case: one of the `n` letters that are not `o` (11 ≤ n ≤ 17);
/// - a digit 0-9 (10) and one of 5 layouts placing it at a group edge.
///
/// Different choices always give different passwords, so a password's probability is the product of
/// its choices' probabilities, and its entropy in bits is exactly
/// `11·log2(19) + 6·log2(6) + log2(10) + log2(5) + log2(n)` ≈ 67.88 + log2(n) bits. With the number
/// of `o`s binomial (6 vowels, 1/6 each), this averages 71.88 bits, Shannon entropy of the style.
struct StrongPasswordEngine {
    /// Whether dashes separate the three groups (`strong`) or not (`strong-nodash`).
    let dashes: Bool

    private static let consonants: StaticString = "bcdfghjkmnpqrstvwxz"
    private static let vowels: StaticString = "aeiouy"
    /// The entropy of every choice except the upper-case letter.
    static let fixedBits = 11 * log2(19.0) + 6 * log2(6.0) + log2(10.0) + log2(5.0)
    /// Entropy in bits indexed by the number of letters that are not `o`.
    private static let bitsByCandidates: [Double] = (0...17).map { fixedBits + ($0 > 0 ? log2(Double($0)) : 0) }

    /// The 5 layouts, 18 characters each: for every character before dashes, the letter it takes
    /// (`a` = letter 0 ... `q` = letter 16) or `#` for the digit. Letter groups: g1 = 0..<6,
    /// g2 = 6..<12, g3 = 12..<17; the output groups of six are g3+digit | g1 | g2,
    /// g1 | digit+g3 | g2, g1 | g3+digit | g2, g1 | g2 | digit+g3, g1 | g2 | g3+digit, so the digit
    /// always sits at the edge of a group (index 5, 7, 12, 14 or 19 with dashes).
    private static let layouts: StaticString =
        "mnopq#abcdefghijklabcdef#mnopqghijklabcdefmnopq#ghijklabcdefghijkl#mnopqabcdefghijklmnopq#"

    /// Appends one password to `output` and returns its entropy in bits.
    func append(to output: inout [UInt8], random: inout SecureRandom) -> Double {
        let dashes = self.dashes
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 37) { scratch in
            // scratch[0..<17]: the letters; scratch[17..<37]: the password.
            let consonants = Self.consonants.utf8Start
            let vowels = Self.vowels.utf8Start
            var candidates = 17
            for index in 0..<17 {
                let isVowel = index == 16 || (index < 15 && index % 3 == 1)
                let letter = isVowel ? vowels[random.uniform(6)] : consonants[random.uniform(19)]
                scratch[index] = letter
                if letter == UInt8(ascii: "o") { candidates -= 1 }
            }
            var upper = random.uniform(candidates)
            for index in 0..<17 where scratch[index] != UInt8(ascii: "o") {
                if upper == 0 {
                    scratch[index] -= 0x20
                    break
                }
                upper -= 1
            }
            let digit = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: random.uniform(10))
            let layout = Self.layouts.utf8Start + 18 * random.uniform(5)
            var written = 17
            for index in 0..<18 {
                if dashes && (index == 6 || index == 12) {
                    scratch[written] = UInt8(ascii: "-")
                    written += 1
                }
                let source = layout[index]
                scratch[written] = source == UInt8(ascii: "#") ? digit : scratch[Int(source - UInt8(ascii: "a"))]
                written += 1
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: scratch[17..<written]))
            scratch.initialize(repeating: 0)
            return Self.bitsByCandidates[candidates]
        }
    }
}
