import BenchmarkSupport
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A server under test: a name for the report, its Unix socket, and its process id (for memory).
struct Target {
    let name: String
    let socketPath: String
    let pid: Int32
}

extension Target {
    /// A target written `NAME=SOCKET:PID` on the command line.
    init(naming argument: String) throws {
        guard let equals = argument.firstIndex(of: "="), let colon = argument.lastIndex(of: ":"), equals < colon,
            let pid = Int32(argument[argument.index(after: colon)...])
        else { throw UnixHTTPConnection.Failure(description: "\(argument): write a server as NAME=SOCKET:PID") }
        self.init(
            name: String(argument[..<equals]), socketPath: String(argument[argument.index(after: equals)..<colon]),
            pid: pid)
    }
}

/// Latency of one client: `blocks` rounds, each `perBlock` requests on one keep-alive connection
/// per target, taking the targets in turn so that both see the same machine load.
func alternatingLatency(_ targets: [Target], request: [UInt8], blocks: Int, perBlock: Int) throws -> [Samples] {
    try alternatingLatency(targets.map { ($0, request) }, blocks: blocks, perBlock: perBlock)
}

/// The same, with a request of its own for each target (two routes of one service, say).
func alternatingLatency(_ pairs: [(target: Target, request: [UInt8])], blocks: Int, perBlock: Int) throws -> [Samples] {
    let connections = try pairs.map { (try UnixHTTPConnection(socketPath: $0.target.socketPath), $0.request) }
    for (connection, request) in connections {  // warm up
        for _ in 0..<perBlock { try expectOK(connection.exchange(request)) }
    }
    var samples = Array(repeating: Samples(), count: pairs.count)
    for _ in 0..<blocks {
        for (index, (connection, request)) in connections.enumerated() {
            samples[index].append(
                contentsOf: try measure(count: perBlock) { try expectOK(connection.exchange(request)) })
        }
    }
    return samples
}

/// What `clients` concurrent keep-alive clients achieved in `duration`.
struct LoadResult {
    let requestsPerSecond: Double
    let errors: Int
    /// Every answered request's time, from all clients.
    let latency: Samples
    /// The highest resident set size seen while the load ran, in KiB.
    let peakResidentKiB: Int
}

/// Runs `clients` threads, each with its own connection, sending `request` back to back for
/// `duration`; samples the target's resident memory meanwhile.
func load(_ target: Target, request: [UInt8], clients: Int, duration: Duration) throws -> LoadResult {
    let counts = Mutex((completed: 0, errors: 0, failure: String?.none, latency: Samples()))
    let peak = Mutex(residentKiB(of: target.pid))
    let done = DispatchGroup()
    let start = ContinuousClock.now
    let deadline = start + duration
    for _ in 0..<clients {
        done.enter()
        Thread {
            defer { done.leave() }
            var completed = 0
            var errors = 0
            var latency = Samples()
            do {
                let connection = try UnixHTTPConnection(socketPath: target.socketPath)
                var now = ContinuousClock.now
                while now < deadline {
                    let status = try connection.exchange(request)
                    let answered = ContinuousClock.now
                    latency.append(answered - now)
                    now = answered
                    if status == 200 { completed += 1 } else { errors += 1 }
                }
            } catch {
                counts.withLock { $0.failure = "\(error)" }
            }
            counts.withLock {
                $0.completed += completed
                $0.errors += errors
                $0.latency.append(contentsOf: latency)
            }
        }.start()
    }
    let sampler = Thread {
        while ContinuousClock.now < deadline {
            let now = residentKiB(of: target.pid)
            peak.withLock { $0 = max($0, now) }
            usleep(50_000)
        }
    }
    sampler.start()
    done.wait()
    let elapsed = seconds(ContinuousClock.now - start)
    let totals = counts.withLock { $0 }
    if let failure = totals.failure { throw UnixHTTPConnection.Failure(description: "\(target.name): \(failure)") }
    return LoadResult(
        requestsPerSecond: Double(totals.completed) / elapsed, errors: totals.errors, latency: totals.latency,
        peakResidentKiB: peak.withLock { $0 })
}

/// Opens `count` keep-alive connections to `target`, sends one request on each and keeps them
/// open; returns the target's resident memory before and after (KiB). The connections are closed
/// when the returned array is released.
func idleConnections(
    _ target: Target, request: [UInt8], count: Int
) throws -> (
    before: Int, after: Int, connections: [UnixHTTPConnection]
) {
    let before = residentKiB(of: target.pid)
    var connections: [UnixHTTPConnection] = []
    connections.reserveCapacity(count)
    for _ in 0..<count {
        let connection = try UnixHTTPConnection(socketPath: target.socketPath)
        try expectOK(connection.exchange(request))
        connections.append(connection)
    }
    usleep(200_000)
    return (before, residentKiB(of: target.pid), connections)
}

/// The resident set size of process `pid` in KiB (VmRSS in /proc), or 0 if it cannot be read.
func residentKiB(of pid: Int32) -> Int {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]) ?? 0
    }
    return 0
}

func expectOK(_ status: Int) throws {
    guard status == 200 else { throw UnixHTTPConnection.Failure(description: "answered \(status), not 200") }
}
