// The passphrase strength estimate (DESIGN.md, "Passphrase strength"): zxcvbn-c on a 100-character passphrase must cost
// under 5 ms, since `init` and `passwd` run it once before the KDF. Five kinds of 100 characters,
// because zxcvbn-c's cost depends on how many dictionary, sequence, repeat and l33t matches it
// finds: EFF words, printable ASCII from the CSPRNG, one repeated letter, and the two slowest
// crafted inputs found (l33t pairs repeated: `$5`, `e3`), which would take 20 to 45 ms if all 100
// characters were judged (PassphraseStrength judges the first 40). Run through Scripts/bench.
import BenchmarkSupport
import SharedWebCredentials

/// Exactly `length` characters: the passphrase's first characters, repeated as needed.
func truncated(_ text: String, to length: Int) -> String {
    String(String(repeating: text, count: length / max(text.count, 1) + 1).prefix(length))
}

let words = truncated(
    try PassphraseGenerator(wordCount: 20, separator: "-").next().exposedString(), to: 100)
let printable = Array(
    " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~")
var random = SecureRandom()
let noise = String((0..<100).map { _ in printable[random.uniform(printable.count)] })
let repeated = String(repeating: "a", count: 100)
let dollarFive = String(repeating: "$5", count: 50)
let eThree = String(repeating: "e3", count: 50)

var report = Report(columns: ["benchmark", "median", "slowest", "budget", "verdict"])
for (name, text) in [
    ("EFF words", words), ("random printable ASCII", noise), ("one letter repeated", repeated),
    ("`$5` repeated", dollarFive), ("`e3` repeated", eThree),
] {
    precondition(text.utf8.count == 100, "\(name) is not 100 characters")
    let passphrase = SecureBytes(utf8: text)
    let context = ["swcred", "vault.sqlite", "vault", "owner"]
    var bits = 0.0
    _ = PassphraseStrength.estimatedBits(of: passphrase, context: context)
    var cpu = Samples()
    for _ in 0..<200 {
        let start = threadCPUTime()
        bits = PassphraseStrength.estimatedBits(of: passphrase, context: context)
        cpu.append(threadCPUTime() - start)
    }
    let median = cpu.median / 1e6
    let slowest = cpu.percentile(1) / 1e6
    report.add([
        "estimate, 100 characters of \(name) (\(String(format: "%.1f", bits)) bits), CPU time of 200 runs",
        String(format: "%.2f ms", median), String(format: "%.2f ms", slowest), "< 5 ms median",
        median < 5 ? "ok" : "MISSED",
    ])
}
print(report.markdown())
