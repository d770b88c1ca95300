import SharedWebCredentialsCore

/// libFuzzer entry point: any bytes, as the body of an apple-app-site-association file. The
/// universal-link matcher runs too: every pattern of the file against URLs made from the input,
/// with a time check that fails the run if a match ever costs more than linear time in
/// (pattern states × URL length).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAASAParser(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    let report = AASAParser.check(
        bytes, contentType: "application/json", path: "/.well-known/apple-app-site-association")
    if let document = report.document { _ = document.webcredentialsApps.count }
    guard let configuration = ApplinksParser.parse(bytes) else { return 0 }
    let app = try! ApplicationIdentifier("ABCDE12345.com.example.app")
    let tail = String(decoding: bytes.suffix(512), as: UTF8.self)
    for text in ["https://example.com/", "https://example.com/" + tail, "https://example.com/a?" + tail + "#" + tail] {
        guard let url = try? UniversalLinkURL(text) else { continue }
        _ = configuration.decide(url, for: app)
        checkLinearTime(configuration, subject: url.path)
    }
    return 0
}

/// Times every path pattern of the file against `subject` and traps when one takes longer than
/// a generous linear budget: 2 µs per (state × character), plus 20 ms of slack. A run over budget
/// is timed twice more and the fastest of the three counts, so that the process being preempted
/// on a busy machine is not taken for a slow match.
private func checkLinearTime(_ configuration: ApplinksConfiguration, subject: String) {
    let clock = ContinuousClock()
    for entry in configuration.details {
        for rule in entry.rules {
            guard let path = rule.path,
                let pattern = try? URLPattern(path, variables: configuration.variables, caseSensitive: false)
            else { continue }
            let steps = Int64(pattern.stateCount) * Int64(subject.count + 1)
            let budget = Duration.microseconds(2 * steps) + .milliseconds(20)
            var fastest = Duration.seconds(3_600)
            for _ in 0..<3 where fastest >= budget {
                let start = clock.now
                _ = pattern.matches(subject)
                fastest = min(fastest, clock.now - start)
            }
            precondition(
                fastest < budget,
                "matching \(pattern.stateCount) states against \(subject.count) characters took \(fastest)")
        }
    }
}
