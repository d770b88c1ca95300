import SharedWebCredentials
import Testing

@Suite("Every associated-domains service has its own verdict")
struct ServiceVerdictTests {
    static let app = try! ApplicationIdentifier("ABCDE12345.com.example.app")
    static let file = """
        {"webcredentials": {"apps": ["ABCDE12345.com.example.app"]},
         "applinks": {"details": [{"appID": "ZZZZZ99999.com.example.other", "paths": ["*"]},
                                  {"appIDs": ["abcde12345.com.example.app"], "components": [{"/": "/*"}]}]},
         "appclips": {"apps": ["ABCDE12345.com.example.app.Clip"]},
         "activitycontinuation": {"apps": ["ZZZZZ99999.com.example.other"]}}
        """

    @Test("each service reads its own list")
    func lists() throws {
        let report = AASAParser.check(Array(Self.file.utf8))
        #expect(report.approves(Self.app, for: .webcredentials))
        #expect(report.approves(Self.app, for: .applinks))
        #expect(!report.approves(Self.app, for: .appclips))
        #expect(!report.approves(Self.app, for: .activitycontinuation))
        #expect(report.approves(try ApplicationIdentifier("ABCDE12345.com.example.app.Clip"), for: .appclips))
        #expect(report.approves(try ApplicationIdentifier("ZZZZZ99999.com.example.other"), for: .activitycontinuation))
        #expect(report.explainRefusal(of: Self.app, for: .applinks).isEmpty)
    }

    @Test("a refusal names the list to add the app to, and where else it is listed")
    func refusal() throws {
        let report = AASAParser.check(Array(Self.file.utf8))
        let findings = report.explainRefusal(of: Self.app, for: .activitycontinuation)
        #expect(findings.map(\.code) == ["activitycontinuation-app-not-listed", "app-under-other-service"])
        #expect(findings[0].message.contains("activitycontinuation.apps"))
        #expect(findings[1].message.contains("webcredentials, applinks"))
        #expect(report.explainRefusal(of: Self.app, for: .webcredentials).isEmpty)
    }

    @Test("an unusable file approves no service")
    func unusable() {
        let report = AASAParser.check(Array("{\"applinks\": {\"details\": []},}".utf8))
        for service in AssociatedDomainEntry.Service.allCases {
            #expect(!report.approves(Self.app, for: service))
            #expect(!report.explainRefusal(of: Self.app, for: service).isEmpty)
        }
    }

    @Test("the entries covering a domain, one per service, exact before wildcard")
    func covering() throws {
        let entitlements = try Entitlements(strings: [
            "applinks:*.example.com", "applinks:www.example.com", "webcredentials:*.example.com",
            "appclips:other.com",
        ])
        let entries = entitlements.entries(covering: try DomainTarget("www.example.com"))
        #expect(entries.map(\.description) == ["webcredentials:*.example.com", "applinks:www.example.com"])
        #expect(entitlements.entry(.appclips, covering: try DomainTarget("www.example.com")) == nil)
    }
}
