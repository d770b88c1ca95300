import Foundation

/// Pearson's chi-square goodness-of-fit test against a uniform distribution, with critical values
/// computed from the regularised incomplete gamma function (no tables, no randomness).
enum ChiSquare {
    /// The statistic for `counts` against equal expected counts.
    static func statistic(_ counts: [Int]) -> Double {
        let total = Double(counts.reduce(0, +))
        let expected = total / Double(counts.count)
        return counts.reduce(0.0) { $0 + pow(Double($1) - expected, 2) / expected }
    }

    /// The value a chi-square variable with `degreesOfFreedom` exceeds with probability `alpha`.
    static func criticalValue(degreesOfFreedom: Int, alpha: Double) -> Double {
        var low = 0.0
        var high = Double(degreesOfFreedom) * 20 + 200
        for _ in 0..<200 {
            let middle = (low + high) / 2
            if upperTail(middle, degreesOfFreedom: degreesOfFreedom) > alpha { low = middle } else { high = middle }
        }
        return high
    }

    /// P(X > x) for X chi-square with `degreesOfFreedom`: Q(k/2, x/2).
    static func upperTail(_ x: Double, degreesOfFreedom: Int) -> Double {
        regularizedUpperGamma(Double(degreesOfFreedom) / 2, x / 2)
    }

    /// Q(a, x) by its series (x < a + 1) or continued fraction (Numerical Recipes, gammq).
    static func regularizedUpperGamma(_ a: Double, _ x: Double) -> Double {
        if x <= 0 { return 1 }
        let logPrefix = -x + a * log(x) - lgamma(a)
        if x < a + 1 {
            var term = 1 / a
            var sum = term
            var n = a
            for _ in 0..<10_000 {
                n += 1
                term *= x / n
                sum += term
                if abs(term) < abs(sum) * 1e-16 { break }
            }
            return 1 - sum * exp(logPrefix)
        }
        let tiny = 1e-300
        var b = x + 1 - a
        var c = 1 / tiny
        var d = 1 / b
        var h = d
        for i in 1..<10_000 {
            let an = -Double(i) * (Double(i) - a)
            b += 2
            d = an * d + b
            if abs(d) < tiny { d = tiny }
            c = b + an / c
            if abs(c) < tiny { c = tiny }
            d = 1 / d
            let delta = d * c
            h *= delta
            if abs(delta - 1) < 1e-16 { break }
        }
        return exp(logPrefix) * h
    }
}
