// Vault benchmarks (DESIGN.md, "Performance budgets"): in-process lookup latency for one server
// in vaults of 1,000, 100,000 and 1,000,000 credentials, and inserting 100,000 in one transaction.
// The vault uses a raw key: the KDF is not what is measured.
import BenchmarkSupport
import Foundation
import SharedWebCredentials

// Usage: vault-bench [SIZE ...]   (default: 1000 100000 1000000)
let requestedSizes = CommandLine.arguments.dropFirst().compactMap { Int($0) }.filter { $0 > 0 }
let sizes = requestedSizes.isEmpty ? [1_000, 100_000, 1_000_000] : requestedSizes
let lookups = 20_000
let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("vault-bench-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }

/// Fills a new vault with `count` credentials (one per server) in one transaction; returns the time taken.
func fill(_ vault: Vault, count: Int) throws -> Duration {
    try time {
        try vault.credentials.batch { batch in
            for index in 0..<count {
                try batch.upsert(
                    server: "host\(index).example", account: "user\(index)@example.com",
                    password: SecureBytes(utf8: "pw-\(index)-Xq7#vL9p"))
            }
        }
    }
}

var medians: [Int: Double] = [:]
var report = Report(columns: ["measurement", "result", "budget", "verdict"])
for size in sizes {
    let path = directory.appendingPathComponent("vault-\(size).sqlite").path
    let key = SecureBytes.random(count: KeyFile.length)
    // Fill, close (which checkpoints the WAL), then unlock again: lookups run on a vault at rest,
    // as they do in a later process.
    let fillTime = try fill(try Vault.create(at: path, protection: .rawKey(key)), count: size)
    let vault = try Vault.open(at: path, secret: .key(key))
    print("filled \(size) credentials in \(String(format: "%.2f", seconds(fillTime))) s")
    if size == 100_000 {
        let elapsed = seconds(fillTime)
        report.add([
            "insert 100,000 in one transaction", String(format: "%.2f s", elapsed), "< 3 s",
            elapsed < 3 ? "ok" : "OVER",
        ])
    }
    var generator = SystemRandomNumberGenerator()
    let targets = (0..<lookups).map { _ in Int.random(in: 0..<size, using: &generator) }
    for index in targets.prefix(1_000) { _ = try vault.credentials.find(server: "host\(index).example") }  // warm up
    var position = 0
    let samples = try measure(count: lookups) {
        let found = try vault.credentials.find(server: "host\(targets[position]).example")
        precondition(found.count == 1, "lookup found \(found.count) credentials")
        position += 1
    }
    medians[size] = samples.median
    let medianBudget = size == 100_000 ? "< 25 µs" : "-"
    let verdict = size == 100_000 ? (samples.median < 25_000 ? "ok" : "OVER") : "-"
    report.add(["lookup median, \(size) credentials", formatNanoseconds(samples.median), medianBudget, verdict])
    report.add(["lookup p99, \(size) credentials", formatNanoseconds(samples.percentile(0.99)), "-", "-"])
}
if let small = medians[1_000], let large = medians[1_000_000] {
    let ratio = large / small
    report.add(["median 1,000,000 / 1,000", String(format: "%.2fx", ratio), "< 2x", ratio < 2 ? "ok" : "OVER"])
}
print(report.markdown())
