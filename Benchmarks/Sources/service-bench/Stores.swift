import BenchmarkSupport
import Foundation
import Synchronization

/// Issue 25's figures: one request through `swcred serve` on PostgreSQL (Unix socket) against the
/// same service on SQLite and against the floor, taken in turn by one client; then requests/s of
/// 16 keep-alive clients against one PostgreSQL instance, and split 8 and 8 over two instances of
/// one database at once, with SQLite and the floor under the same load. Both vaults hold the same
/// rows (`swcred store copy`), so one token serves all three.
func measureStores(
    sqlite: Target, postgresA: Target, postgresB: Target, floor: Target, tokenFile: String, domain: String
)
    throws
{
    let token = try String(contentsOfFile: tokenFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    let request = postRequest(path: "/v1/credentials/request", token: token, json: #"{"domain":"\#(domain)"}"#)
    let latency = try alternatingLatency([floor, sqlite, postgresA], request: request, blocks: 10, perBlock: 1_000)
    let (floorLatency, sqliteLatency, postgresLatency) = (latency[0], latency[1], latency[2])

    var report = Report(columns: ["one client, in turn", "p50", "p99", "ratio of p50s"])
    report.add([
        "floor", formatNanoseconds(floorLatency.median), formatNanoseconds(floorLatency.percentile(0.99)), "1.00x",
    ])
    report.add([
        "swcred serve on SQLite", formatNanoseconds(sqliteLatency.median),
        formatNanoseconds(sqliteLatency.percentile(0.99)),
        String(format: "%.2fx the floor", sqliteLatency.median / floorLatency.median),
    ])
    report.add([
        "swcred serve on PostgreSQL (Unix socket)", formatNanoseconds(postgresLatency.median),
        formatNanoseconds(postgresLatency.percentile(0.99)),
        String(format: "%.2fx SQLite (target 3x)", postgresLatency.median / sqliteLatency.median),
    ])
    print(report.markdown())

    let clients = 16
    let duration = Duration.seconds(4)
    let floorLoad = try load(floor, request: request, clients: clients, duration: duration)
    let sqliteLoad = try load(sqlite, request: request, clients: clients, duration: duration)
    let oneInstance = try load(postgresA, request: request, clients: clients, duration: duration)
    let twoInstances = try concurrently([
        { try load(postgresA, request: request, clients: clients / 2, duration: duration) },
        { try load(postgresB, request: request, clients: clients / 2, duration: duration) },
    ])
    let twoRate = twoInstances.map(\.requestsPerSecond).reduce(0, +)
    let twoErrors = twoInstances.map(\.errors).reduce(0, +)
    var throughput = Report(columns: ["\(clients) keep-alive clients, 4 s each", "requests/s", "errors", "ratio"])
    throughput.add(["floor", String(format: "%.0f", floorLoad.requestsPerSecond), "\(floorLoad.errors)", "-"])
    throughput.add([
        "SQLite, one instance", String(format: "%.0f", sqliteLoad.requestsPerSecond), "\(sqliteLoad.errors)",
        String(format: "%.2fx the floor", sqliteLoad.requestsPerSecond / floorLoad.requestsPerSecond),
    ])
    throughput.add([
        "PostgreSQL, one instance", String(format: "%.0f", oneInstance.requestsPerSecond), "\(oneInstance.errors)",
        String(format: "%.2fx SQLite", oneInstance.requestsPerSecond / sqliteLoad.requestsPerSecond),
    ])
    throughput.add([
        "PostgreSQL, two instances of one database (8 + 8 clients)", String(format: "%.0f", twoRate), "\(twoErrors)",
        String(format: "%.2fx one instance", twoRate / oneInstance.requestsPerSecond),
    ])
    print()
    print(throughput.markdown())
    print(
        "(Every process, the PostgreSQL server's included, shares this machine's \(ProcessInfo.processInfo.activeProcessorCount) cores.)"
    )
}

/// Runs each body on a thread of its own at once and returns their results in order.
private func concurrently(_ bodies: [@Sendable () throws -> LoadResult]) throws -> [LoadResult] {
    let results = Mutex<[Int: Result<LoadResult, any Error>]>([:])
    let done = DispatchGroup()
    for (index, body) in bodies.enumerated() {
        done.enter()
        Thread {
            let result = Result { try body() }
            results.withLock { $0[index] = result }
            done.leave()
        }.start()
    }
    done.wait()
    return try (0..<bodies.count).map { index in try results.withLock { $0[index]! }.get() }
}
