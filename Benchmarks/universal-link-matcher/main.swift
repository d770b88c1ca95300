// The universal-link rows of association-bench, built with the Core sources alone (see Benchmarks/README.md).
let clock = ContinuousClock()
func median(_ count: Int, _ body: () -> Void) -> Duration {
    var samples: [Duration] = []
    for _ in 0..<count {
        let start = clock.now
        body()
        samples.append(clock.now - start)
    }
    return samples.sorted()[count / 2]
}
let app = try! ApplicationIdentifier("ABCDE12345.com.example.app")
let pathological = try! URLPattern(
    String(repeating: "*a", count: 40) + "b", variables: SubstitutionVariables(), caseSensitive: true)
for length in [200, 2_000, 20_000] {
    let nearMiss = String(repeating: "a", count: length)
    let time = median(21) { precondition(!pathological.matches(nearMiss)) }
    print("(*a)x40 b vs \(length) chars: \(time) (\(pathological.stateCount) states)")
}
let file = Array(
    #"""
    {"applinks": {"substitutionVariables": {"food": ["burrito", "pizza", "sushi", "samosa"]},
     "details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [
       {"#": "no_universal_links", "exclude": true}, {"/": "/help/website/*", "exclude": true},
       {"/": "/$(lang)_$(region)/$(food)/*", "?": {"cheese": "?*"}}]}]}}
    """#.utf8)
let links = ApplinksParser.parse(file)!
let url = try! UniversalLinkURL("https://example.com/en_US/pizza/1?cheese=yes")
print("decision with $(lang)_$(region)/$(food): \(median(101) { precondition(links.decide(url, for: app).opens) })")
