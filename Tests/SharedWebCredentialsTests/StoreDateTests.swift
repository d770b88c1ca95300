import Foundation
import GRDB
import Testing

@testable import SharedWebCredentials

/// Dates in the vault's tables are text that rows' MACs cover: `StoreDate` must write exactly what
/// GRDB wrote before the storage layer was engine-neutral, and read back what GRDB read.
@Suite("Stored dates: GRDB's text form, byte for byte")
struct StoreDateTests {
    static let dates: [Date] = [
        Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 1_764_083_725.123),
        Date(timeIntervalSince1970: 951_782_400.999), Date(timeIntervalSince1970: 4_102_444_799.5),
        Date(timeIntervalSince1970: 1_709_164_800.0005),
    ]

    @Test("the text of a date is GRDB's", arguments: dates)
    func sameTextAsGRDB(_ date: Date) {
        #expect(StoreDate.text(date) == String.fromDatabaseValue(date.databaseValue))
    }

    @Test("a stored text reads back as GRDB reads it, to the millisecond", arguments: dates)
    func readsAsGRDB(_ date: Date) throws {
        let text = StoreDate.text(date)
        let ours = try #require(StoreDate.date(text))
        let grdbs = try #require(Date.fromDatabaseValue(text.databaseValue))
        #expect(abs(ours.timeIntervalSince1970 - grdbs.timeIntervalSince1970) < 0.000_5, "\(text)")
    }

    @Test("anything but a date's text reads as no date")
    func malformed() {
        for text in [
            "", "2026-11-25", "2026-13-01 00:00:00", "2026-11-25 24:00:00", "2026-11-25T10:00:00", "x",
            "2026-11-25 10:00:00.", "2026-11-25 10:00:00.1234567890", "2026-11-25 10:00:00,5", "2026-11-25 10:00:0a",
            "2026-11-25 10:00:00.5x", "2026-00-25 10:00:00", "2026-11-32 10:00:00", "2026-11-25 10:60:00",
            "+026-11-25 10:00:00", "2026-11-25 10:00:00 ",
        ] {
            #expect(StoreDate.date(text) == nil, "\(text)")
        }
    }

    @Test("a fraction of one to nine digits, and dates before 1970, read as GRDB reads them")
    func fractionsAndEarlyDates() throws {
        for text in ["2026-11-25 10:00:00.5", "2026-11-25 10:00:00.123456789", "1969-12-31 23:59:59.250"] {
            let ours = try #require(StoreDate.date(text), "\(text)")
            let grdbs = try #require(Date.fromDatabaseValue(text.databaseValue), "\(text)")
            #expect(abs(ours.timeIntervalSince1970 - grdbs.timeIntervalSince1970) < 0.000_5, "\(text)")
        }
    }
}
