import BenchmarkSupport
import Foundation
import SharedWebCredentials

/// Rules strings a website could send to make generation slow (issue 11, finding 5). Budget: any
/// rules string of up to 4 KiB gives a password, or a refusal, in under 50 ms.
let pathologicalRules: [(name: String, rules: String)] = [
    (
        "12 one-character required classes, max-consecutive 2, 20 characters (the issue's 666 s case)",
        (0..<12).map { "required: [\(Array("!#$%&*+/=?@^")[$0])]; " }.joined()
            + "allowed: upper, lower, digit; max-consecutive: 2; minlength: 20; maxlength: 20"
    ),
    (
        "12 one-letter required classes, max-consecutive 2, 256 characters",
        (0..<12).map { "required: [\(Array("acegikmoqsuw")[$0])]; " }.joined()
            + "allowed: ascii-printable; max-consecutive: 2; minlength: 256; maxlength: 256"
    ),
    (
        "12 two-letter required classes, max-sequential 3, max-repeating 3, 256 characters",
        (0..<12).map { "required: [\(Array("abcdefghijkl")[$0])\(Array("ABCDEFGHIJKL")[$0])]; " }.joined()
            + "max-sequential: 3; max-repeating: 3; minlength: 256"
    ),
    (
        "4 KiB: 12 required classes and 240 allowed properties",
        (0..<12).map { "required: [\(Array("0123456789!#")[$0])]; " }.joined() + "max-consecutive: 2; minlength: 64; "
            + String(repeating: "allowed: [abc]; ", count: 240)
    ),
]

/// One report row per pathological rules string: the slowest of 5 runs of parse, build the
/// generator (or be refused) and make one password, in CPU time of one core.
func benchmarkPathologicalRules(into report: inout Report) {
    for (name, text) in pathologicalRules {
        let bytes = text.utf8.count
        var worst = 0.0
        var outcome = ""
        for _ in 0..<5 {
            let start = threadCPUTime()
            do {
                _ = try PasswordGenerator(rules: PasswordRulesParser.parse(text).rules).next()
                outcome = "password"
            } catch {
                outcome = "refused"
            }
            worst = max(worst, seconds(threadCPUTime() - start))
        }
        report.add([
            "rules: \(name) (\(bytes) bytes), \(outcome), slowest of 5", String(format: "%.1f ms", worst * 1e3),
            "< 50 ms", worst < 0.05 ? "ok" : "MISSED",
        ])
    }
}
