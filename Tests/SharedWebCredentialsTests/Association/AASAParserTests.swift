import SharedWebCredentials
import Testing

@Suite("AASA file parsing and diagnostics")
struct AASAParserTests {
    static let app = try! ApplicationIdentifier("ABCDE12345.com.example.app")

    static func check(_ text: String, contentType: String? = "application/json", path: String? = nil) -> AASAReport {
        AASAParser.check(Array(text.utf8), contentType: contentType, path: path)
    }

    @Test("a minimal file approves the listed app")
    func minimal() {
        let report = Self.check("{\"webcredentials\": {\"apps\": [\"ABCDE12345.com.example.app\"]}}")
        #expect(report.isValid && report.diagnostics.isEmpty)
        #expect(report.approves(Self.app))
        #expect(report.document?.webcredentialsApps == ["ABCDE12345.com.example.app"])
    }

    @Test(
        "syntax errors are found with a code and position",
        arguments: [
            ("", "empty"),
            ("   ", "empty"),
            ("{\"webcredentials\": {\"apps\": [],}}", "trailing-comma"),
            ("{\"a\": [1, 2,]}", "trailing-comma"),
            ("// comment\n{}", "comment"),
            ("{\"a\": 1 /* x */}", "comment"),
            ("{'webcredentials': {}}", "invalid-json"),
            ("{\"a\": 01}", "invalid-json"),
            ("{\"a\": 1.}", "invalid-json"),
            ("{\"a\": \"\\x\"}", "invalid-json"),
            ("{\"a\": \"unterminated}", "invalid-json"),
            ("{\"a\": NaN}", "invalid-json"),
            ("{\"a\": tru}", "invalid-json"),
            ("{\"a\": 1} {}", "invalid-json"),
            ("{\"a\": \"\\ud800\"}", "invalid-json"),
            ("{\"a\" 1}", "invalid-json"),
            ("{\"a\": \"tab\there\"}", "invalid-json"),
            ("[]", "top-level-not-object"),
            ("\"webcredentials\"", "top-level-not-object"),
            ("null", "top-level-not-object"),
        ])
    func syntax(text: String, code: String) {
        let report = Self.check(text)
        #expect(!report.isValid)
        #expect(report.errors.first?.code == code, "\(report.diagnostics)")
        #expect(!report.approves(Self.app))
    }

    @Test("positions are reported as line and column")
    func position() {
        let report = Self.check("{\n  \"webcredentials\": {\"apps\": [\"x\",]}\n}")
        #expect(report.errors.first?.message.contains("line 2") == true)
    }

    @Test("a byte-order mark and invalid UTF-8 are errors")
    func encoding() {
        let bom = AASAParser.check([0xEF, 0xBB, 0xBF] + Array("{}".utf8))
        #expect(bom.errors.map(\.code) == ["bom"])
        let latin1 = AASAParser.check(Array("{\"a\": \"".utf8) + [0xE9] + Array("\"}".utf8))
        #expect(latin1.errors.map(\.code) == ["not-utf8"])
    }

    @Test("escapes and Unicode in strings are decoded")
    func escapes() {
        let report = Self.check(
            "{\"webcredentials\": {\"apps\": [\"ABCDE12345.com.example.\\u0061pp\"]}, \"x\": \"\\ud83d\\ude00 é\"}")
        #expect(report.approves(Self.app))
    }

    @Test("a signed legacy file is recognised and approves nothing")
    func signedLegacy() {
        let der: [UInt8] = [0x30, 0x80, 0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02, 0xA0, 0x80]
        let report = AASAParser.check(der)
        #expect(report.errors.map(\.code) == ["signed-legacy"])
        #expect(report.errors[0].message.contains("signed legacy format"))
        let byType = Self.check(
            "{\"webcredentials\": {\"apps\": [\"ABCDE12345.com.example.app\"]}}", contentType: "application/pkcs7-mime")
        #expect(!byType.approves(Self.app))
    }

    @Test("the structure of webcredentials is checked")
    func structure() {
        #expect(Self.check("{\"webcredentials\": []}").errors.map(\.code) == ["webcredentials-not-object"])
        #expect(Self.check("{\"webcredentials\": {}}").errors.map(\.code) == ["apps-missing"])
        #expect(Self.check("{\"webcredentials\": {\"apps\": {}}}").errors.map(\.code) == ["apps-not-array"])
        let mixed = Self.check("{\"webcredentials\": {\"apps\": [1, null, \"ABCDE12345.com.example.app\", \"bad\"]}}")
        #expect(mixed.approves(Self.app))
        #expect(mixed.warnings.map(\.code) == ["app-not-string", "app-not-string", "app-id-invalid"])
        let applinksKeys = Self.check(
            "{\"webcredentials\": {\"apps\": [\"ABCDE12345.com.example.app\"], \"appIDs\": [], \"details\": []}}")
        #expect(
            applinksKeys.warnings.map(\.code) == ["webcredentials-appids-ignored", "webcredentials-details-ignored"])
        #expect(Self.check("{\"other\": 1}").approves(Self.app) == false)
        #expect(Self.check("{\"other\": 1}").isValid)
    }

    @Test("content type, size and .json extension give the documented findings")
    func servingMistakes() {
        let text = Self.check(
            "{\"webcredentials\": {\"apps\": [\"ABCDE12345.com.example.app\"]}}",
            contentType: "text/html; charset=utf-8")
        #expect(text.warnings.map(\.code) == ["content-type"])
        #expect(text.approves(Self.app))
        #expect(Self.check("{}", contentType: "application/json; charset=utf-8").warnings.isEmpty)
        let big = AASAParser.check(Array("{}".utf8) + [UInt8](repeating: 0x20, count: 131_071))
        #expect(big.errors.map(\.code) == ["too-large"])
        #expect(Self.check("{}", path: "/apple-app-site-association.json").warnings.map(\.code) == ["json-extension"])
    }

    @Test("refusals are explained: missing section, app only in applinks, team ID vs App ID prefix")
    func explanations() {
        let none = Self.check(
            "{\"applinks\": {\"details\": [{\"appID\": \"ABCDE12345.com.example.app\", \"paths\": [\"*\"]}]}}")
        #expect(none.explainRefusal(of: Self.app).map(\.code) == ["no-webcredentials", "app-only-under-applinks"])
        let prefix = Self.check("{\"webcredentials\": {\"apps\": [\"TEAM000001.com.example.app\"]}}")
        #expect(prefix.explainRefusal(of: Self.app).map(\.code) == ["app-not-listed", "prefix-mismatch"])
        let approved = Self.check("{\"webcredentials\": {\"apps\": [\"ABCDE12345.com.example.app\"]}}")
        #expect(approved.explainRefusal(of: Self.app).isEmpty)
    }

    @Test("applinks in both formats is parsed for description")
    func applinks() {
        let report = Self.check(
            """
            {"applinks": {"apps": [], "details": [
                {"appID": "ABCDE12345.com.example.app", "paths": ["/buy/*", "NOT /admin/*"]},
                {"appIDs": ["ABCDE12345.com.example.app", "ABCDE12345.com.example.other"],
                 "components": [{"/": "/help/*", "?": {"q": "?*"}, "#": "top", "exclude": true, "comment": "no help"}]},
                "junk"
            ]}}
            """)
        #expect(report.isValid)
        let details = report.document!.applinks
        #expect(report.document?.applinksLegacyApps == [])
        #expect(details.count == 2)
        #expect(details[0].patterns == .paths(["/buy/*", "NOT /admin/*"]))
        guard case .components(let components) = details[1].patterns else {
            Issue.record("expected components")
            return
        }
        #expect(components[0].path == "/help/*" && components[0].query == "q=?*" && components[0].exclude)
        #expect(report.warnings.map(\.code) == ["applinks-detail-not-object"])
        #expect(report.document?.applinksApps.count == 3)
    }

    @Test("nesting is limited")
    func depth() {
        let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect(Self.check("{\"a\": \(deep)}").errors.first?.code == "invalid-json")
    }
}
