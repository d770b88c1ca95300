import Foundation

/// Timing samples of one benchmark, with the summary statistics the reports use.
public struct Samples: Sendable {
    /// Each sample's duration in nanoseconds, in the order taken.
    public private(set) var nanoseconds: [Double] = []

    public init() {}

    /// Adds one sample.
    public mutating func append(_ duration: Duration) {
        nanoseconds.append(Double(duration.components.seconds) * 1e9 + Double(duration.components.attoseconds) / 1e9)
    }

    /// Adds every sample of `other`.
    public mutating func append(contentsOf other: Samples) {
        nanoseconds.append(contentsOf: other.nanoseconds)
    }

    /// The value below which `fraction` of the samples fall (nearest rank).
    public func percentile(_ fraction: Double) -> Double {
        precondition(!nanoseconds.isEmpty, "no samples")
        let sorted = nanoseconds.sorted()
        let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(max(rank, 0), sorted.count - 1)]
    }

    /// The median sample.
    public var median: Double { percentile(0.5) }
}

/// Times `body` `count` times and returns the samples.
public func measure(count: Int, _ body: () throws -> Void) rethrows -> Samples {
    let clock = ContinuousClock()
    var samples = Samples()
    for _ in 0..<count {
        let start = clock.now
        try body()
        samples.append(clock.now - start)
    }
    return samples
}

/// Times one run of `body`.
public func time(_ body: () throws -> Void) rethrows -> Duration {
    let clock = ContinuousClock()
    let start = clock.now
    try body()
    return clock.now - start
}

/// The CPU time this thread has used so far: what "one core" means when other processes share the
/// machine.
public func threadCPUTime() -> Duration {
    var now = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
    return .seconds(now.tv_sec) + .nanoseconds(now.tv_nsec)
}

/// Formats nanoseconds with a readable unit.
public func formatNanoseconds(_ value: Double) -> String {
    switch value {
    case ..<1_000: String(format: "%.0f ns", value)
    case ..<1_000_000: String(format: "%.2f µs", value / 1_000)
    case ..<1_000_000_000: String(format: "%.2f ms", value / 1_000_000)
    default: String(format: "%.2f s", value / 1_000_000_000)
    }
}

/// Seconds in a duration, as a floating-point number.
public func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}
