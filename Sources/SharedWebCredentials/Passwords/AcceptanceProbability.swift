import Foundation

/// The exact probability that a password drawn uniformly from an alphabet passes a
/// ``CharacterSetPasswordEngine``'s checks, so that entropy counts only accepted passwords.
///
/// With `m` random characters from an alphabet of `k`, every candidate has probability `k^-m`; the
/// accepted ones are uniform over `N = P·k^m` passwords, where `P` is this probability, so each has
/// entropy `log2 N = m·log2(k) + log2(P)`.
///
/// `P` is computed by inclusion–exclusion over the required sets (the probability that a subset `S`
/// of them is missed is the probability that every character avoids their union), and, for each
/// term, a dynamic program over the positions of each segment whose state is the last character and
/// the run it ends (repeated, ascending or descending, with its length), pruning runs beyond the
/// limits. Working in probabilities rather than counts keeps every number within `Double` range.
enum AcceptanceProbability {
    /// The probability that `segments` independent uniform strings over `alphabet` together hold a
    /// character of every set in `required` and each respect the run limits.
    static func compute(
        alphabet: PasswordCharacterSet, segments: [Int], required: [PasswordCharacterSet],
        maxRepeating: Int?, maxSequential: Int?
    ) -> Double {
        var cache: [PasswordCharacterSet: Double] = [:]
        var total = 0.0
        for subset in 0..<(1 << required.count) {
            var excluded = PasswordCharacterSet()
            for (index, set) in required.enumerated() where subset & (1 << index) != 0 {
                excluded = excluded.union(set)
            }
            let remaining = alphabet.subtracting(excluded)
            let probability =
                cache[remaining]
                ?? segments.reduce(1.0) { product, length in
                    product
                        * segmentProbability(
                            allowed: remaining, alphabetSize: alphabet.count, length: length,
                            maxRepeating: maxRepeating, maxSequential: maxSequential)
                }
            cache[remaining] = probability
            total += subset.nonzeroBitCount % 2 == 0 ? probability : -probability
        }
        return max(0, min(1, total))
    }

    /// The probability that a uniform string of `length` characters over an alphabet of
    /// `alphabetSize` uses only `allowed` and respects the run limits.
    static func segmentProbability(
        allowed: PasswordCharacterSet, alphabetSize: Int, length: Int, maxRepeating: Int?, maxSequential: Int?
    ) -> Double {
        guard length > 0 else { return 1 }
        let weight = 1.0 / Double(alphabetSize)
        let repeatLimit = min(maxRepeating ?? length, length)
        let sequenceLimit = min(maxSequential ?? length, length)
        if repeatLimit >= length && sequenceLimit >= length {
            return pow(Double(allowed.count) * weight, Double(length))
        }
        let codes = allowed.codes
        // States per character: fresh (run length 1), repeated[2...], ascending[2...], descending[2...].
        var fresh = [Double](repeating: 0, count: 128)
        var repeated = [[Double]](repeating: [Double](repeating: 0, count: repeatLimit + 1), count: 128)
        var ascending = [[Double]](repeating: [Double](repeating: 0, count: sequenceLimit + 1), count: 128)
        var descending = ascending
        for code in codes { fresh[Int(code)] = weight }
        for _ in 1..<length {
            var ending = [Double](repeating: 0, count: 128)
            for code in codes {
                let index = Int(code)
                ending[index] =
                    fresh[index] + repeated[index].reduce(0, +) + ascending[index].reduce(0, +)
                    + descending[index].reduce(0, +)
            }
            let all = ending.reduce(0, +)
            var nextFresh = [Double](repeating: 0, count: 128)
            var nextRepeated = repeated.map { $0.map { _ in 0.0 } }
            var nextAscending = ascending.map { $0.map { _ in 0.0 } }
            var nextDescending = descending.map { $0.map { _ in 0.0 } }
            for code in codes {
                let index = Int(code)
                let below = SequenceRuns.predecessor(of: code).map { Int($0) }
                let above = SequenceRuns.successor(of: code).map { Int($0) }
                nextFresh[index] =
                    (all - ending[index] - (below.map { ending[$0] } ?? 0) - (above.map { ending[$0] } ?? 0)) * weight
                if repeatLimit >= 2 {
                    nextRepeated[index][2] = (ending[index] - repeated[index].reduce(0, +)) * weight
                    for run in stride(from: 2, to: repeatLimit, by: 1) {
                        nextRepeated[index][run + 1] = repeated[index][run] * weight
                    }
                }
                if sequenceLimit >= 2 {
                    if let below {
                        nextAscending[index][2] = (ending[below] - ascending[below].reduce(0, +)) * weight
                        for run in stride(from: 2, to: sequenceLimit, by: 1) {
                            nextAscending[index][run + 1] = ascending[below][run] * weight
                        }
                    }
                    if let above {
                        nextDescending[index][2] = (ending[above] - descending[above].reduce(0, +)) * weight
                        for run in stride(from: 2, to: sequenceLimit, by: 1) {
                            nextDescending[index][run + 1] = descending[above][run] * weight
                        }
                    }
                }
            }
            fresh = nextFresh
            repeated = nextRepeated
            ascending = nextAscending
            descending = nextDescending
        }
        var total = 0.0
        for code in codes {
            let index = Int(code)
            total +=
                fresh[index] + repeated[index].reduce(0, +) + ascending[index].reduce(0, +)
                + descending[index].reduce(0, +)
        }
        return total
    }
}
