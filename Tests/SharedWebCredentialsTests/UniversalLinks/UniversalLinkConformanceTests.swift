import SharedWebCredentials
import Testing

/// One row of the conformance table: a file's `applinks` section, a URL, and what Apple's
/// documented semantics say about it.
struct UniversalLinkCase: CustomTestStringConvertible, Sendable {
    let name: String
    /// The `applinks` object, as JSON.
    let applinks: String
    let url: String
    let reason: UniversalLinkDecision.Reason
    /// The deciding (details index, pattern index), nil when nothing matched.
    let decidedBy: (Int, Int)?

    var testDescription: String { name }

    init(
        _ name: String, _ applinks: String, _ url: String, _ reason: UniversalLinkDecision.Reason,
        _ decidedBy: (Int, Int)? = nil
    ) {
        self.name = name
        self.applinks = applinks
        self.url = url
        self.reason = reason
        self.decidedBy = decidedBy
    }
}

/// The conformance table of `swcred aasa match`: every behaviour of Apple's universal-link
/// matching that swcred implements, at least once.
@Suite("Universal links: Apple's matching semantics")
struct UniversalLinkConformanceTests {
    static let app = try! ApplicationIdentifier("ABCDE12345.com.example.app")
    static let other = "ZZZZZ99999.com.example.other"

    /// A `details` array with one components entry for the app.
    static func components(_ items: String, defaults: String = "") -> String {
        #"{"details": [{"appIDs": ["ABCDE12345.com.example.app"], \#(defaults)"components": [\#(items)]}]}"#
    }

    static func decide(_ applinks: String, _ url: String) throws -> (UniversalLinkDecision, ApplinksConfiguration) {
        let configuration = try #require(ApplinksParser.parse(Array(#"{"applinks": \#(applinks)}"#.utf8)))
        return (configuration.decide(try UniversalLinkURL(url), for: app), configuration)
    }

    static let table: [UniversalLinkCase] = [
        // Paths and the two wildcards.
        .init("path prefix with *", components(#"{"/": "/buy/*"}"#), "https://example.com/buy/shoes", .matched, (0, 0)),
        .init("* matches nothing too", components(#"{"/": "/buy/*"}"#), "https://example.com/buy/", .matched, (0, 0)),
        .init(
            "* is greedy across /", components(#"{"/": "/buy/*"}"#), "https://example.com/buy/a/b/c", .matched, (0, 0)),
        .init("path that does not match", components(#"{"/": "/buy/*"}"#), "https://example.com/sell/1", .noMatch),
        .init("? is exactly one character", components(#"{"/": "/a?c"}"#), "https://example.com/abc", .matched, (0, 0)),
        .init("? is not zero characters", components(#"{"/": "/a?c"}"#), "https://example.com/ac", .noMatch),
        .init("? is not two characters", components(#"{"/": "/a?c"}"#), "https://example.com/abbc", .noMatch),
        .init(
            "?* needs one character", components(#"{"/": "/sourdough/?*"}"#), "https://example.com/sourdough/", .noMatch
        ),
        .init(
            "?* takes one", components(#"{"/": "/sourdough/?*"}"#), "https://example.com/sourdough/x", .matched, (0, 0)),
        .init("a URL without a path is /", components(#"{"/": "/"}"#), "https://example.com", .matched, (0, 0)),
        .init(
            "no / key matches any path", components(##"{"#": "top"}"##), "https://example.com/any/where#top", .matched,
            (0, 0)),
        // Query as a string.
        .init(
            "query string", components(#"{"/": "/s", "?": "q=*"}"#), "https://example.com/s?q=tacos", .matched, (0, 0)),
        .init("query string mismatch", components(#"{"/": "/s", "?": "q=*"}"#), "https://example.com/s?x=1", .noMatch),
        .init("a missing query is empty", components(#"{"?": "?*"}"#), "https://example.com/s", .noMatch),
        .init("an empty query is empty", components(#"{"?": ""}"#), "https://example.com/s?", .matched, (0, 0)),
        // Query as a dictionary of items.
        .init(
            "query item of four characters", components(#"{"/": "/help/*", "?": {"articleNumber": "????"}}"#),
            "https://example.com/help/a?articleNumber=1234&x=y", .matched, (0, 0)),
        .init(
            "query item too short", components(#"{"/": "/help/*", "?": {"articleNumber": "????"}}"#),
            "https://example.com/help/a?articleNumber=123", .noMatch),
        .init(
            "every instance of a repeated item must match", components(#"{"?": {"cheese": "yes"}}"#),
            "https://example.com/taco?cheese=yes&cheese=no", .noMatch),
        .init(
            "repeated items that all match", components(#"{"?": {"cheese": "yes"}}"#),
            "https://example.com/taco?cheese=yes&cheese=yes", .matched, (0, 0)),
        .init(
            "a missing item matches as empty", components(#"{"?": {"ref": ""}}"#), "https://example.com/x?other=1",
            .matched, (0, 0)),
        .init(
            "a missing item fails ?*", components(#"{"?": {"ref": "?*"}}"#), "https://example.com/x?other=1", .noMatch),
        .init(
            "an item without a value matches as empty", components(#"{"?": {"ref": ""}}"#),
            "https://example.com/x?ref", .matched, (0, 0)),
        .init(
            "all items of the dictionary must match", components(#"{"?": {"a": "1", "b": "2"}}"#),
            "https://example.com/x?a=1&b=3", .noMatch),
        // Fragment.
        .init(
            "fragment excludes", components(##"{"#": "no_universal_links", "exclude": true}, {"/": "*"}"##),
            "https://example.com/a#no_universal_links", .excluded, (0, 0)),
        .init(
            "other fragments open", components(##"{"#": "no_universal_links", "exclude": true}, {"/": "*"}"##),
            "https://example.com/a#top", .matched, (0, 1)),
        .init(
            "a missing fragment is empty", components(##"{"#": "?*"}"##), "https://example.com/a", .noMatch),
        // Every key must match.
        .init(
            "path, query and fragment together", components(##"{"/": "/a", "?": "b=1", "#": "c"}"##),
            "https://example.com/a?b=1#c", .matched, (0, 0)),
        .init(
            "one key failing fails the dictionary", components(##"{"/": "/a", "?": "b=1", "#": "c"}"##),
            "https://example.com/a?b=1#d", .noMatch),
        // Exclusion order: the first match decides.
        .init(
            "exclusion listed first wins",
            components(#"{"/": "/help/website/*", "exclude": true}, {"/": "/help/*"}"#),
            "https://example.com/help/website/faq", .excluded, (0, 0)),
        .init(
            "exclusion listed after a match never runs",
            components(#"{"/": "/help/*"}, {"/": "/help/website/*", "exclude": true}"#),
            "https://example.com/help/website/faq", .matched, (0, 0)),
        .init(
            "a dictionary without keys matches everything", components(#"{"comment": "all"}"#),
            "https://example.com/anything", .matched, (0, 0)),
        // Case sensitivity.
        .init(
            "case-sensitive by default", components(#"{"/": "/Sourdough/*"}"#), "https://example.com/sourdough/1",
            .noMatch),
        .init(
            "caseSensitive false", components(#"{"/": "/Sourdough/*", "caseSensitive": false}"#),
            "https://example.com/SOURDOUGH/1", .matched, (0, 0)),
        .init(
            "caseSensitive false folds query item names",
            components(#"{"?": {"Ref": "A"}, "caseSensitive": false}"#), "https://example.com/x?ref=a", .matched, (0, 0)
        ),
        // Percent-encoding.
        .init(
            "percent-encoded by default", components(#"{"/": "/caf%C3%A9"}"#), "https://example.com/café", .matched,
            (0, 0)),
        .init(
            "an encoded URL against an encoded pattern", components(#"{"/": "/caf%C3%A9"}"#),
            "https://example.com/caf%C3%A9", .matched, (0, 0)),
        .init(
            "a Unicode pattern needs percentEncoded false", components(#"{"/": "/café"}"#), "https://example.com/café",
            .noMatch),
        .init(
            "percentEncoded false decodes the URL", components(#"{"/": "/café", "percentEncoded": false}"#),
            "https://example.com/caf%C3%A9", .matched, (0, 0)),
        .init(
            "Unicode path with wildcards", components(#"{"/": "/哈哈/?*", "percentEncoded": false}"#),
            "https://example.com/哈哈/1", .matched, (0, 0)),
        .init(
            "? is one Unicode character when decoded", components(#"{"/": "/?", "percentEncoded": false}"#),
            "https://example.com/é", .matched, (0, 0)),
        .init(
            "? is one encoded byte otherwise", components(#"{"/": "/?"}"#), "https://example.com/é", .noMatch),
        .init(
            "percentEncoded false decodes query values", components(#"{"?": {"q": "a b"}, "percentEncoded": false}"#),
            "https://example.com/s?q=a%20b", .matched, (0, 0)),
        // Legacy paths.
        .init(
            "legacy NOT excludes",
            #"{"details": [{"appID": "ABCDE12345.com.example.app", "paths": ["NOT /a/*", "/*"]}]}"#,
            "https://example.com/a/b", .excluded, (0, 0)),
        .init(
            "legacy paths after NOT",
            #"{"details": [{"appID": "ABCDE12345.com.example.app", "paths": ["NOT /a/*", "/*"]}]}"#,
            "https://example.com/b", .matched, (0, 1)),
        .init(
            "legacy paths see only the path",
            #"{"details": [{"appID": "ABCDE12345.com.example.app", "paths": ["/a"]}]}"#,
            "https://example.com/a?x=1#y", .matched, (0, 0)),
        .init(
            "legacy match-all", #"{"apps": [], "details": [{"appID": "ABCDE12345.com.example.app", "paths": ["*"]}]}"#,
            "https://example.com/anything", .matched, (0, 0)),
        // Both forms: components win.
        .init(
            "paths beside components are ignored",
            #"{"details": [{"appIDs": ["ABCDE12345.com.example.app"], "paths": ["/old/*"], "components": [{"/": "/new/*"}]}]}"#,
            "https://example.com/old/1", .noMatch),
        .init(
            "components beside paths decide",
            #"{"details": [{"appIDs": ["ABCDE12345.com.example.app"], "paths": ["/old/*"], "components": [{"/": "/new/*"}]}]}"#,
            "https://example.com/new/1", .matched, (0, 0)),
        .init(
            "legacy and current entries in one file",
            #"{"details": [{"appID": "ZZZZZ99999.com.example.other", "paths": ["/old/*"]}, {"appIDs": ["ABCDE12345.com.example.app"], "components": [{"/": "/new/*"}]}]}"#,
            "https://example.com/new/1", .matched, (1, 0)),
        // Defaults.
        .init(
            "entry defaults", components(#"{"/": "/abc"}"#, defaults: #""defaults": {"caseSensitive": false}, "#),
            "https://example.com/ABC", .matched, (0, 0)),
        .init(
            "top-level defaults",
            #"{"defaults": {"caseSensitive": false}, "details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [{"/": "/abc"}]}]}"#,
            "https://example.com/ABC", .matched, (0, 0)),
        .init(
            "entry defaults beat top-level defaults",
            #"{"defaults": {"caseSensitive": false}, "details": [{"appIDs": ["ABCDE12345.com.example.app"], "defaults": {"caseSensitive": true}, "components": [{"/": "/abc"}]}]}"#,
            "https://example.com/ABC", .noMatch),
        .init(
            "a dictionary's own key beats the defaults",
            components(#"{"/": "/abc", "caseSensitive": true}"#, defaults: #""defaults": {"caseSensitive": false}, "#),
            "https://example.com/ABC", .noMatch),
        .init(
            "percentEncoded in defaults",
            #"{"defaults": {"percentEncoded": false}, "details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [{"/": "/哈哈"}]}]}"#,
            "https://example.com/%E5%93%88%E5%93%88", .matched, (0, 0)),
        // Substitution variables.
        .init(
            "custom variable", Self.food("/$(food)/"), "https://example.com/pizza/", .matched, (0, 0)),
        .init("custom variable, another value", Self.food("/$(food)/"), "https://example.com/tacos/", .noMatch),
        .init(
            "variable values may hold wildcards",
            #"{"substitutionVariables": {"v": ["a*"]}, "details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [{"/": "/$(v)"}]}]}"#,
            "https://example.com/abc", .matched, (0, 0)),
        .init(
            "an undefined variable never matches", components(#"{"/": "/$(nope)"}, {"/": "/*"}"#),
            "https://example.com/x", .matched, (0, 1)),
        .init("$(alpha)", components(#"{"/": "/$(alpha)"}"#), "https://example.com/q", .matched, (0, 0)),
        .init("$(alpha) is one letter", components(#"{"/": "/$(alpha)"}"#), "https://example.com/qq", .noMatch),
        .init("$(upper)", components(#"{"/": "/$(upper)"}"#), "https://example.com/q", .noMatch),
        .init("$(lower)", components(#"{"/": "/$(lower)"}"#), "https://example.com/q", .matched, (0, 0)),
        .init("$(alnum)", components(#"{"/": "/$(alnum)$(alnum)"}"#), "https://example.com/a1", .matched, (0, 0)),
        .init("$(digit)", components(#"{"/": "/$(digit)"}"#), "https://example.com/a", .noMatch),
        .init("$(xdigit)", components(#"{"/": "/$(xdigit)$(xdigit)"}"#), "https://example.com/fF", .matched, (0, 0)),
        .init("$(xdigit) rejects g", components(#"{"/": "/$(xdigit)"}"#), "https://example.com/g", .noMatch),
        .init(
            "$(upper) ignores case when told", components(#"{"/": "/$(upper)", "caseSensitive": false}"#),
            "https://example.com/q", .matched, (0, 0)),
        .init(
            "$(lang)_$(region) with a custom variable", Self.food("/$(lang)_$(region)/$(food)/"),
            "https://example.com/en_US/sushi/", .matched, (0, 0)),
        .init(
            "$(region) is an ISO code", Self.food("/$(lang)_$(region)/$(food)/"), "https://example.com/en_U1/sushi/",
            .noMatch),
        .init(
            "$(lang) is an ISO code", Self.food("/$(lang)_$(region)/$(food)/"), "https://example.com/english_US/sushi/",
            .noMatch),
        .init(
            "a custom variable shadows a predefined one",
            #"{"substitutionVariables": {"digit": ["x"]}, "details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [{"/": "/$(digit)"}]}]}"#,
            "https://example.com/x", .matched, (0, 0)),
        // Entries, apps and the first match across entries.
        .init(
            "an app in no entry",
            #"{"details": [{"appIDs": ["ZZZZZ99999.com.example.other"], "components": [{"/": "*"}]}]}"#,
            "https://example.com/x", .appNotListed),
        .init(
            "the app's second entry",
            #"{"details": [{"appIDs": ["ZZZZZ99999.com.example.other"], "components": [{"/": "/a"}]}, {"appIDs": ["ABCDE12345.com.example.app"], "components": [{"/": "/b"}]}]}"#,
            "https://example.com/b", .matched, (1, 0)),
        .init(
            "an earlier entry of the app's excludes first",
            #"{"details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [{"/": "/a", "exclude": true}]}, {"appIDs": ["ABCDE12345.com.example.app"], "components": [{"/": "*"}]}]}"#,
            "https://example.com/a", .excluded, (0, 0)),
        .init(
            "an app ID prefix in another case",
            #"{"details": [{"appIDs": ["abcde12345.com.example.app"], "components": [{"/": "*"}]}]}"#,
            "https://example.com/a", .matched, (0, 0)),
        .init(
            "an entry without patterns", #"{"details": [{"appIDs": ["ABCDE12345.com.example.app"]}]}"#,
            "https://example.com/a", .noMatch),
    ]

    static func food(_ path: String) -> String {
        #"{"substitutionVariables": {"food": ["burrito", "pizza", "sushi", "samosa"]}, "details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [{"/": "\#(path)"}]}]}"#
    }

    @Test("the conformance table", arguments: table)
    func conformance(_ row: UniversalLinkCase) throws {
        let (decision, _) = try Self.decide(row.applinks, row.url)
        #expect(decision.reason == row.reason)
        #expect(decision.opens == (row.reason == .matched))
        let deciding = decision.decidingPattern.map { ($0.detailsIndex, $0.patternIndex) }
        #expect(deciding?.0 == row.decidedBy?.0 && deciding?.1 == row.decidedBy?.1)
    }

    // The examples of "What's New in Universal Links" (WWDC19 session 717 and WWDC20 session
    // 10098), as these tests restate them.

    @Test("order forms: every order page opens, the order list does not")
    func orderForms() throws {
        let applinks = Self.components(#"{"/": "/order/?*", "comment": "order forms"}"#)
        #expect(try Self.decide(applinks, "https://example.com/order/12345").0.opens)
        #expect(try Self.decide(applinks, "https://example.com/order/").0.reason == .noMatch)
        #expect(try Self.decide(applinks, "https://example.com/orders").0.reason == .noMatch)
        #expect(
            try Self.decide(applinks, "https://example.com/order/12345").0.decidingPattern?.comment == "order forms")
    }

    @Test("tacos with cheese: the query item must be present and not empty")
    func tacosWithCheese() throws {
        let applinks = Self.components(#"{"/": "/taco/*", "?": {"cheese": "?*"}}"#)
        #expect(try Self.decide(applinks, "https://example.com/taco/al-pastor?cheese=cotija").0.opens)
        #expect(try Self.decide(applinks, "https://example.com/taco/al-pastor?salsa=verde&cheese=queso").0.opens)
        #expect(try Self.decide(applinks, "https://example.com/taco/al-pastor").0.reason == .noMatch)
        #expect(try Self.decide(applinks, "https://example.com/taco/al-pastor?cheese=").0.reason == .noMatch)
        #expect(try Self.decide(applinks, "https://example.com/taco/al-pastor?cheese").0.reason == .noMatch)
    }

    @Test("coupon codes: every code opens except those that start with 1")
    func couponCodes() throws {
        let applinks = Self.components(
            #"{"/": "/coupon/1*", "exclude": true}, {"/": "/coupon/*"}"#)
        let excluded = try Self.decide(applinks, "https://example.com/coupon/1OFF").0
        #expect(excluded.reason == .excluded && excluded.decidingPattern?.patternIndex == 0)
        let opened = try Self.decide(applinks, "https://example.com/coupon/2OFF").0
        #expect(opened.opens && opened.decidingPattern?.patternIndex == 1)
        #expect(try Self.decide(applinks, "https://example.com/coupon/21").0.opens)
    }

    @Test("two-letter country codes: ?? and $(region)")
    func countryCodes() throws {
        let anyTwo = Self.components(#"{"/": "/??/products/*"}"#)
        #expect(try Self.decide(anyTwo, "https://example.com/ca/products/1").0.opens)
        #expect(try Self.decide(anyTwo, "https://example.com/can/products/1").0.reason == .noMatch)
        let regions = Self.components(#"{"/": "/$(region)/products/*"}"#)
        #expect(try Self.decide(regions, "https://example.com/CA/products/1").0.opens)
        #expect(try Self.decide(regions, "https://example.com/QQ/products/1").0.reason == .noMatch)
        #expect(try Self.decide(regions, "https://example.com/ca/products/1").0.reason == .noMatch)
    }

    @Test("an earlier entry for another app that matches first is reported")
    func claimedByAnotherApp() throws {
        let applinks =
            #"{"details": [{"appIDs": ["ZZZZZ99999.com.example.other"], "components": [{"/": "/shop/*"}]}, {"appIDs": ["ABCDE12345.com.example.app"], "components": [{"/": "*"}]}]}"#
        let decision = try Self.decide(applinks, "https://example.com/shop/1").0
        #expect(decision.opens)
        #expect(decision.claimedEarlierBy?.appIDs == [Self.other])
        #expect(decision.claimedEarlierBy?.pattern.detailsIndex == 0)
        #expect(try Self.decide(applinks, "https://example.com/home").0.claimedEarlierBy == nil)
    }

    @Test("the deciding pattern's text is the dictionary as JSON, or the legacy string")
    func patternText() throws {
        let (decision, _) = try Self.decide(
            Self.components(##"{"/": "/help/*", "?": {"n": "??"}, "#": "x", "caseSensitive": false, "comment": "c"}"##),
            "https://example.com/help/1?n=12#x")
        #expect(
            decision.decidingPattern?.text == ##"{"/": "/help/*", "?": {"n": "??"}, "#": "x", "caseSensitive": false}"##
        )
        let legacy = try Self.decide(
            #"{"details": [{"appID": "ABCDE12345.com.example.app", "paths": ["NOT /a"]}]}"#, "https://example.com/a")
        #expect(legacy.0.decidingPattern?.text == "NOT /a" && legacy.0.decidingPattern?.form == .paths)
    }
}
