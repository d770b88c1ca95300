import SharedWebCredentials
import Testing

/// The mistakes found in real AASA files (issue 11, "Diagnostics on real-world files") and the
/// Unicode app IDs of finding 6, each in a file written for the test.
@Suite("AASA diagnostics for real-world mistakes")
struct AASARealWorldDiagnosticsTests {
    static let app = try! ApplicationIdentifier("ABCDE12345.com.example.app")

    static func check(_ text: String) -> AASAReport { AASAParser.check(Array(text.utf8)) }

    static func codes(_ report: AASAReport) -> [String] { report.diagnostics.map(\.code) }

    @Test(
        "app IDs with characters that Unicode case rules map to ASCII approve nobody, and are ignored with a warning",
        arguments: [
            ("ABCDE1234\u{017F}.com.example.app", "ABCDE1234S.com.example.app", "U+017F LATIN SMALL LETTER LONG S"),
            ("ABCDE123\u{00DF}.com.example.app", "ABCDE123SS.com.example.app", "U+00DF LATIN SMALL LETTER SHARP S"),
            ("ABCDE123\u{FB00}.com.example.app", "ABCDE123FF.com.example.app", "U+FB00 LATIN SMALL LIGATURE FF"),
            ("ABCDE1234\u{212A}.com.example.app", "ABCDE1234K.com.example.app", "U+212A KELVIN SIGN"),
            ("ABCDE12345.com.\u{212A}iosk", "ABCDE12345.com.Kiosk", "U+212A KELVIN SIGN"),
        ])
    func unicodeAppIDs(listed: String, plain: String, name: String) throws {
        // The ASCII app that Unicode case mapping or normalisation would confuse with the entry.
        let asciiLike = try ApplicationIdentifier(plain)
        let report = Self.check(#"{"webcredentials": {"apps": ["\#(listed)"]}}"#)
        #expect(!report.approves(asciiLike), "\(listed) must not approve \(plain)")
        #expect(!asciiLike.isNamed(by: listed))
        #expect(report.document?.webcredentialsApps.isEmpty == true, "a non-ASCII entry is ignored")
        let warning = try #require(report.warnings.first { $0.code == "app-id-not-ascii" })
        #expect(warning.message.contains(name), "\(warning.message)")
    }

    @Test("the prefix is compared ASCII-case-insensitively and the bundle ID byte for byte")
    func asciiMatching() throws {
        #expect(Self.app.isNamed(by: "abcde12345.com.example.app"))
        #expect(!Self.app.isNamed(by: "ABCDE12345.com.example.APP"))
        #expect(!Self.app.isNamed(by: "ABCDE12345.com.example.app\u{0000}"))
    }

    @Test("a repeated member name keeps the last value, as Apple's parser does, with a warning")
    func duplicateKeys() throws {
        let report = Self.check(
            #"{"webcredentials": {"apps": ["ZZZZZ99999.com.other"], "apps": ["ABCDE12345.com.example.app"]}}"#)
        #expect(report.approves(Self.app))
        let warning = try #require(report.warnings.first { $0.code == "duplicate-key" })
        #expect(warning.message.contains("\"apps\"") && warning.message.contains("line 1"), "\(warning.message)")
    }

    @Test(
        "invisible and typographic characters are named with their code point and the fix",
        arguments: [
            ("{\u{2003}\"webcredentials\": {}}", "invisible-character", "U+2003 EM SPACE"),
            ("{\"webcredentials\":\u{00A0}{}}", "invisible-character", "U+00A0 NO-BREAK SPACE"),
            ("{\u{201C}webcredentials\u{201D}: {}}", "typographic-quote", "U+201C LEFT DOUBLE QUOTATION MARK"),
            ("{\"webcredentials\": {\"apps\": [\u{201D}x\u{201D}]}}", "typographic-quote", "U+201D"),
            ("{\"a\": 1\u{200B}}", "invisible-character", "U+200B ZERO WIDTH SPACE"),
        ])
    func invisibleCharacters(text: String, code: String, name: String) throws {
        let report = Self.check(text)
        #expect(!report.isValid)
        let error = try #require(report.errors.first)
        #expect(error.code == code)
        #expect(error.message.contains(name), "\(error.message)")
        #expect(error.message.contains("line 1, column"), "\(error.message)")
    }

    @Test("webcredentials nested in applinks is said to be in the wrong place, not missing")
    func nestedWebcredentials() throws {
        let report = Self.check(
            #"{"applinks": {"details": [], "webcredentials": {"apps": ["ABCDE12345.com.example.app"]}}}"#)
        #expect(Self.codes(report).contains("webcredentials-misplaced"))
        #expect(!report.approves(Self.app))
        let refusal = report.explainRefusal(of: Self.app)
        #expect(refusal.first?.code == "webcredentials-misplaced")
        #expect(refusal.first?.message.contains("nested in applinks") == true)
        #expect(refusal.first?.message.contains("top level") == true)
        #expect(!refusal.contains { $0.code == "no-webcredentials" })
    }

    @Test("app IDs under applinks are checked like webcredentials ones")
    func applinksAppIDs() throws {
        let report = Self.check(
            #"{"applinks": {"details": [{"appIDs": ["DEVELOPMENT_TEAM.PRODUCT_BUNDLE_IDENTIFIER", "ABCDE12345.com.example.app"], "components": [{"/": "/*"}]}, {"appID": "ABCDE12345.com.\#u{212A}", "paths": ["*"]}]}}"#
        )
        let invalid = report.warnings.filter { $0.code == "app-id-invalid" }
        #expect(invalid.count == 1)
        #expect(invalid.first?.message.contains("applinks.details[0].appIDs[0]") == true, "\(invalid)")
        #expect(report.warnings.contains { $0.code == "app-id-not-ascii" && $0.message.contains("details[1].appID") })
        #expect(
            report.document?.applinks.map(\.appIDs) == [
                ["DEVELOPMENT_TEAM.PRODUCT_BUNDLE_IDENTIFIER", "ABCDE12345.com.example.app"], [],
            ])
    }

    @Test("appIDs beside legacy paths: a note that iOS 12 reads only appID")
    func appIDsWithPaths() throws {
        let report = Self.check(
            #"{"applinks": {"apps": [], "details": [{"appIDs": ["ABCDE12345.com.example.app"], "paths": ["/x/*"]}]}}"#)
        let note = try #require(report.warnings.first { $0.code == "appids-with-paths" })
        #expect(note.message.contains("iOS 12"), "\(note.message)")
        let fine = Self.check(
            #"{"applinks": {"apps": [], "details": [{"appID": "ABCDE12345.com.example.app", "paths": ["/x/*"]}]}}"#)
        #expect(fine.diagnostics.isEmpty, "\(fine.diagnostics)")
    }

    @Test("a non-empty legacy applinks.apps draws a warning; an empty one does not")
    func legacyApps() throws {
        let listed = Self.check(#"{"applinks": {"apps": ["ABCDE12345.com.example.app"], "details": []}}"#)
        #expect(Self.codes(listed) == ["applinks-apps-not-empty"])
        #expect(Self.check(#"{"applinks": {"apps": [], "details": []}}"#).diagnostics.isEmpty)
    }
}
