import Foundation

/// Quantities in words for people: "about 3 hours", "5,500", "64 MiB".
public enum ApproximateWording {
    private static let units: [(name: String, seconds: Double)] = [
        ("second", 1), ("minute", 60), ("hour", 3_600), ("day", 86_400),
    ]
    private static let largeYears: [(name: String, scale: Double)] = [
        ("trillion", 1e12), ("billion", 1e9), ("million", 1e6),
    ]

    /// A duration as "about N UNIT(S)": seconds to days, then years ("about 670 years",
    /// "about 40,000 years", "about 3.4 million years", "about 4.7 × 10^23 years"). Counts of
    /// units under ten are rounded to whole units, larger ones to two significant figures.
    public static func duration(seconds: Double) -> String {
        if seconds.isNaN { return "an unknown time" }
        if seconds < 1 { return "less than a second" }
        let years = seconds / OfflineAttackModel.secondsPerYear
        guard years >= 1 else {
            let unit = units.last { seconds >= $0.seconds } ?? units[0]
            return about(seconds / unit.seconds, unit.name)
        }
        if years.isInfinite { return "longer than can be counted" }
        if years >= 1e15 {
            let exponent = Int(log10(years).rounded(.down))
            let mantissa = String(format: "%.1f", years / pow(10, Double(exponent)))
            return "about \(mantissa) × 10^\(exponent) years"
        }
        if let large = largeYears.first(where: { years >= $0.scale }) {
            return "about \(number(years / large.scale)) \(large.name) years"
        }
        return about(years, "year")
    }

    /// "about N UNIT": N rounded to a whole number under ten, else as ``number(_:)``; the unit
    /// plural unless N is 1.
    private static func about(_ value: Double, _ unit: String) -> String {
        let text = value < 10 ? String(Int(value.rounded())) : number(value)
        return "about \(text) \(unit)\(text == "1" ? "" : "s")"
    }

    /// A positive number rounded to two significant figures for reading, grouped in thousands:
    /// "3.4", "5,500", "140,000,000"; 10^18 and more in exponent form.
    public static func number(_ value: Double) -> String {
        if value < 1 { return String(format: "%.2g", value) }
        let magnitude = pow(10, log10(value).rounded(.down) - 1)
        let rounded = (value / magnitude).rounded() * magnitude
        if rounded >= 1e18 { return String(format: "%.1e", rounded) }
        if rounded < 10 {
            let text = String(format: "%.1f", rounded)
            return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
        }
        return grouped(UInt64(rounded))
    }

    /// A byte count in the largest binary unit it reaches: "8 KiB", "64 MiB", "1.5 GiB", "100 bytes".
    public static func bytes(_ count: UInt64) -> String {
        for (unit, shift) in [("GiB", 30), ("MiB", 20), ("KiB", 10)] where count >= 1 << shift {
            let value = Double(count) / Double(UInt64(1) << shift)
            return (value == value.rounded() ? String(Int(value)) : String(format: "%.3g", value)) + " " + unit
        }
        return count == 1 ? "1 byte" : "\(count) bytes"
    }

    private static func grouped(_ value: UInt64) -> String {
        var digits = Array(String(value))
        var index = digits.count - 3
        while index > 0 {
            digits.insert(",", at: index)
            index -= 3
        }
        return String(digits)
    }
}
