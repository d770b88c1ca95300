import Foundation
import Testing

@testable import SharedWebCredentials

/// Chi-square uniformity tests with fixed bounds: each test's bound is the critical value at
/// 1e-7 divided by the number of statistics it checks, so a correct generator fails any one test
/// with probability below 1e-7, and the whole suite (fewer than ten such tests) below one in a million.
@Suite("Uniformity: chi-square per position")
struct UniformityTests {
    static let familyAlpha = 1e-7

    @Test("every letter position of strong is uniform over its consonants or vowels; digit and layout too")
    func strongPositionsAreUniform() {
        let consonants = Array("bcdfghjkmnpqrstvwxz")
        let vowels = Array("aeiouy")
        var letterCounts = (0..<17).map { [Int](repeating: 0, count: $0 == 16 || ($0 < 15 && $0 % 3 == 1) ? 6 : 19) }
        var digitCounts = [Int](repeating: 0, count: 10)
        var layoutCounts = [Int](repeating: 0, count: 5)
        let layoutOfDigit = [5: 0, 6: 1, 11: 2, 12: 3, 17: 4]
        let generator = PasswordGenerator(style: .strongNoDash)
        for _ in 0..<200_000 {
            let body = Array(generator.next().password)
            let digitIndex = body.firstIndex(where: \.isNumber)!
            digitCounts[body[digitIndex].wholeNumberValue!] += 1
            layoutCounts[layoutOfDigit[digitIndex]!] += 1
            let letters = PasswordFormatTests.reconstructLetters(body, digitIndex: digitIndex)
            for (index, letter) in letters.enumerated() {
                let lower = Character(letter.lowercased())
                let alphabet = letterCounts[index].count == 6 ? vowels : consonants
                letterCounts[index][alphabet.firstIndex(of: lower)!] += 1
            }
        }
        let all = letterCounts + [digitCounts, layoutCounts]
        for (index, counts) in all.enumerated() {
            let bound = ChiSquare.criticalValue(
                degreesOfFreedom: counts.count - 1, alpha: Self.familyAlpha / Double(all.count))
            let statistic = ChiSquare.statistic(counts)
            #expect(statistic < bound, "position \(index): chi-square \(statistic) ≥ \(bound)")
        }
    }

    @Test("SecureRandom.uniform is uniform for the bounds the generators use, per draw position")
    func secureRandomIsUniform() {
        var random = SecureRandom()
        let bounds = [2, 5, 6, 10, 19, 55, 60, 95, 256, 1000]
        let positions = 4
        var tested = 0
        var failures: [String] = []
        for bound in bounds {
            var counts = [[Int]](repeating: [Int](repeating: 0, count: bound), count: positions)
            for _ in 0..<max(50 * bound, 20_000) {
                for position in 0..<positions { counts[position][random.uniform(bound)] += 1 }
            }
            for (position, positionCounts) in counts.enumerated() {
                tested += 1
                let bound = ChiSquare.criticalValue(
                    degreesOfFreedom: bound - 1, alpha: Self.familyAlpha / Double(bounds.count * positions))
                let statistic = ChiSquare.statistic(positionCounts)
                if statistic >= bound { failures.append("bound \(bound) position \(position): \(statistic)") }
            }
        }
        #expect(tested == bounds.count * positions)
        #expect(failures.isEmpty)
    }

    @Test("a deliberately biased source (byte % 19) fails the same test")
    func biasedSourceFails() {
        var state: UInt64 = 0x5EED_1234_ABCD_0001
        func splitMix() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        var biased = [Int](repeating: 0, count: 19)
        var fair = [Int](repeating: 0, count: 19)
        for _ in 0..<200_000 {
            biased[Int(UInt8(truncatingIfNeeded: splitMix()) % 19)] += 1
            fair[Int(splitMix() % 19)] += 1  // bias 19/2^64: negligible
        }
        let bound = ChiSquare.criticalValue(degreesOfFreedom: 18, alpha: Self.familyAlpha / 19)
        #expect(ChiSquare.statistic(biased) > bound)
        #expect(ChiSquare.statistic(fair) < bound)
    }

    @Test("the critical values match published tables")
    func criticalValuesMatchTables() {
        #expect(abs(ChiSquare.criticalValue(degreesOfFreedom: 1, alpha: 0.05) - 3.841) < 0.001)
        #expect(abs(ChiSquare.criticalValue(degreesOfFreedom: 18, alpha: 0.001) - 42.312) < 0.001)
        #expect(abs(ChiSquare.criticalValue(degreesOfFreedom: 5, alpha: 0.01) - 15.086) < 0.001)
    }
}
