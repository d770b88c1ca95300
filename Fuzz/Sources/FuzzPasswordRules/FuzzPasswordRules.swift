import Foundation
import SharedWebCredentialsCore

/// libFuzzer entry point: any bytes, decoded leniently as UTF-8, as a Password Rules string.
/// Beyond not crashing, the canonical form the parser prints must parse back to itself, and
/// counting the passwords the rules accept (the step that once took minutes on 12 required
/// classes) must finish within ``maximumSeconds`` even in this instrumented debug build.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPasswordRules(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    let text = String(decoding: bytes, as: UTF8.self)
    let parsed = PasswordRulesParser.parse(text).rules
    let canonical = parsed.description
    let reparsed = PasswordRulesParser.parse(canonical).rules.description
    precondition(reparsed == canonical, "canonical rules do not round-trip")
    checkCountingTime(parsed)
    return 0
}

/// The most CPU time counting may take here: release builds take about 10 ms at worst.
let maximumSeconds = 2.0

/// Counts the accepted share of passwords as rule-driven generation would, and traps when it
/// takes longer than ``maximumSeconds``.
func checkCountingTime(_ rules: PasswordRules) {
    guard rules.required.count <= 12, !rules.allowed.characters.isEmpty else { return }
    let length = max(1, min(rules.maxLength ?? 256, max(rules.minLength ?? 0, 20), 256))
    let start = threadCPUNanoseconds()
    _ = AcceptanceProbability.compute(
        alphabet: rules.allowed.characters, segments: [length], required: rules.required.map(\.characters),
        maxRepeating: rules.effectiveMaxRepeating, maxSequential: rules.effectiveMaxSequential)
    let seconds = Double(threadCPUNanoseconds() - start) / 1e9
    precondition(seconds < maximumSeconds, "counting accepted passwords took \(seconds) s")
}

/// This thread's CPU time in nanoseconds.
func threadCPUNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}
