import BenchmarkSupport
import Foundation
import SharedWebCredentials

// In-process costs of the association gate's parsing: AASA files, entitlement entries (with
// IDNA) and coverage lookups. Network figures (1,000 domains over loopback TLS) come from the
// ManyDomainsTests test, which needs the test HTTPS server.

let app = try ApplicationIdentifier("ABCDE12345.com.example.app")
let apps = (0..<200).map { "TEAM\(String(format: "%06d", $0)).com.example.app\($0)" } + [app.description]
let typical = Array(
    """
    {"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [{"/": "/buy/*"}]}]},
     "webcredentials": {"apps": [\(apps.map { "\"\($0)\"" }.joined(separator: ", "))]}}
    """.utf8)

var report = Report(columns: ["benchmark", "median", "p90", "throughput"])

func row(_ name: String, _ samples: Samples, perSample: Int, unit: String) -> [String] {
    let perSecond = Double(perSample) / (samples.median / 1e9)
    return [
        name, formatNanoseconds(samples.median), formatNanoseconds(samples.percentile(0.9)),
        "\(Int(perSecond.rounded())) \(unit)/s",
    ]
}

let parse = measure(count: 200) {
    precondition(AASAParser.check(typical, contentType: "application/json").approves(app))
}
report.add(row("AASA parse + approve (201 apps, \(typical.count) B)", parse, perSample: 1, unit: "files"))

let entries = (0..<1_000).map { "webcredentials:d\($0).example.com" } + ["webcredentials:*.bücher.example:8443"]
let entryParse = measure(count: 50) {
    precondition(try! Entitlements(strings: entries).entries.count == 1_001)
}
report.add(row("parse 1,001 entitlement entries", entryParse, perSample: 1_001, unit: "entries"))

let entitlements = try Entitlements(strings: entries)
let target = try DomainTarget("d999.example.com")
let coverage = measure(count: 200) {
    precondition(entitlements.webcredentialsEntry(covering: target) != nil)
}
report.add(row("covering entry among 1,001", coverage, perSample: 1, unit: "lookups"))

// Universal-link matching: a pathological pattern (40 `*a` pairs, then `b`) against a near-miss
// of 200 `a`s costs about C(200, 40) steps by backtracking; the automaton takes at most
// states × characters.
let pathological = try URLPattern(
    String(repeating: "*a", count: 40) + "b", variables: SubstitutionVariables(), caseSensitive: true)
let nearMiss = String(repeating: "a", count: 200)
let glob = measure(count: 50) { precondition(!pathological.matches(nearMiss)) }
report.add(row("match (*a)x40 b against 200 chars (near miss)", glob, perSample: 1, unit: "matches"))

let longMiss = String(repeating: "a", count: 2_000)
let globLong = measure(count: 20) { precondition(!pathological.matches(longMiss)) }
report.add(row("match (*a)x40 b against 2,000 chars (near miss)", globLong, perSample: 1, unit: "matches"))

let linkFile = Array(
    #"""
    {"applinks": {"substitutionVariables": {"food": ["burrito", "pizza", "sushi", "samosa"]},
     "details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [
       {"#": "no_universal_links", "exclude": true}, {"/": "/help/website/*", "exclude": true},
       {"/": "/$(lang)_$(region)/$(food)/*", "?": {"cheese": "?*"}}]}]}}
    """#.utf8)
let links = ApplinksParser.parse(linkFile)!
let linkURL = try UniversalLinkURL("https://example.com/en_US/pizza/1?cheese=yes")
let decide = measure(count: 200) { precondition(links.decide(linkURL, for: app).opens) }
report.add(row("aasa match decision ($(lang)_$(region)/$(food), 3 patterns)", decide, perSample: 1, unit: "URLs"))

print(report.markdown())
