import BenchmarkSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// An A/B run: the same request against several servers (the floor, two builds of
/// `swcred serve` on copies of one vault, …), one client taking them in turn, then each under
/// each count of keep-alive clients in `clientCounts`, 3 s each, and with 1,000 idle
/// connections. Beside the times, what each server's process spent per request, read from
/// /proc: CPU time and context switches (every thread's, voluntary and not). On these shared
/// 2-core machines the switches and the ratios hold better than the times.
func compareServers(
    _ targets: [Target], tokenFile: String, domain: String, rounds: Int, clientCounts: [Int]
) throws {
    let token = try String(contentsOfFile: tokenFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    let request = postRequest(path: "/v1/credentials/request", token: token, json: #"{"domain":"\#(domain)"}"#)
    for round in 1...rounds {
        let perBlock = 2_000
        let blocks = 6
        let connections = try targets.map { try UnixHTTPConnection(socketPath: $0.socketPath) }
        for connection in connections {  // warm up
            for _ in 0..<perBlock { try expectOK(connection.exchange(request)) }
        }
        var samples = Array(repeating: Samples(), count: targets.count)
        var used = Array(repeating: ProcessCost.zero, count: targets.count)
        for _ in 0..<blocks {
            for (index, connection) in connections.enumerated() {
                let before = ProcessCost.of(targets[index].pid)
                samples[index].append(
                    contentsOf: try measure(count: perBlock) { try expectOK(connection.exchange(request)) })
                used[index] = used[index] + (ProcessCost.of(targets[index].pid) - before)
            }
        }
        let floor = samples[0].median
        var report = Report(columns: [
            "round \(round): one client, in turn", "p50", "p99", "p50 / first", "CPU per request",
            "switches per request",
        ])
        let requests = Double(blocks * perBlock)
        for (index, target) in targets.enumerated() {
            report.add([
                target.name, formatNanoseconds(samples[index].median),
                formatNanoseconds(samples[index].percentile(0.99)),
                String(format: "%.2fx", samples[index].median / floor),
                formatNanoseconds(used[index].cpuNanoseconds / requests),
                String(format: "%.1f", used[index].switches / requests),
            ])
        }
        print(report.markdown())
        print()
        var throughput = Report(columns: ["clients"] + targets.map { "\($0.name) requests/s (/ first)" })
        for clients in clientCounts {
            var row = ["\(clients)"]
            var firstRate = 0.0
            for (index, target) in targets.enumerated() {
                let rate = try load(target, request: request, clients: clients, duration: .seconds(3)).requestsPerSecond
                if index == 0 { firstRate = rate }
                row.append(String(format: "%.0f (%.2f)", rate, rate / firstRate))
            }
            throughput.add(row)
        }
        print(throughput.markdown())
        print()
        var idle = Report(columns: [
            "1,000 idle keep-alive connections", "resident memory before / after", "per connection",
        ])
        for target in targets {
            let held = try idleConnections(target, request: request, count: 1_000)
            idle.add([
                target.name, "\(held.before / 1024) / \(held.after / 1024) MiB",
                String(format: "%.1f KiB", Double(held.after - held.before) / 1_000),
            ])
        }
        print(idle.markdown())
        print()
    }
}

/// What a process has spent so far: CPU time (user and system) and context switches of all its
/// threads, including those that have exited.
struct ProcessCost {
    var cpuNanoseconds: Double
    var switches: Double

    static let zero = ProcessCost(cpuNanoseconds: 0, switches: 0)

    static func + (left: ProcessCost, right: ProcessCost) -> ProcessCost {
        ProcessCost(
            cpuNanoseconds: left.cpuNanoseconds + right.cpuNanoseconds, switches: left.switches + right.switches)
    }

    static func - (left: ProcessCost, right: ProcessCost) -> ProcessCost {
        ProcessCost(
            cpuNanoseconds: left.cpuNanoseconds - right.cpuNanoseconds, switches: left.switches - right.switches)
    }

    /// Reads /proc/PID/stat (CPU) and /proc/PID/task/*/status (switches of each live thread).
    static func of(_ pid: Int32) -> ProcessCost {
        var cost = ProcessCost.zero
        if let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        {
            // Fields after the command name: state is field 3; utime and stime are 14 and 15.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
            if fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) {
                cost.cpuNanoseconds = (user + system) / ticks * 1e9
            }
        }
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        for task in tasks {
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8)
            else { continue }
            for line in status.split(separator: "\n")
            where line.hasPrefix("voluntary_ctxt_switches:") || line.hasPrefix("nonvoluntary_ctxt_switches:") {
                cost.switches += Double(line.split(separator: "\t").last.map(String.init) ?? "0") ?? 0
            }
        }
        return cost
    }
}
