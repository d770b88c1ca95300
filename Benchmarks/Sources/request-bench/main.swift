// `request` without a domain (DESIGN.md, "Performance budgets"; issue 13): the gated facade,
// in-process, for an app with three exact entries and one wildcard entry, against vaults of
// 1,000, 100,000 and 1,000,000 credentials of which 1,000 belong to the app's domains; and the
// cost the audit entry adds to one request. Verdicts are stored (offline), the vault uses a raw
// key: neither the network nor the KDF is what is measured.
import BenchmarkSupport
import Foundation
import SharedWebCredentials

// Usage: request-bench [SIZE ...]   (default: 1000 100000 1000000)
let requestedSizes = CommandLine.arguments.dropFirst().compactMap { Int($0) }.filter { $0 >= 1_000 }
let sizes = requestedSizes.isEmpty ? [1_000, 100_000, 1_000_000] : requestedSizes
let requests = 300
let appends = 5_000
let app = try ApplicationIdentifier("ABCDE12345.com.example.app")
let entries = [
    "webcredentials:shop.example", "webcredentials:mail.example", "webcredentials:pay.example:8443",
    "webcredentials:*.corp.example",
]
let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent(
    "request-bench-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }

/// The app's 1,000 credentials: 250 on each exact entry's server, 250 under the wildcard (on
/// corp.example itself and 49 subdomains); then `size - 1,000` on other servers.
func fill(_ vault: Vault, size: Int) throws {
    try vault.credentials.batch { batch in
        let exact: [(String, Int?)] = [("shop.example", nil), ("mail.example", nil), ("pay.example", 8443)]
        for (server, port) in exact {
            for index in 0..<250 {
                try batch.upsert(
                    server: server, port: port, account: "user\(index)", password: SecureBytes(utf8: "pw-\(index)"))
            }
        }
        for index in 0..<250 {
            let server = index % 50 == 0 ? "corp.example" : "s\(index % 50).corp.example"
            try batch.upsert(server: server, account: "user\(index)", password: SecureBytes(utf8: "pw-\(index)"))
        }
        for index in 0..<(size - 1_000) {
            try batch.upsert(
                server: "host\(index).example", account: "user\(index)@example.com",
                password: SecureBytes(utf8: "pw-\(index)-Xq7#vL9p"))
        }
    }
}

func approveEverything(_ vault: Vault) throws {
    try vault.apps.register(app, entitlements: Entitlements(strings: entries), at: Date())
    let now = Date()
    for entry in entries {
        try vault.associations.save(
            AssociationRecord(
                service: .webcredentials, app: app,
                domain: AssociationStore.domainKey(for: try AssociatedDomainEntry(entry)), verdict: .approved,
                checkedAt: now, nextCheck: now + 30 * 86_400, lastError: nil, retryCount: 0, documentDigest: nil,
                approvedAt: now))
    }
}

/// The median of `count` runs of an async body, in nanoseconds.
func measureAsync(count: Int, _ body: () async throws -> Void) async rethrows -> Samples {
    var samples = Samples()
    for _ in 0..<count {
        let start = ContinuousClock.now
        try await body()
        samples.append(ContinuousClock.now - start)
    }
    return samples
}

var medians: [Int: Double] = [:]
var report = Report(columns: ["measurement", "result", "budget", "verdict"])
for size in sizes {
    let path = directory.appendingPathComponent("vault-\(size).sqlite").path
    let key = SecureBytes.random(count: KeyFile.length)
    let created = try Vault.create(at: path, protection: .rawKey(key))
    try approveEverything(created)
    let fillTime = try time { try fill(created, size: size) }
    print("filled \(size) credentials in \(String(format: "%.2f", seconds(fillTime))) s")
    let vault = try Vault.open(at: path, secret: .key(key))
    let facade = SharedWebCredentials(app: app, vault: vault, verifier: nil)
    for _ in 0..<20 { _ = try await facade.request() }  // warm up
    let samples = try await measureAsync(count: requests) {
        let released = try await facade.request()
        precondition(released.count == 1_000, "released \(released.count) credentials")
    }
    medians[size] = samples.median
    let budget = size == 1_000_000 ? "< 2 ms" : "-"
    let verdict = size == 1_000_000 ? (samples.median < 2_000_000 ? "ok" : "OVER") : "-"
    report.add([
        "request without a domain, median, \(size) credentials", formatNanoseconds(samples.median), budget, verdict,
    ])
    report.add([
        "request without a domain, p99, \(size) credentials", formatNanoseconds(samples.percentile(0.99)), "-", "-",
    ])
    if size == sizes.last {
        let one = try DomainTarget("shop.example")
        let single = try await measureAsync(count: appends) {
            _ = try await facade.request(domain: one, account: "user7")
        }
        let event = AuditEvent(
            actor: .app(app), operation: .request, domain: "shop.example", account: "user7",
            released: [AuditCredential(domain: "shop.example", account: "user7")])
        let append = try measure(count: appends) { try vault.audit.append(event) }
        report.add([
            "request for one domain and account (with its audit entry), median", formatNanoseconds(single.median), "-",
            "-",
        ])
        report.add(["its audit entry alone (append, no fsync), median", formatNanoseconds(append.median), "-", "-"])
        report.add(["its audit entry alone, p99", formatNanoseconds(append.percentile(0.99)), "-", "-"])
    }
}
if let small = medians[1_000], let large = medians[1_000_000] {
    let ratio = large / small
    report.add(["median 1,000,000 / 1,000", String(format: "%.2fx", ratio), "< 2x", ratio < 2 ? "ok" : "OVER"])
}
print(report.markdown())
