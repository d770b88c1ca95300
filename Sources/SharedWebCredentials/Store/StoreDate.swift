import Foundation

/// The text form of a date in the vault's tables: `yyyy-MM-dd HH:mm:ss.SSS` in UTC, the form GRDB
/// wrote before the storage layer was engine-neutral. Rows MAC'd then must verify byte for byte,
/// and every engine stores the same text, so dates are formatted and parsed here, not by an engine.
enum StoreDate {
    /// `date` as stored: to the nearest millisecond, as GRDB's formatter did.
    static func text(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let (days, dayMilliseconds) = floorDivision(milliseconds, 86_400_000)
        let (year, month, day) = civil(fromDays: days)
        let seconds = dayMilliseconds / 1000
        var text = ""
        text.reserveCapacity(23)
        append(year, width: 4, to: &text)
        text.append("-")
        append(month, width: 2, to: &text)
        text.append("-")
        append(day, width: 2, to: &text)
        text.append(" ")
        append(seconds / 3600, width: 2, to: &text)
        text.append(":")
        append(seconds / 60 % 60, width: 2, to: &text)
        text.append(":")
        append(seconds % 60, width: 2, to: &text)
        text.append(".")
        append(dayMilliseconds % 1000, width: 3, to: &text)
        return text
    }

    /// The date of a stored text (`yyyy-MM-dd HH:mm:ss`, optionally with `.` and 1 to 9 digits of
    /// fraction, as GRDB read them); nil for anything else.
    static func date(_ text: String) -> Date? {
        var text = text
        return text.withUTF8(date(utf8:))
    }

    /// ``date(_:)`` on the text's bytes: read in place, in one pass (a request reads three).
    private static func date(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        guard bytes.count >= pattern.count, bytes.count != pattern.count + 1, bytes.count <= pattern.count + 10
        else { return nil }
        var fields: [Int64] = []
        fields.reserveCapacity(6)
        var value: Int64 = 0
        for (index, expected) in pattern.enumerated() {
            let byte = bytes[index]
            if expected == UInt8(ascii: "d") {
                guard let digit = digit(byte) else { return nil }
                value = value * 10 + digit
            } else {
                guard byte == expected else { return nil }
                fields.append(value)
                value = 0
            }
        }
        fields.append(value)
        let (year, month, day, hour, minute, second) = (
            fields[0], fields[1], fields[2], fields[3], fields[4], fields[5]
        )
        guard (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        var fraction = 0.0
        if bytes.count > pattern.count {
            guard bytes[pattern.count] == UInt8(ascii: ".") else { return nil }
            var scale = 0.1
            for byte in bytes[(pattern.count + 1)...] {
                guard let digit = digit(byte) else { return nil }
                fraction += Double(digit) * scale
                scale /= 10
            }
        }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    /// The fixed part of a stored date: a digit where it has `d`, that byte elsewhere.
    private static let pattern = Array("dddd-dd-dd dd:dd:dd".utf8)

    /// The value of an ASCII digit, nil for any other byte.
    private static func digit(_ byte: UInt8) -> Int64? {
        (0x30...0x39).contains(byte) ? Int64(byte - 0x30) : nil
    }

    private static func append(_ value: Int64, width: Int, to text: inout String) {
        let digits = String(value)
        if digits.count < width { text.append(String(repeating: "0", count: width - digits.count)) }
        text.append(digits)
    }

    private static func floorDivision(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let quotient = value / divisor - (value % divisor < 0 ? 1 : 0)
        return (quotient, value - quotient * divisor)
    }

    /// Howard Hinnant's `civil_from_days`: the proleptic Gregorian date of a day count since 1970.
    private static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Howard Hinnant's `days_from_civil`.
    private static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let year = month <= 2 ? year - 1 : year
        let era = (year >= 0 ? year : year - 399) / 400
        let yearOfEra = year - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

extension StoreValue {
    /// A date as the vault stores it (``StoreDate``).
    static func date(_ date: Date) -> StoreValue { .text(StoreDate.text(date)) }

    /// NULL for nil, else the stored date.
    static func date(_ date: Date?) -> StoreValue { date.map { .date($0) } ?? .null }

    /// The date of a stored text, or nil.
    var date: Date? { text.flatMap(StoreDate.date) }
}

extension StoreRow {
    /// Column `index` as a stored date, or nil when it is NULL or not a date's text.
    func date(_ index: Int) -> Date? { values[index].date }
}
