/// How likely a password drawn uniformly from an alphabet is to pass a rule-driven generator's
/// checks: every required set met and the run limits respected.
public struct Acceptance: Sendable, Equatable {
    /// The probability, or a lower bound of it when ``isExact`` is false.
    public let probability: Double
    /// Whether ``probability`` is exact. It is a lower bound only when the rules have so many
    /// required sets that counting exactly would exceed ``AcceptanceProbability/exactWorkBudget``.
    public let isExact: Bool
}

/// The probability that a password drawn uniformly from an alphabet passes a rule-driven
/// generator's checks, so that entropy counts only accepted passwords and rules that almost no
/// password meets are refused.
///
/// With `m` random characters from an alphabet of `k`, every candidate has probability `k^-m`; the
/// accepted ones are uniform over `N = P·k^m` passwords, where `P` is this probability, so each has
/// entropy `log2 N = m·log2(k) + log2(P)`.
///
/// `P` is computed by inclusion–exclusion over the required sets: the probability that a subset `S`
/// of them is missed is the probability that every character avoids their union, under the run
/// limits (``RunLimitedStrings``). The 2^k subsets are first reduced without losing exactness:
/// required sets that contain another one are dropped (meeting the smaller meets them), subsets
/// with the same union are merged (their signs often cancel), and unions whose allowed characters
/// form the same pattern of letter and digit runs share one computation. When what is left would
/// still cost more than ``exactWorkBudget``, `P` is bounded from below instead (Bonferroni):
/// `P ≥ P(runs) − Σ P(runs and set i missed)`, from `k + 1` terms. A lower bound keeps every
/// decision on the safe side: rules are refused, never accepted, on its account, and the entropy
/// reported is never more than the password has.
public enum AcceptanceProbability {
    /// The most work the exact count may take, in steps of the dynamic program (distinct terms ×
    /// length × alphabet size): about ten milliseconds in a release build.
    public static let exactWorkBudget = 1_000_000

    /// The probability that `segments` independent uniform strings over `alphabet` together hold a
    /// character of every set in `required` and each respect the run limits; exact unless that
    /// would take more than `workBudget` steps.
    public static func compute(
        alphabet: PasswordCharacterSet, segments: [Int], required: [PasswordCharacterSet],
        maxRepeating: Int?, maxSequential: Int?, workBudget: Int = exactWorkBudget
    ) -> Acceptance {
        let longest = segments.max() ?? 0
        guard let sets = essentialSets(required, alphabet: alphabet, length: segments.reduce(0, +)) else {
            return Acceptance(probability: 0, isExact: true)
        }
        var strings = RunLimitedStrings(
            alphabetSize: alphabet.count, length: longest, maxRepeating: maxRepeating, maxSequential: maxSequential)
        let sequencesLimited = strings.limitsSequences
        var cache: [[Int]: Double] = [:]
        func probability(avoiding excluded: PasswordCharacterSet) -> Double {
            let remaining = alphabet.subtracting(excluded)
            let key = shapeKey(remaining, sequencesLimited: sequencesLimited)
            if let known = cache[key] { return known }
            let byLength = strings.probabilities(allowed: remaining)
            let value = segments.reduce(1.0) { $0 * byLength[$1] }
            cache[key] = value
            return value
        }
        let terms = inclusionExclusionTerms(sets)
        var shapes = Set<[Int]>()
        for term in terms {
            shapes.insert(shapeKey(alphabet.subtracting(term.union), sequencesLimited: sequencesLimited))
        }
        if shapes.count * max(longest, 1) * alphabet.count <= workBudget {
            let values = terms.map { Double($0.coefficient) * probability(avoiding: $0.union) }
            return Acceptance(probability: max(0, min(1, compensatedSum(values))), isExact: true)
        }
        let bound = sets.reduce(probability(avoiding: PasswordCharacterSet())) { $0 - probability(avoiding: $1) }
        return Acceptance(probability: max(0, min(1, bound)), isExact: false)
    }

    /// The sum of `values`, smallest magnitudes first with Neumaier's compensation: the terms of
    /// inclusion–exclusion nearly cancel when few passwords pass, and a plain sum would lose the
    /// digits that remain, differently for each order.
    private static func compensatedSum(_ values: [Double]) -> Double {
        var sum = 0.0
        var compensation = 0.0
        for value in values.sorted(by: { abs($0) < abs($1) }) {
            let next = sum + value
            compensation += abs(sum) >= abs(value) ? (sum - next) + value : (value - next) + sum
            sum = next
        }
        return sum + compensation
    }

    /// The required sets that matter, within the alphabet: nil when one cannot be met at all.
    /// Sets holding the whole alphabet are met by any character; a set that contains another
    /// required set is met whenever that one is.
    private static func essentialSets(
        _ required: [PasswordCharacterSet], alphabet: PasswordCharacterSet, length: Int
    ) -> [PasswordCharacterSet]? {
        var sets: [PasswordCharacterSet] = []
        for set in required.map({ $0.intersection(alphabet) }) {
            if set.isEmpty || length == 0 { return nil }
            if set != alphabet { sets.append(set) }
        }
        return sets.enumerated().filter { index, set in
            !sets.enumerated().contains { other, smaller in
                other != index && smaller.isSubset(of: set) && (smaller != set || other < index)
            }
        }.map(\.element)
    }

    /// The inclusion–exclusion sum as (union of the missed sets, net sign count), one per distinct
    /// union, leaving out unions whose signs cancel.
    private static func inclusionExclusionTerms(
        _ sets: [PasswordCharacterSet]
    ) -> [(union: PasswordCharacterSet, coefficient: Int)] {
        var unions = [PasswordCharacterSet](repeating: PasswordCharacterSet(), count: 1 << sets.count)
        var coefficients: [PasswordCharacterSet: Int] = [:]
        for subset in 0..<unions.count {
            if subset > 0 {
                let lowest = subset.trailingZeroBitCount
                unions[subset] = unions[subset & (subset - 1)].union(sets[lowest])
            }
            coefficients[unions[subset], default: 0] += subset.nonzeroBitCount % 2 == 0 ? 1 : -1
        }
        return coefficients.filter { $0.value != 0 }.map { ($0.key, $0.value) }
    }

    /// A key equal for any two sets of allowed characters that give the same probability: their
    /// size when the run limits cannot tell characters apart, else also the lengths of their runs
    /// of consecutive letters or digits (the only structure the sequence limits see).
    private static func shapeKey(_ allowed: PasswordCharacterSet, sequencesLimited: Bool) -> [Int] {
        guard sequencesLimited else { return [allowed.count] }
        var runs: [Int] = []
        var single = 0
        for chain in [UInt8(0x30)...0x39, 0x41...0x5A, 0x61...0x7A] {
            var run = 0
            for code in chain {
                if allowed.contains(code: code) {
                    run += 1
                } else {
                    if run == 1 { single += 1 } else if run > 1 { runs.append(run) }
                    run = 0
                }
            }
            if run == 1 { single += 1 } else if run > 1 { runs.append(run) }
        }
        let outsideChains = allowed.subtracting(.digits).subtracting(.upper).subtracting(.lower).count
        return [single + outsideChains] + runs.sorted()
    }
}
