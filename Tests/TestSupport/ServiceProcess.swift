import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A running `swcred serve` on a temporary socket, started the way a user starts it.
public final class ServiceProcess: @unchecked Sendable {
    /// The process.
    public let process: Process
    /// Its socket.
    public let socketPath: String
    /// The file its standard error (the log) goes to.
    public let logPath: String

    private init(process: Process, socketPath: String, logPath: String) {
        self.process = process
        self.socketPath = socketPath
        self.logPath = logPath
    }

    /// Starts `swcred serve --socket SOCKET ARGUMENTS` and waits until its socket answers
    /// `GET /v1/health`, or throws with its log if it exits first.
    public static func start(
        socketPath: String, arguments: [String] = [], environment: [String: String], logPath: String
    ) throws -> ServiceProcess {
        let process = try launch(
            socketPath: socketPath, arguments: arguments, environment: environment, logPath: logPath)
        let service = ServiceProcess(process: process, socketPath: socketPath, logPath: logPath)
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if !process.isRunning {
                throw UnixHTTP.Failure(
                    description: "swcred serve exited \(process.terminationStatus) before listening: \(service.log)")
            }
            if let health = try? UnixHTTP.request(socketPath, "GET", "/v1/health"), health.status == 200 {
                return service
            }
            usleep(20_000)
        }
        process.terminate()
        throw UnixHTTP.Failure(description: "swcred serve did not answer within 60 s: \(service.log)")
    }

    /// Starts `swcred serve` without waiting (for a start that is expected to fail).
    public static func launch(
        socketPath: String, arguments: [String] = [], environment: [String: String], logPath: String
    ) throws -> Process {
        try TestPass.requireOrdinaryUserInUserPass()
        let process = Process()
        process.executableURL = SwcredProcess.executableURL
        process.arguments = ["serve", "--socket", socketPath] + arguments
        var childEnvironment = ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]
        childEnvironment["HOME"] = ProcessInfo.processInfo.environment["HOME"] ?? "/tmp"
        childEnvironment.merge(environment) { _, new in new }
        process.environment = childEnvironment
        FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        log.seekToEndOfFile()
        process.standardError = log
        process.standardOutput = log
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Starts `swcred serve` that is expected to refuse to start, and waits for its exit; returns
    /// its status and what it printed. Throws when it still runs after `limit` seconds (it is
    /// then killed): a service that neither serves nor exits is a failure, not a hang.
    public static func refusal(
        socketPath: String, arguments: [String], environment: [String: String], logPath: String,
        limit: TimeInterval = 60
    ) throws -> (status: Int32, log: String) {
        let process = try launch(
            socketPath: socketPath, arguments: arguments, environment: environment, logPath: logPath)
        let deadline = Date().addingTimeInterval(limit)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw UnixHTTP.Failure(
                description: "swcred serve on \(socketPath) was still running after \(Int(limit)) s instead of refusing"
            )
        }
        return (process.terminationStatus, try String(contentsOfFile: logPath, encoding: .utf8))
    }

    /// Everything the service logged so far.
    public var log: String {
        (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
    }

    /// Sends `signal` and waits for the exit; returns the status (or the signal for a kill).
    @discardableResult
    public func stop(signal: Int32 = SIGTERM, timeout: TimeInterval = 60) -> Int32 {
        guard process.isRunning else { return process.terminationStatus }
        kill(process.processIdentifier, signal)
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        return process.terminationStatus
    }

    /// A service a test leaves running is stopped as its user stops it, with SIGTERM, so that it
    /// shuts down and exits as it does in use (its coverage profile, for Scripts/mutants, is written
    /// at that exit); SIGKILL only if it has not stopped within 10 s.
    deinit {
        stop(signal: SIGTERM, timeout: 10)
    }
}
