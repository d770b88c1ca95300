import Foundation
import Testing

@testable import SharedWebCredentials

@Suite("Password styles: shape, character sets and entropy over 100,000 samples each")
struct PasswordFormatTests {
    static let samples = 100_000
    static let consonants = Set("bcdfghjkmnpqrstvwxz")
    static let vowels = Set("aeiouy")

    @Test("strong: xxxxxx-xxxxxx-xxxxxx, syllables, one upper-case letter (never O), one digit at a group edge")
    func strongShape() {
        let generator = PasswordGenerator(style: .strong)
        var digitPositions = Set<Int>()
        for _ in 0..<Self.samples {
            let generated = generator.next()
            let characters = Array(generated.password)
            #expect(characters.count == 20)
            #expect(characters[6] == "-" && characters[13] == "-")
            let body = characters.enumerated().filter { $0.offset != 6 && $0.offset != 13 }.map(\.element)
            Self.checkStrongBody(
                body, digitPositions: &digitPositions, dashedIndex: { $0 + ($0 >= 6 ? 1 : 0) + ($0 >= 12 ? 1 : 0) })
            #expect(generated.style == .strong)
        }
        #expect(digitPositions == [5, 7, 12, 14, 19])
    }

    @Test("strong-nodash: the same 18 characters without dashes")
    func strongNoDashShape() {
        let generator = PasswordGenerator(style: .strongNoDash)
        var digitPositions = Set<Int>()
        for _ in 0..<Self.samples {
            let body = Array(generator.next().password)
            #expect(body.count == 18)
            Self.checkStrongBody(body, digitPositions: &digitPositions, dashedIndex: { $0 })
        }
        #expect(digitPositions == [5, 6, 11, 12, 17])
    }

    /// Checks 18 characters of a strong password; records the digit's position (mapped by `dashedIndex`).
    static func checkStrongBody(_ body: [Character], digitPositions: inout Set<Int>, dashedIndex: (Int) -> Int) {
        let digits = body.indices.filter { body[$0].isNumber }
        #expect(digits.count == 1)
        guard let digit = digits.first else { return }
        #expect([5, 6, 11, 12, 17].contains(digit), "digit at \(digit) in \(String(body))")
        digitPositions.insert(dashedIndex(digit))
        let uppers = body.filter(\.isUppercase)
        #expect(uppers.count == 1)
        #expect(uppers.first != "O")
        let letters = reconstructLetters(body, digitIndex: digit).map { Character($0.lowercased()) }
        for (index, letter) in letters.enumerated() {
            let isVowel = index == 16 || (index < 15 && index % 3 == 1)
            #expect((isVowel ? vowels : consonants).contains(letter), "letter \(index) in \(String(body))")
        }
    }

    /// The 17 letters in generation order (g1 g2 g3), undoing the layout the digit's position reveals.
    static func reconstructLetters(_ body: [Character], digitIndex: Int) -> [Character] {
        let s = body
        switch digitIndex {
        case 5: return Array(s[6..<12] + s[12..<18] + s[0..<5])  // g3 d | g1 | g2
        case 6: return Array(s[0..<6] + s[12..<18] + s[7..<12])  // g1 | d g3 | g2
        case 11: return Array(s[0..<6] + s[12..<18] + s[6..<11])  // g1 | g3 d | g2
        case 12: return Array(s[0..<6] + s[6..<12] + s[13..<18])  // g1 | g2 | d g3
        default: return Array(s[0..<6] + s[6..<12] + s[12..<17])  // g1 | g2 | g3 d
        }
    }

    @Test("classic: xxx-xxx-xxx-xxx from the 60 unambiguous characters with lower, upper and digit")
    func classicShape() {
        let alphabet = Set("abcdefghijkmnopqrstuvwxyzABCDEFGHIJKLMNPQRSTUVWXYZ0123456789")
        let generator = PasswordGenerator(style: .classic)
        var seen = Set<Character>()
        for _ in 0..<Self.samples {
            let characters = Array(generator.next().password)
            #expect(characters.count == 15)
            #expect(characters[3] == "-" && characters[7] == "-" && characters[11] == "-")
            let random = characters.enumerated().filter { $0.offset % 4 != 3 }.map(\.element)
            #expect(random.allSatisfy(alphabet.contains))
            #expect(random.contains(where: \.isLowercase) && random.contains(where: \.isUppercase))
            #expect(random.contains { $0.isNumber })
            seen.formUnion(random)
        }
        #expect(seen == alphabet)
    }

    @Test("legacy: SecCreateSharedWebCredentialPassword's 55 characters, lower, upper and a digit 3-9")
    func legacyShape() {
        let lower = Set("abcdefghkmnopqrstuvwxyz")
        let upper = Set("ABCDEFGHJKLMNPQRSTUVWXYZ")
        let digits = Set("3456789")
        let alphabet = lower.union(upper).union(digits).union(["2"])
        #expect(alphabet.count == 55)
        let generator = PasswordGenerator(style: .legacy)
        var seen = Set<Character>()
        for _ in 0..<Self.samples {
            let characters = Array(generator.next().password)
            #expect(characters.count == 15)
            #expect(characters[3] == "-" && characters[7] == "-" && characters[11] == "-")
            let random = characters.enumerated().filter { $0.offset % 4 != 3 }.map(\.element)
            #expect(random.allSatisfy(alphabet.contains))
            #expect(random.contains(where: lower.contains) && random.contains(where: upper.contains))
            #expect(random.contains(where: digits.contains))
            seen.formUnion(random)
        }
        #expect(seen == alphabet)
    }

    @Test("entropy: strong averages about 71.9 bits, per password 67.88 + log2(letters other than o)")
    func strongEntropy() {
        let generator = PasswordGenerator(style: .strong)
        var total = 0.0
        let count = 20_000
        for _ in 0..<count {
            let generated = generator.next()
            let candidates = generated.password.filter { $0.isLetter && $0 != "o" }.count
            let expected = 11 * log2(19.0) + 6 * log2(6.0) + log2(10.0) + log2(5.0) + log2(Double(candidates))
            #expect(abs(generated.entropyBits - expected) < 1e-9)
            total += generated.entropyBits
        }
        #expect(abs(total / Double(count) - 71.9) < 0.05)
    }

    @Test("entropy: legacy and classic count only the passwords that pass their requirements")
    func rejectionEntropy() {
        // Inclusion-exclusion over the three required sets, computed here independently.
        func accepted(_ size: Double, _ sets: [Double]) -> Double {
            var total = 0.0
            for subset in 0..<(1 << sets.count) {
                let removed = sets.indices.filter { subset & (1 << $0) != 0 }.map { sets[$0] }.reduce(0, +)
                total += (subset.nonzeroBitCount % 2 == 0 ? 1 : -1) * pow(size - removed, 12)
            }
            return log2(total)
        }
        let legacy = PasswordGenerator(style: .legacy).next().entropyBits
        #expect(abs(legacy - accepted(55, [23, 24, 7])) < 1e-6)
        #expect(abs(legacy - 69.06) < 0.01)
        let classic = PasswordGenerator(style: .classic).next().entropyBits
        #expect(abs(classic - accepted(60, [25, 25, 10])) < 1e-6)
    }
}
