import Foundation

/// The times import files carry, parsed; an empty field is no time.
enum ImportTime {
    /// How a format writes a time.
    enum Format {
        /// ISO 8601 / RFC 3339, with or without fractional seconds (KeePassXC, Bitwarden).
        case iso8601
        /// Milliseconds since 1970 (Firefox).
        case unixMilliseconds
    }

    /// The time in `text`, nil when it is empty; throws a description of the problem (without the
    /// row's secrets) when it is not a time.
    static func parse(_ text: String, format: Format, field: String) throws(ImportTimeError) -> Date? {
        let trimmed = text.trimmedOfSpaces
        if trimmed.isEmpty { return nil }
        switch format {
        case .unixMilliseconds:
            guard let milliseconds = Int64(trimmed), milliseconds >= 0 else {
                throw ImportTimeError(problem: "\(field) \"\(trimmed)\" is not a time in milliseconds since 1970")
            }
            return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        case .iso8601:
            if let date = try? Date(trimmed, strategy: .iso8601) { return date }
            if let date = try? Date(trimmed, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) {
                return date
            }
            throw ImportTimeError(
                problem: "\(field) \"\(trimmed)\" is not an ISO 8601 time (such as 2024-01-31T12:00:00Z)")
        }
    }

    /// Seconds since 1970, as CXF and 1PUX write them.
    static func fromUnixSeconds(_ value: Any?) -> Date? {
        guard let number = value as? NSNumber else { return nil }
        return Date(timeIntervalSince1970: number.doubleValue)
    }
}

/// A field that should hold a time and does not.
struct ImportTimeError: Error {
    let problem: String
}
