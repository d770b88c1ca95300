import Foundation
import SharedWebCredentials
import Testing

@Suite("Universal links: the pattern matcher and URLs")
struct URLPatternTests {
    static func pattern(_ text: String, caseSensitive: Bool = true) throws -> URLPattern {
        try URLPattern(text, variables: SubstitutionVariables(), caseSensitive: caseSensitive)
    }

    @Test(
        "glob semantics",
        arguments: [
            ("", "", true), ("", "a", false), ("*", "", true), ("*", "anything/at/all", true), ("?", "", false),
            ("?", "a", true), ("a*b", "ab", true), ("a*b", "axxb", true), ("a*b", "axxbc", false),
            ("*a*b*c*", "xxaxxbxxcxx", true), ("*a*b*c*", "cba", false), ("?*", "", false), ("??", "ab", true),
            ("a?c*", "abcdef", true), ("**", "x", true), ("*?*?", "x", false), ("$", "$", true), ("$(", "$(", true),
            ("a$(b", "a$(b", true),
        ])
    func glob(pattern: String, subject: String, expected: Bool) throws {
        #expect(try Self.pattern(pattern).matches(subject) == expected)
    }

    @Test("a pattern with many stars against a long near-miss takes at most states × characters steps")
    func noBacktracking() throws {
        // Backtracking would try about C(200, 40) ways before giving up; the automaton never does.
        let pattern = try Self.pattern(String(repeating: "*a", count: 40) + "b")
        let subject = String(repeating: "a", count: 200)
        #expect(pattern.stateCount == 82)
        #expect(!pattern.matches(subject))
        #expect(pattern.matches(subject + "b"))
    }

    @Test("case folding covers Unicode letters")
    func unicodeCase() throws {
        #expect(try Self.pattern("/ÉTÉ", caseSensitive: false).matches("/été"))
        #expect(try !Self.pattern("/ÉTÉ").matches("/été"))
    }

    @Test("an undefined variable is a compile problem")
    func undefined() {
        #expect(throws: URLPattern.Problem.undefinedVariable("x")) {
            _ = try URLPattern("/$(x)", variables: SubstitutionVariables(), caseSensitive: true)
        }
    }

    @Test("the predefined region and language lists are ISO codes")
    func predefinedLists() {
        #expect(SubstitutionVariables.regionCodes.contains("US") && SubstitutionVariables.regionCodes.contains("CA"))
        #expect(SubstitutionVariables.regionCodes.allSatisfy { $0.count == 2 })
        #expect(
            SubstitutionVariables.languageCodes.contains("en") && SubstitutionVariables.languageCodes.contains("zh"))
        #expect(!SubstitutionVariables.languageCodes.contains("EN"))
    }

    @Test("URLs are split and percent-encoded the way matching sees them")
    func urls() throws {
        let url = try UniversalLinkURL("HTTPS://Example.COM:8443/a b/é?x=1&y&=z&x=2#frag ment")
        #expect(url.target.host == "example.com" && url.target.port == 8443)
        #expect(url.path == "/a%20b/%C3%A9")
        #expect(url.query == "x=1&y&=z&x=2")
        #expect(url.fragment == "frag%20ment")
        #expect(url.queryItems.map(\.name) == ["x", "y", "", "x"])
        #expect(url.queryItems.map(\.value) == ["1", "", "z", "2"])
        #expect(try UniversalLinkURL("https://example.com").path == "/")
        #expect(try UniversalLinkURL("https://example.com/100%").path == "/100%25")
        #expect(try UniversalLinkURL("https://example.com/%41").path == "/%41")
        #expect(try UniversalLinkURL("https://bücher.example/").target.host == "xn--bcher-kva.example")
        #expect(try UniversalLinkURL("https://example.com/x").query == nil)
        #expect(try UniversalLinkURL("https://example.com/x?").query == "")
    }

    @Test(
        "bad URLs are invalid input that names the problem",
        arguments: [
            ("example.com/path", "absolute URL"),
            ("ftp://example.com/", "not ftp"),
            ("https://user:pw@example.com/", "user name"),
            ("https:///path", "host is empty"),
            ("https://example.com/a\u{7}b", "U+0007"),
            ("https://exa mple.com/", "white space"),
        ])
    func badURL(text: String, message: String) {
        let error = #expect(throws: SharedWebCredentialsError.self) { try UniversalLinkURL(text) }
        #expect(error?.code == .invalidInput)
        #expect(error?.message.contains(message) == true, "\(error?.message ?? "")")
    }
}
