import Foundation

/// The probability that a uniform random string over an alphabet of `alphabetSize` characters uses
/// only an allowed subset of them and has no run longer than the limits: a run of one repeated
/// character longer than `repeatLimit`, or an ascending or descending run (``SequenceRuns``)
/// longer than `sequenceLimit`.
///
/// A dynamic program over positions whose state is the last character and the kind of run it ends
/// (none, repeated, ascending, descending). The mass of the runs of each kind up to their limit is
/// kept as a sliding window (add the run that starts now, drop the one that would grow past the
/// limit), so each position costs a constant per allowed character, whatever the limits: at most
/// `length × allowed` steps in all. Working in probabilities rather than counts keeps every number
/// within `Double` range.
struct RunLimitedStrings {
    private let weight: Double
    private let length: Int
    private let repeatLimit: Int
    private let sequenceLimit: Int
    /// Probability mass per (position, character), `position * 128 + code`: every valid string
    /// ending there (`total`), and those whose last character does not continue a repeated
    /// (`notRepeating`), ascending (`notAscending`) or descending (`notDescending`) run.
    private var total: [Double]
    private var notRepeating: [Double]
    private var notAscending: [Double]
    private var notDescending: [Double]

    /// Prepares for strings of up to `length` characters.
    init(alphabetSize: Int, length: Int, maxRepeating: Int?, maxSequential: Int?) {
        weight = 1 / Double(alphabetSize)
        self.length = length
        repeatLimit = min(maxRepeating ?? length, length)
        sequenceLimit = min(maxSequential ?? length, length)
        let cells = (length + 1) * 128
        total = [Double](repeating: 0, count: cells)
        notRepeating = total
        notAscending = total
        notDescending = total
    }

    /// Whether the run limits can cut anything: if not, the probability depends only on how many
    /// characters are allowed.
    var limitsRuns: Bool { repeatLimit < length || sequenceLimit < length }

    /// Whether ascending and descending runs are limited, so that which characters are allowed
    /// (not only how many) matters.
    var limitsSequences: Bool { sequenceLimit < length }

    /// The probability for each length from 0 to `length`, for strings over `allowed`.
    mutating func probabilities(allowed: PasswordCharacterSet) -> [Double] {
        var result = [Double](repeating: 1, count: length + 1)
        guard length > 0 else { return result }
        let codes = allowed.codes.map(Int.init)
        guard limitsRuns else {
            let share = Double(codes.count) * weight
            for position in 1...length { result[position] = result[position - 1] * share }
            return result
        }
        // The allowed characters one below and one above each code in its run of letters or digits
        // (-1: none), and how many allowed characters end at (runBelow) or start at (runAbove)
        // each code in that run: a sequence of s characters ending at c fits when runBelow[c] ≥ s.
        let lowerNeighbour = codes.map { code in
            SequenceRuns.predecessor(of: UInt8(code)).map { allowed.contains(code: $0) ? Int($0) : -1 } ?? -1
        }
        let upperNeighbour = codes.map { code in
            SequenceRuns.successor(of: UInt8(code)).map { allowed.contains(code: $0) ? Int($0) : -1 } ?? -1
        }
        var runBelow = [Int](repeating: 0, count: 128)
        var runAbove = [Int](repeating: 0, count: 128)
        for (index, code) in codes.enumerated() {
            runBelow[code] = 1 + (lowerNeighbour[index] >= 0 ? runBelow[lowerNeighbour[index]] : 0)
        }
        for (index, code) in codes.enumerated().reversed() {
            runAbove[code] = 1 + (upperNeighbour[index] >= 0 ? runAbove[upperNeighbour[index]] : 0)
        }
        let repeatDrop = pow(weight, Double(repeatLimit))
        let sequenceDrop = pow(weight, Double(sequenceLimit))
        // The runs of each kind ending at each character at the last position, and at this one.
        var windows = [Double](repeating: 0, count: 6 * 128)
        total.withUnsafeMutableBufferPointer { total in
            notRepeating.withUnsafeMutableBufferPointer { notRepeating in
                notAscending.withUnsafeMutableBufferPointer { notAscending in
                    notDescending.withUnsafeMutableBufferPointer { notDescending in
                        windows.withUnsafeMutableBufferPointer { windows in
                            var sum = 0.0
                            for code in codes {
                                total[128 + code] = weight
                                notRepeating[128 + code] = weight
                                notAscending[128 + code] = weight
                                notDescending[128 + code] = weight
                                sum += weight
                            }
                            result[1] = sum
                            var last = 0
                            for position in 2...length {
                                let previous = (position - 1) * 128
                                let row = position * 128
                                let next = 384 - last
                                var nextSum = 0.0
                                for index in codes.indices {
                                    let code = codes[index]
                                    let lower = lowerNeighbour[index]
                                    let upper = upperNeighbour[index]
                                    var neighbours = total[previous + code]
                                    if lower >= 0 { neighbours += total[previous + lower] }
                                    if upper >= 0 { neighbours += total[previous + upper] }
                                    let fresh = weight * (result[position - 1] - neighbours)
                                    var repeatRun = 0.0
                                    if repeatLimit >= 2 {
                                        repeatRun = weight * (windows[last + code] + notRepeating[previous + code])
                                        if position > repeatLimit {
                                            repeatRun -= repeatDrop * notRepeating[row - repeatLimit * 128 + code]
                                        }
                                    }
                                    var ascendingRun = 0.0
                                    if sequenceLimit >= 2 && lower >= 0 {
                                        ascendingRun =
                                            weight * (windows[last + 128 + lower] + notAscending[previous + lower])
                                        if position > sequenceLimit && runBelow[lower] >= sequenceLimit {
                                            ascendingRun -=
                                                sequenceDrop
                                                * notAscending[row - sequenceLimit * 128 + code - sequenceLimit]
                                        }
                                    }
                                    var descendingRun = 0.0
                                    if sequenceLimit >= 2 && upper >= 0 {
                                        descendingRun =
                                            weight * (windows[last + 256 + upper] + notDescending[previous + upper])
                                        if position > sequenceLimit && runAbove[upper] >= sequenceLimit {
                                            descendingRun -=
                                                sequenceDrop
                                                * notDescending[row - sequenceLimit * 128 + code + sequenceLimit]
                                        }
                                    }
                                    // Rounding can leave a window a hair below zero where it is zero.
                                    repeatRun = max(0, repeatRun)
                                    ascendingRun = max(0, ascendingRun)
                                    descendingRun = max(0, descendingRun)
                                    let all = max(0, fresh) + repeatRun + ascendingRun + descendingRun
                                    total[row + code] = all
                                    notRepeating[row + code] = all - repeatRun
                                    notAscending[row + code] = all - ascendingRun
                                    notDescending[row + code] = all - descendingRun
                                    windows[next + code] = repeatRun
                                    windows[next + 128 + code] = ascendingRun
                                    windows[next + 256 + code] = descendingRun
                                    nextSum += all
                                }
                                last = next
                                result[position] = nextSum
                            }
                        }
                    }
                }
            }
        }
        return result
    }
}
