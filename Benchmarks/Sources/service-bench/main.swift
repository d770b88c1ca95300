// Service benchmarks (Benchmarks/README.md, "The vault service"): one credential request through
// `swcred serve` on its Unix socket, against its floor (a bare Hummingbird route that returns a
// constant, over the same kind of socket, with the same client) and against the CLI's
// per-process path; a curve of 1 to 128 concurrent keep-alive clients against the floor; 1,000
// idle connections; resident memory with 100,000 credentials.
// Run through Scripts/bench service, which sets up the vault, the site and both servers.
//
//   service-bench fill VAULT COUNT      adds COUNT filler credentials (passphrase: SWCRED_PASSPHRASE)
//   service-bench steps VAULT TOKEN_FILE APP DOMAIN
//                                       times, in-process, each library call the service makes for
//                                       one request (where the time beyond the floor goes)
//   service-bench measure SERVICE_SOCKET SERVICE_PID FLOOR_SOCKET FLOOR_PID TOKEN_FILE SWCRED APP DOMAIN
//   service-bench passkeys SERVICE_SOCKET TOKEN_FILE VAULT APP DOMAIN CREDENTIAL_ID
//                                       a passkey assertion against a password request, through the
//                                       service and in-process, and the signature alone
//   service-bench stores SQLITE_SOCKET SQLITE_PID PG_A_SOCKET PG_A_PID PG_B_SOCKET PG_B_PID FLOOR_SOCKET FLOOR_PID
//                        TOKEN_FILE DOMAIN
//                                       a request on PostgreSQL against SQLite and the floor; one
//                                       PostgreSQL instance against two on one database
//   service-bench compare TOKEN_FILE DOMAIN ROUNDS CLIENTS NAME=SOCKET:PID [NAME=SOCKET:PID ...]
//                                       an A/B run: one request against each server in turn (the
//                                       first, usually the floor, is the ratios' base), with the
//                                       CPU time and context switches per request of each process,
//                                       then each under each count of clients in CLIENTS (1,8,32)
import BenchmarkSupport
import Foundation
import SharedWebCredentials

let arguments = Array(CommandLine.arguments.dropFirst())
switch (arguments.first, arguments.count) {
case ("fill", 3):
    try fill(vaultPath: arguments[1], count: Int(arguments[2])!)
case ("steps", 5):
    try await timeSteps(
        vaultPath: arguments[1], tokenFile: arguments[2], app: try ApplicationIdentifier(arguments[3]),
        domain: try DomainTarget(arguments[4]))
case ("measure", 9):
    try measureService(
        service: Target(name: "swcred serve", socketPath: arguments[1], pid: Int32(arguments[2])!),
        floor: Target(name: "floor", socketPath: arguments[3], pid: Int32(arguments[4])!),
        tokenFile: arguments[5], swcred: arguments[6], app: arguments[7], domain: arguments[8])
case ("passkeys", 7):
    try await measurePasskeys(
        service: Target(name: "swcred serve", socketPath: arguments[1], pid: 0), tokenFile: arguments[2],
        vaultPath: arguments[3], app: try ApplicationIdentifier(arguments[4]), domain: arguments[5],
        credentialID: arguments[6])
case ("stores", 11):
    try measureStores(
        sqlite: Target(name: "SQLite", socketPath: arguments[1], pid: Int32(arguments[2])!),
        postgresA: Target(name: "PostgreSQL A", socketPath: arguments[3], pid: Int32(arguments[4])!),
        postgresB: Target(name: "PostgreSQL B", socketPath: arguments[5], pid: Int32(arguments[6])!),
        floor: Target(name: "floor", socketPath: arguments[7], pid: Int32(arguments[8])!), tokenFile: arguments[9],
        domain: arguments[10])
case ("compare", let count) where count >= 6:
    try compareServers(
        try arguments[5...].map(Target.init(naming:)), tokenFile: arguments[1], domain: arguments[2],
        rounds: Int(arguments[3]) ?? 1, clientCounts: arguments[4].split(separator: ",").compactMap { Int($0) })
default:
    FileHandle.standardError.write(Data("usage: see the comment at the top of service-bench/main.swift\n".utf8))
    exit(2)
}

/// Adds `count` credentials on filler servers, in one transaction.
func fill(vaultPath: String, count: Int) throws {
    guard let passphrase = ProcessInfo.processInfo.environment["SWCRED_PASSPHRASE"] else {
        throw CommandFailure(description: "set SWCRED_PASSPHRASE")
    }
    let vault = try Vault.open(at: vaultPath, secret: .passphrase(SecureBytes(utf8: passphrase)))
    let elapsed = try time {
        try vault.credentials.batch { batch in
            for index in 0..<count {
                try batch.upsert(
                    server: "filler\(index).example", account: "user\(index)@example.com",
                    password: SecureBytes(utf8: "pw-\(index)-Xq7#vL9p"))
            }
        }
    }
    print("filled \(count) credentials in \(String(format: "%.2f", seconds(elapsed))) s")
}

func measureService(
    service: Target, floor: Target, tokenFile: String, swcred: String, app: String, domain: String
)
    throws
{
    let token = try String(contentsOfFile: tokenFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    let request = postRequest(path: "/v1/credentials/request", token: token, json: #"{"domain":"\#(domain)"}"#)
    let idleAfterUnlock = residentKiB(of: service.pid)

    let latency = try alternatingLatency([service, floor], request: request, blocks: 10, perBlock: 2_000)
    let (serviceLatency, floorLatency) = (latency[0], latency[1])

    // The curve: each client count, service then floor, 3 s each.
    var curve = Report(columns: [
        "clients", "service requests/s", "service p50 / p99", "floor requests/s", "floor p50 / p99",
        "floor / service throughput",
    ])
    var serviceLoad: [LoadResult] = []
    var floorLoad: [LoadResult] = []
    for clients in [1, 2, 4, 8, 32, 128] {
        let served = try load(service, request: request, clients: clients, duration: .seconds(3))
        let floored = try load(floor, request: request, clients: clients, duration: .seconds(3))
        curve.add([
            "\(clients)", String(format: "%.0f", served.requestsPerSecond),
            "\(formatNanoseconds(served.latency.median)) / \(formatNanoseconds(served.latency.percentile(0.99)))",
            String(format: "%.0f", floored.requestsPerSecond),
            "\(formatNanoseconds(floored.latency.median)) / \(formatNanoseconds(floored.latency.percentile(0.99)))",
            String(format: "%.2fx", floored.requestsPerSecond / served.requestsPerSecond),
        ])
        if clients == 32 {
            serviceLoad.append(served)
            floorLoad.append(floored)
        }
    }
    for _ in 0..<1 {
        serviceLoad.append(try load(service, request: request, clients: 32, duration: .seconds(4)))
        floorLoad.append(try load(floor, request: request, clients: 32, duration: .seconds(4)))
    }
    let serviceRate = serviceLoad.map(\.requestsPerSecond).reduce(0, +) / Double(serviceLoad.count)
    let floorRate = floorLoad.map(\.requestsPerSecond).reduce(0, +) / Double(floorLoad.count)
    let idleAfterLoad = residentKiB(of: service.pid)
    let idle = try idleConnections(service, request: request, count: 1_000)
    let idleFloor = try idleConnections(floor, request: request, count: 1_000)

    let direct = TimedCommand(
        "swcred request (direct: Argon2id, then the vault)", executable: swcred,
        arguments: ["request", "--app", app, "--domain", domain], expectedOutput: domain)
    let viaService = TimedCommand(
        "swcred request --server (a new process asking the service)", executable: swcred,
        arguments: ["request", "--app", app, "--domain", domain],
        environment: ["SWCRED_SERVER": service.socketPath, "SWCRED_TOKEN": token], expectedOutput: domain)
    let processes = try timeInterleaved([direct, viaService], rounds: 10)

    let p50 = serviceLatency.median
    var report = Report(columns: ["measurement", "result", "budget or ratio", "verdict"])
    report.add([
        "request through the service, 1 client, p50 (\(serviceLatency.nanoseconds.count) requests)",
        formatNanoseconds(p50), "-", "-",
    ])
    let p99 = serviceLatency.percentile(0.99)
    report.add([
        "request through the service, 1 client, p99", formatNanoseconds(p99), "< 1 ms", p99 < 1_000_000 ? "ok" : "OVER",
    ])
    report.add([
        "floor (bare Hummingbird route, a constant), 1 client, p50 / p99",
        "\(formatNanoseconds(floorLatency.median)) / \(formatNanoseconds(floorLatency.percentile(0.99)))",
        String(format: "service %.2fx the floor (p50)", p50 / floorLatency.median),
        p50 / floorLatency.median <= 2 ? "ok (< 2x)" : "OVER 2x",
    ])
    let errors = (serviceLoad + floorLoad).map(\.errors).reduce(0, +)
    report.add([
        "32 keep-alive clients through the service, requests/s (mean of 3 s and 4 s; \(errors) errors)",
        String(format: "%.0f", serviceRate), "-", errors == 0 ? "-" : "ERRORS",
    ])
    report.add([
        "32 keep-alive clients against the floor, requests/s", String(format: "%.0f", floorRate),
        String(format: "service %.2f of the floor", serviceRate / floorRate),
        serviceRate / floorRate >= 0.5 ? "ok (>= half)" : "UNDER half",
    ])
    let directMedian = processes[0].median
    report.add([
        "\(direct.label), median of 10", formatNanoseconds(directMedian),
        String(format: "%.0fx the service's p50", directMedian / p50),
        directMedian / p50 >= 500 ? "ok (>= 500x)" : "UNDER",
    ])
    report.add([
        "\(viaService.label), median of 10", formatNanoseconds(processes[1].median),
        String(format: "%.1fx faster than direct", directMedian / processes[1].median), "-",
    ])
    report.add(["service resident memory after unlock, idle", "\(idleAfterUnlock / 1024) MiB", "-", "-"])
    let peak = serviceLoad.map(\.peakResidentKiB).max() ?? 0
    report.add(["service resident memory under 32 clients, peak", "\(peak / 1024) MiB", "-", "-"])
    report.add(["service resident memory after the load, idle", "\(idleAfterLoad / 1024) MiB", "-", "-"])
    report.add([
        "1,000 idle keep-alive connections held: service resident memory before / after",
        "\(idle.before / 1024) / \(idle.after / 1024) MiB",
        String(
            format: "%.1f KiB a connection (the floor: %.1f)", Double(idle.after - idle.before) / 1000,
            Double(idleFloor.after - idleFloor.before) / 1000), "-",
    ])
    print(report.markdown())
    print()
    print("#### The curve: keep-alive clients side by side, 3 s each, service then floor")
    print(curve.markdown())
}
