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
/// `11·log2(19) + 6·log2(6) + log2(10) + log2(5) + log2(n)` ≈ 68.01 + log2(n),
/// which averages about 71.9 bits (n is about 16.1 on average).
struct StrongPasswordEngine {
    /// Whether dashes separate the three groups (`strong`) or not (`strong-nodash`).
    let dashes: Bool

    private static let consonants = Array("bcdfghjkmnpqrstvwxz".utf8)
    private static let vowels = Array("aeiouy".utf8)
    /// Whether each of the 17 letters is a vowel.
    private static let isVowel: [Bool] = (0..<17).map { $0 == 16 || ($0 < 15 && $0 % 3 == 1) }
    /// The entropy of every choice except the upper-case letter.
    static let fixedBits = 11 * log2(19.0) + 6 * log2(6.0) + log2(10.0) + log2(5.0)
    /// Entropy in bits indexed by the number of letters that are not `o`.
    private static let bitsByCandidates: [Double] = (0...17).map { fixedBits + ($0 > 0 ? log2(Double($0)) : 0) }

    /// The 5 layouts: for each of the 18 characters (before dashes), the letter it takes, or -1 for
    /// the digit. Letter groups: g1 = 0..<6, g2 = 6..<12, g3 = 12..<17; the output groups of six are
    /// g3+digit | g1 | g2, g1 | digit+g3 | g2, g1 | g3+digit | g2, g1 | g2 | digit+g3, g1 | g2 | g3+digit,
    /// so the digit always sits at the edge of a group (index 5, 7, 12, 14 or 19 with dashes).
    private static let layouts: [[Int]] = {
        let g1 = Array(0..<6)
        let g2 = Array(6..<12)
        let g3 = Array(12..<17)
        return [
            g3 + [-1] + g1 + g2, g1 + [-1] + g3 + g2, g1 + g3 + [-1] + g2, g1 + g2 + [-1] + g3, g1 + g2 + g3 + [-1],
        ]
    }()

    /// The password's length: 20 with dashes, 18 without.
    var length: Int { dashes ? 20 : 18 }

    /// Appends one password to `output` and returns its entropy in bits.
    func append(to output: inout [UInt8], random: SecureRandom) -> Double {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 17) { letters in
            var candidates = 0
            for index in 0..<17 {
                let letter =
                    Self.isVowel[index]
                    ? Self.vowels[random.uniform(6)] : Self.consonants[random.uniform(19)]
                letters[index] = letter
                if letter != UInt8(ascii: "o") { candidates += 1 }
            }
            var upper = random.uniform(candidates)
            for index in 0..<17 where letters[index] != UInt8(ascii: "o") {
                if upper == 0 {
                    letters[index] -= 0x20
                    break
                }
                upper -= 1
            }
            let digit = UInt8(ascii: "0") + UInt8(random.uniform(10))
            let layout = Self.layouts[random.uniform(5)]
            for (index, source) in layout.enumerated() {
                if dashes && (index == 6 || index == 12) { output.append(UInt8(ascii: "-")) }
                output.append(source < 0 ? digit : letters[source])
            }
            letters.initialize(repeating: 0)
            return Self.bitsByCandidates[candidates]
        }
    }
}
