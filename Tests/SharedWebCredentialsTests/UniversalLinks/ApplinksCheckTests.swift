import SharedWebCredentials
import Testing

/// `aasa check`'s pattern problems: every warning the applinks reader gives, with its code.
@Suite("Universal links: pattern problems")
struct ApplinksCheckTests {
    static func codes(_ applinks: String) throws -> [String] {
        try #require(ApplinksParser.parse(Array(#"{"applinks": \#(applinks)}"#.utf8))).diagnostics.map(\.code)
    }

    static func entry(_ body: String) -> String {
        #"{"details": [{"appIDs": ["ABCDE12345.com.example.app"], \#(body)}]}"#
    }

    @Test(
        "each problem has its code",
        arguments: [
            (entry(#""components": [{"/": ""}]"#), "applinks-empty-pattern"),
            (entry(#""components": [{}]"#), "applinks-component-no-keys"),
            (entry(#""components": [{"exclude": true}]"#), "applinks-component-no-keys"),
            (entry(#""components": [{"/": "/$(food)"}]"#), "applinks-undefined-variable"),
            (entry(#""components": [{"/": "/$(food"}]"#), "applinks-unterminated-variable"),
            (entry(#""paths": ["/a"], "components": [{"/": "/b"}]"#), "applinks-paths-ignored"),
            (entry(#""components": [{"/": "/a", "fragment": "x"}]"#), "applinks-unknown-key"),
            (#"{"details": [{"appIds": ["ABCDE12345.com.example.app"], "components": []}]}"#, "applinks-unknown-key"),
            (#"{"detail": []}"#, "applinks-unknown-key"),
            (entry(#""components": [{"/": "/a"}], "defaults": {"casesensitive": false}"#), "applinks-unknown-key"),
            (entry(#""components": [{"/": 5}]"#), "applinks-pattern-not-string"),
            (entry(#""components": [{"?": {"a": 1}}]"#), "applinks-pattern-not-string"),
            (entry(#""components": [{"?": 1}]"#), "applinks-query-not-string-or-object"),
            (entry(#""components": [{"/": "/a", "exclude": "yes"}]"#), "applinks-not-boolean"),
            (entry(#""components": [{"/": "/a"}], "defaults": []"#), "applinks-defaults-not-object"),
            (entry(#""components": {"/": "/a"}"#), "applinks-components-not-array"),
            (entry(#""components": ["/a"]"#), "applinks-component-not-object"),
            (entry(#""paths": "/a""#), "applinks-paths-not-array"),
            (entry(#""paths": [1]"#), "applinks-pattern-not-string"),
            (entry(#""components": [{"/": "a/*"}]"#), "applinks-path-no-slash"),
            (entry(#""paths": ["NOT a"]"#), "applinks-path-no-slash"),
            (entry(#""components": [{"/": "/café"}]"#), "applinks-unicode-pattern-encoded"),
            (#"{"details": [{"appIDs": ["ABCDE12345.com.example.app"]}]}"#, "applinks-detail-no-patterns"),
            (#"{"substitutionVariables": [], "details": []}"#, "applinks-variables-not-object"),
            (#"{"substitutionVariables": {"a": "b"}}"#, "applinks-variable-not-array"),
            (#"{"substitutionVariables": {"a": [1, "b"]}}"#, "applinks-variable-not-string"),
            (#"{"substitutionVariables": {"a": []}}"#, "applinks-variable-empty"),
            (#"{"substitutionVariables": {"a": ["$(b)"]}}"#, "applinks-variable-in-variable"),
            (#"{"substitutionVariables": {"a)": ["x"]}}"#, "applinks-variable-name"),
            (#"{"substitutionVariables": {"region": ["x"]}}"#, "applinks-variable-shadows-predefined"),
        ])
    func problem(applinks: String, code: String) throws {
        let found = try Self.codes(applinks)
        #expect(found.contains(code), "\(found)")
        #expect(found.allSatisfy { $0.hasPrefix("applinks-") })
    }

    @Test("a clean section has no findings, and findings are warnings only")
    func clean() throws {
        #expect(
            try Self.codes(
                ##"{"apps": [], "defaults": {"caseSensitive": false}, "substitutionVariables": {"food": ["taco"]}, "details": [{"appIDs": ["ABCDE12345.com.example.app"], "defaults": {"percentEncoded": false}, "components": [{"/": "/$(food)/*", "?": {"a": "?*"}, "#": "*", "exclude": false, "comment": "x"}, {"/": "/é"}]}]}"##
            ).isEmpty)
        let configuration = try #require(
            ApplinksParser.parse(Array(#"{"applinks": {"details": [{"appIDs": [], "components": [{}]}]}}"#.utf8)))
        #expect(configuration.diagnostics.allSatisfy { $0.severity == .warning })
    }

    @Test("messages name the place, the key as written and the fix")
    func messages() throws {
        let configuration = try #require(
            ApplinksParser.parse(Array(Self.entryFile(#""components": [{"/": "/a"}, {"/": "a"}], "paths": []"#).utf8)))
        let messages = configuration.diagnostics.map(\.message)
        #expect(messages.contains { $0.contains("applinks.details[0]") && $0.contains("ignore paths") })
        #expect(
            messages.contains {
                $0.contains("applinks.details[0].components[1] path pattern \"a\"") && $0.contains("write \"/a\"")
            })
        let typo = try #require(
            ApplinksParser.parse(Array(#"{"applinks": {"details": [{"appIds": []}]}}"#.utf8)))
        #expect(typo.diagnostics.contains { $0.message.contains("keys are case-sensitive: write \"appIDs\"") })
    }

    @Test("a pattern that grows too large after substitution is reported and never matched")
    func tooComplex() throws {
        let values = (0..<2_000).map { "\"value-number-\($0)\"" }.joined(separator: ", ")
        let path = String(repeating: "$(v)", count: 20)
        let file =
            #"{"applinks": {"substitutionVariables": {"v": [\#(values)]}, "details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [{"/": "\#(path)"}]}]}}"#
        let configuration = try #require(ApplinksParser.parse(Array(file.utf8)))
        #expect(configuration.diagnostics.map(\.code) == ["applinks-pattern-too-complex"])
        let decision = configuration.decide(
            try UniversalLinkURL("https://example.com/value-number-1"), for: UniversalLinkConformanceTests.app)
        #expect(decision.reason == .noMatch)
    }

    @Test("bytes that are not a JSON object give no configuration")
    func notJSON() {
        #expect(ApplinksParser.parse(Array("[]".utf8)) == nil)
        #expect(ApplinksParser.parse(Array("{".utf8)) == nil)
        #expect(ApplinksParser.parse([0xEF, 0xBB, 0xBF] + Array("{}".utf8)) == nil)
        #expect(ApplinksParser.parse([0x7B, 0xFF, 0x7D]) == nil)
        #expect(ApplinksParser.parse(Array("{}".utf8))?.details.isEmpty == true)
    }

    static func entryFile(_ body: String) -> String { #"{"applinks": \#(entry(body))}"# }
}
