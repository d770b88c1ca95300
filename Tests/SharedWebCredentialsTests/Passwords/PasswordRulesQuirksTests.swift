import Foundation
import Testing

@testable import SharedWebCredentials

@Suite("password-rules.json quirks")
struct PasswordRulesQuirksTests {
    static let committedFile = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Resources/password-manager-resources/password-rules.json")

    @Test("the embedded copy is byte for byte the committed file (run Scripts/embed-resources if not)")
    func embeddedMatchesCommittedFile() throws {
        let committed = try Data(contentsOf: Self.committedFile)
        #expect(Data(PasswordRulesQuirks.embeddedJSON.utf8) == committed)
        #expect(PasswordRulesQuirks.all.count == 434)
    }

    @Test(
        "every entry parses without a warning but for non-ASCII characters dropped from a class, and 1,000 passwords per entry satisfy its rules"
    )
    func everyEntryParsesAndGenerates() throws {
        var styles: [PasswordStyle: Int] = [:]
        var droppingNonASCII: [String] = []
        for quirk in PasswordRulesQuirks.all.values.sorted(by: { $0.domain < $1.domain }) {
            let parsed = PasswordRulesParser.parse(quirk.rulesText)
            let dropped = parsed.warnings.filter { $0.hasPrefix("ignoring U+") }
            if !dropped.isEmpty { droppingNonASCII.append(quirk.domain) }
            #expect(parsed.warnings.count == dropped.count, "\(quirk.domain): \(parsed.warnings)")
            let generator = try PasswordGenerator(rules: parsed.rules)
            let validator = IndependentRulesValidator(parsed.rules)
            styles[generator.style, default: 0] += 1
            for _ in 0..<1_000 {
                let generated = generator.next()
                if let violation = validator.violation(generated.password) {
                    Issue.record("\(quirk.domain): \(violation)")
                    break
                }
                if !(generated.entropyBits > 0 && generated.entropyBits < 2_000) {
                    Issue.record("\(quirk.domain): entropy \(generated.entropyBits)")
                    break
                }
            }
        }
        #expect(styles.values.reduce(0, +) == 434)
        #expect(styles[.strong, default: 0] > 0 && styles[.classic, default: 0] > 0)
        // Apple's own data writes §, ä, ’ and £ into classes; its parser drops them, and so does
        // swcred, saying so.
        #expect(droppingNonASCII == ["axa.de", "dkb.de", "kundenportal.edeka-smart.de", "posteo.de", "unito.it"])
    }

    @Test("a host matches its own entry or its nearest parent's")
    func lookup() throws {
        #expect(try PasswordRulesQuirks.quirk(for: "apple.com")?.domain == "apple.com")
        #expect(try PasswordRulesQuirks.quirk(for: "WWW.Apple.COM")?.domain == "apple.com")
        #expect(try PasswordRulesQuirks.quirk(for: "a.b.apple.com")?.domain == "apple.com")
        #expect(try PasswordRulesQuirks.quirk(for: "example.org") == nil)
        #expect(try PasswordRulesQuirks.quirk(for: "login.example.co.uk") == nil)
    }

    @Test("exact-domain-match-only entries do not apply to subdomains")
    func exactDomainMatchOnly() throws {
        let exact = PasswordRulesQuirks.all.values.filter(\.exactDomainMatchOnly)
        for quirk in exact {
            #expect(try PasswordRulesQuirks.quirk(for: quirk.domain)?.domain == quirk.domain)
            #expect(try PasswordRulesQuirks.quirk(for: "sub." + quirk.domain)?.domain != quirk.domain)
        }
    }

    @Test(
        "invalid hosts are rejected with the rule they break",
        arguments: [
            "https://apple.com", "apple.com/login", "apple.com:443", "apple", ".apple.com", "apple.com.", "a..com",
            "-a.com", "äpple.com", "",
        ])
    func invalidHosts(host: String) {
        #expect(throws: SharedWebCredentialsError.self) { try PasswordRulesQuirks.quirk(for: host) }
    }
}
