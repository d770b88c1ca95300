import BenchmarkSupport
import Foundation
import SharedWebCredentials

/// Times each library call behind one `POST /v1/credentials/request`, in-process on the
/// benchmark's vault: the token check, the app's registration, its stored verdict, the
/// credential lookup, and the whole gated request through the facade.
func timeSteps(vaultPath: String, tokenFile: String, app: ApplicationIdentifier, domain: DomainTarget) async throws {
    guard let passphrase = ProcessInfo.processInfo.environment["SWCRED_PASSPHRASE"] else {
        throw CommandFailure(description: "set SWCRED_PASSPHRASE")
    }
    let vault = try Vault.open(at: vaultPath, secret: .passphrase(SecureBytes(utf8: passphrase)))
    let token = SecureBytes(
        utf8: try String(contentsOfFile: tokenFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines))
    let registered = try vault.apps.require(app)
    guard let entry = registered.entitlements.webcredentialsEntry(covering: domain) else {
        throw CommandFailure(description: "\(app) has no webcredentials entry for \(domain)")
    }
    let facade = SharedWebCredentials(app: app, vault: vault, verifier: nil)
    var report = Report(columns: ["one request's library call, in-process (2,000 runs)", "median", "p99"])
    func add(_ name: String, _ samples: Samples) {
        report.add([name, formatNanoseconds(samples.median), formatNanoseconds(samples.percentile(0.99))])
    }
    add(
        "the token: `appTokens.authenticate`", try measure(count: 2_000) { _ = try vault.appTokens.authenticate(token) }
    )
    add("the app's registration: `apps.require`", try measure(count: 2_000) { _ = try vault.apps.require(app) })
    add(
        "its stored verdict: `associations.record`",
        try measure(count: 2_000) { _ = try vault.associations.record(app: app, entry: entry) })
    add(
        "the credential: `credentials.find`",
        try measure(count: 2_000) { _ = try vault.credentials.find(server: domain.host, port: domain.port) })
    var whole = Samples()
    for _ in 0..<2_000 {
        let start = ContinuousClock.now
        _ = try await facade.request(domain: domain)
        whole.append(ContinuousClock.now - start)
    }
    add("the whole gated request: `SharedWebCredentials.request`", whole)
    print(report.markdown())
    print()
    try await timeGroupCommits(vaultPath: vaultPath, passphrase: passphrase, app: app, domain: domain)
}

/// The audit entries per group commit when 1, 8 and 32 tasks request side by side in-process
/// (each on a vault opened anew, so each count's statistics are its own), with the requests/s.
func timeGroupCommits(
    vaultPath: String, passphrase: String, app: ApplicationIdentifier, domain: DomainTarget
)
    async throws
{
    var report = Report(columns: [
        "tasks requesting side by side (in-process)", "requests/s", "entries per commit, mean", "largest group",
    ])
    for tasks in [1, 8, 32] {
        let vault = try Vault.open(at: vaultPath, secret: .passphrase(SecureBytes(utf8: passphrase)))
        let facade = SharedWebCredentials(app: app, vault: vault, verifier: nil)
        let perTask = 4_000 / tasks
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<tasks {
                group.addTask { for _ in 0..<perTask { _ = try await facade.request(domain: domain) } }
            }
            try await group.waitForAll()
        }
        let elapsed = seconds(ContinuousClock.now - start)
        let statistics = vault.audit.commitStatistics
        report.add([
            "\(tasks)", String(format: "%.0f", Double(perTask * tasks) / elapsed),
            String(format: "%.2f", statistics.meanGroup), "\(statistics.largestGroup)",
        ])
    }
    print(report.markdown())
}
