import Foundation
import SharedWebCredentials
import TestSupport
import Testing

@Suite("entitlements from Xcode property lists and strings")
struct EntitlementsTests {
    static func plist(_ body: String) -> Data {
        Data(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \(body)
            </dict>
            </plist>
            """.utf8)
    }

    @Test("an Xcode .entitlements file is read from disk")
    func readsPlist() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("App.entitlements")
        try Self.plist(
            """
            <key>com.apple.developer.associated-domains</key>
            <array>
                <string>webcredentials:example.com</string>
                <string>applinks:example.com</string>
                <string>webcredentials:example.com</string>
            </array>
            <key>aps-environment</key><string>development</string>
            """
        ).write(to: URL(fileURLWithPath: path))
        let entitlements = try Entitlements(plistAt: path)
        #expect(entitlements.entries.map(\.description) == ["webcredentials:example.com", "applinks:example.com"])
        #expect(entitlements.webcredentialsEntries.count == 1)
        #expect(entitlements.warnings.isEmpty)
    }

    @Test(
        "bad entitlements files are invalid input that names the problem",
        arguments: [
            (
                "<key>com.apple.developer.associated-domains</key><string>webcredentials:example.com</string>",
                "not an array"
            ),
            ("<key>com.apple.developer.associated-domains</key><array><integer>1</integer></array>", "item 0"),
            (
                "<key>com.apple.developer.associated-domains</key><array><string>webcredentials:https://x.com</string></array>",
                "remove the scheme"
            ),
        ])
    func badFiles(body: String, problem: String) {
        do {
            _ = try Entitlements(plistData: Self.plist(body), source: "App.entitlements")
            Issue.record("accepted")
        } catch let error as SharedWebCredentialsError {
            #expect(error.code == .invalidInput)
            #expect(error.message.contains(problem), "\(error.message)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("a file that is not a property list, and a missing file, are invalid input")
    func unreadable() {
        #expect(throws: SharedWebCredentialsError.self) {
            try Entitlements(plistData: Data("{\"a\": 1".utf8), source: "x")
        }
        #expect(throws: SharedWebCredentialsError.self) { try Entitlements(plistAt: "/nonexistent/App.entitlements") }
    }

    @Test("more than 30 domains, or no webcredentials entry, draws a warning; no claim is put in Apple's mouth")
    func warnings() throws {
        let many = try Entitlements(strings: (1...31).map { "webcredentials:d\($0).example.com" })
        #expect(many.warnings.count == 1)
        #expect(many.warnings[0].contains("31 domains"))
        #expect(!many.warnings[0].contains("Apple"), "\(many.warnings[0])")
        let none = try Entitlements(strings: ["applinks:example.com"])
        #expect(none.warnings.contains { $0.contains("no webcredentials") })
    }

    @Test("a missing associated-domains key is treated like an empty array: no entries, a warning naming the key")
    func missingKeyIsEmpty() throws {
        let missing = try Entitlements(
            plistData: Self.plist("<key>other</key><string>x</string>"), source: "App.entitlements")
        let empty = try Entitlements(
            plistData: Self.plist("<key>com.apple.developer.associated-domains</key><array/>"),
            source: "App.entitlements")
        #expect(missing.entries.isEmpty && empty.entries.isEmpty)
        #expect(missing.warnings.contains { $0.contains("no com.apple.developer.associated-domains key") })
        #expect(missing.warnings.contains { $0.contains("no webcredentials") })
        #expect(empty.warnings.contains { $0.contains("no webcredentials") })
    }

    @Test("an unresolved Xcode build setting: refused, quoted as written, in a webcredentials entry; skipped elsewhere")
    func buildSettings() throws {
        let body = """
            <key>com.apple.developer.associated-domains</key>
            <array>
                <string>applinks:$(APP_LINKS_DOMAIN)</string>
                <string>webcredentials:example.com</string>
                <string>activitycontinuation:${Handoff_Domain}</string>
            </array>
            """
        let skipping = try Entitlements(plistData: Self.plist(body), source: "App.entitlements")
        #expect(skipping.entries.map(\.description) == ["webcredentials:example.com"])
        #expect(skipping.warnings.count == 2)
        #expect(skipping.warnings[0].contains("skipped \"applinks:$(APP_LINKS_DOMAIN)\""), "\(skipping.warnings)")
        #expect(skipping.warnings[1].contains("${Handoff_Domain}"), "case kept: \(skipping.warnings)")

        let refusing = """
            <key>com.apple.developer.associated-domains</key>
            <array><string>webcredentials:$(APP_LINKS_DOMAIN)</string></array>
            """
        do {
            _ = try Entitlements(plistData: Self.plist(refusing), source: "App.entitlements")
            Issue.record("accepted")
        } catch let error as SharedWebCredentialsError {
            #expect(error.code == .invalidInput)
            #expect(error.message.contains("unresolved Xcode build setting $(APP_LINKS_DOMAIN)"), "\(error.message)")
            #expect(
                error.message.contains("--domain \"webcredentials:<value of APP_LINKS_DOMAIN>\""), "\(error.message)")
            #expect(!error.message.contains("app_links_domain"), "never lower-cased: \(error.message)")
            #expect(!error.message.contains("label"), "\(error.message)")
        }
    }

    @Test("an invalid label is quoted as the user wrote it, never lower-cased")
    func labelsQuotedAsWritten() {
        do {
            _ = try Entitlements(strings: ["webcredentials:My_Site.Example.COM"])
            Issue.record("accepted")
        } catch let error as SharedWebCredentialsError {
            #expect(error.message.contains("\"My_Site\""), "\(error.message)")
            #expect(!error.message.contains("my_site"), "\(error.message)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}
