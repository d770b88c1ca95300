import SharedWebCredentials
import Testing

@Suite("application identifiers")
struct ApplicationIdentifierTests {
    @Test("a valid identifier splits into prefix and bundle ID")
    func valid() throws {
        let app = try ApplicationIdentifier("ABCDE12345.com.example.app-beta")
        #expect(app.prefix == "ABCDE12345")
        #expect(app.bundleIdentifier == "com.example.app-beta")
        #expect(app.description == "ABCDE12345.com.example.app-beta")
        #expect(try ApplicationIdentifier("ABCDE12345.app").bundleIdentifier == "app")
    }

    @Test(
        "bad identifiers are rejected with the rule they break",
        arguments: [
            ("", "empty"),
            ("ABCDE12345", "no dot"),
            ("ABCDE1234.com.example.app", "has 9 characters"),
            ("ABCDE123456.com.example.app", "has 11 characters"),
            ("abcde12345.com.example.app", "upper-case"),
            ("ABCDE-1234.com.example.app", "letters A-Z and digits"),
            ("ABCDÉ12345.com.example.app", "letters A-Z and digits"),
            ("ABCDE12345.", "bundle ID after the prefix is empty"),
            ("ABCDE12345.com..example", "empty component"),
            ("ABCDE12345.com.example.", "empty component"),
            ("ABCDE12345..com", "empty component"),
            ("ABCDE12345.com example", "white space"),
            ("ABCDE12345.com/example", "letters, digits, hyphens and dots"),
            ("ABCDE12345.com_example", "letters, digits, hyphens and dots"),
            (".com.example.app", "has 0 characters"),
        ])
    func invalid(text: String, rule: String) {
        do {
            _ = try ApplicationIdentifier(text)
            Issue.record("accepted \(text)")
        } catch let error as SharedWebCredentialsError {
            #expect(error.code == .invalidInput)
            #expect(error.message.contains(rule), "\(error.message)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("AASA entries name the app with the prefix in any case but the exact bundle ID")
    func naming() throws {
        let app = try ApplicationIdentifier("ABCDE12345.com.example.app")
        #expect(app.isNamed(by: "ABCDE12345.com.example.app"))
        #expect(app.isNamed(by: "abcde12345.com.example.app"))
        #expect(!app.isNamed(by: "ABCDE12345.com.example.App"))
        #expect(!app.isNamed(by: "ABCDE12345.com.example.app2"))
        #expect(!app.isNamed(by: "ABCDE12346.com.example.app"))
        #expect(!app.isNamed(by: "ABCDE12345"))
    }
}
