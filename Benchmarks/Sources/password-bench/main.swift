// Password generation benchmarks (DESIGN.md, "Performance budgets"):
// - in-process `strong` generation: at least 3 million passwords per second on one core;
// - `swcred generate --count 1000000 > /dev/null` at least 10x faster than
//   `pwgen -s 20 1000000 > /dev/null`, both run here side by side.
// - any Password Rules string of up to 4 KiB gives a password or a refusal in under 50 ms
//   (PathologicalRules.swift).
// Run through Scripts/bench (release build of swcred first), or pass the swcred binary's path.
import BenchmarkSupport
import Foundation
import SharedWebCredentials

/// Generates `count` strong passwords into a reused buffer; returns the bytes made (kept live).
func generateStrong(_ count: Int, with generator: PasswordGenerator) -> Int {
    var buffer: [UInt8] = []
    buffer.reserveCapacity(32)
    var total = 0
    for _ in 0..<count {
        buffer.removeAll(keepingCapacity: true)
        _ = generator.append(to: &buffer)
        total &+= buffer.count
    }
    return total
}

/// The release swcred binary: the first argument, or the main package's release build.
func swcredPath() -> String {
    if CommandLine.arguments.count > 1 { return CommandLine.arguments[1] }
    let benchmarks = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    for candidate in [".build/release/swcred", "../.build/release/swcred"] {
        let path = benchmarks.appendingPathComponent(candidate).standardized.path
        if FileManager.default.isExecutableFile(atPath: path) { return path }
    }
    return benchmarks.appendingPathComponent("../.build/release/swcred").standardized.path
}

var report = Report(columns: ["benchmark", "result", "budget", "verdict"])

let generator = PasswordGenerator(style: .strong)
_ = generateStrong(100_000, with: generator)
let perRun = 2_000_000
var cpuSeconds: [Double] = []
let samples = measure(count: 5) {
    let start = threadCPUTime()
    _ = generateStrong(perRun, with: generator)
    cpuSeconds.append(seconds(threadCPUTime() - start))
}
let wallRate = Double(perRun) / (samples.median / 1e9)
let cpuRate = Double(perRun) / cpuSeconds.sorted()[cpuSeconds.count / 2]
report.add(["strong in-process, wall clock (median of 5 x 2M)", String(format: "%.2f M/s", wallRate / 1e6), "", ""])
report.add([
    "strong in-process, CPU time of one core (median)", String(format: "%.2f M/s", cpuRate / 1e6), ">= 3 M/s",
    cpuRate >= 3e6 ? "ok" : "MISSED",
])

benchmarkPathologicalRules(into: &report)

let swcred = swcredPath()
let processes = try timeInterleaved(
    [
        TimedCommand("swcred generate", executable: swcred, arguments: ["generate", "--count", "1000000"]),
        TimedCommand("pwgen", executable: try executablePath(named: "pwgen"), arguments: ["-s", "20", "1000000"]),
    ], rounds: 3)
let swcredSeconds = processes[0].median / 1e9
let pwgenSeconds = processes[1].median / 1e9
let ratio = pwgenSeconds / swcredSeconds
report.add(["swcred generate --count 1000000", String(format: "%.3f s", swcredSeconds), "", ""])
report.add(["pwgen -s 20 1000000", String(format: "%.3f s", pwgenSeconds), "", ""])
report.add([
    "swcred vs pwgen (median of 3, interleaved)", String(format: "%.1fx faster", ratio), ">= 10x",
    ratio >= 10 ? "ok" : "MISSED",
])
print(report.markdown())
print("swcred: \(swcred)")
