import Foundation

/// Runs the built `swcred` binary as a separate process, the way a user or script would.
public enum SwcredProcess {
    /// The outcome of one run.
    public struct Result: Sendable {
        /// The process's exit status.
        public var status: Int32
        /// Everything written to standard output, as UTF-8 (lossy).
        public var stdout: String
        /// Everything written to standard error, as UTF-8 (lossy).
        public var stderr: String
        /// Raw standard output.
        public var stdoutData: Data
    }

    /// The built `swcred` executable, next to the test bundle in the build products folder.
    public static var executableURL: URL {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            Bundle.main.bundleURL,
            Bundle.main.bundleURL.deletingLastPathComponent(),
        ]
        for folder in candidates {
            let url = folder.appendingPathComponent("swcred")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        fatalError("swcred binary not found near \(CommandLine.arguments[0]); run `swift build` first")
    }

    /// Another executable of this package, built next to `swcred` (such as `VaultTestClient`).
    public static func siblingExecutable(named name: String) -> URL {
        executableURL.deletingLastPathComponent().appendingPathComponent(name)
    }

    /// Runs `swcred` with arguments, extra environment variables and optional standard input.
    ///
    /// The child gets a minimal environment (PATH, HOME, LANG) plus `environment`, so that nothing
    /// from the developer's shell (such as SWCRED_PASSPHRASE) leaks into a test. It runs in
    /// `currentDirectory` when one is given, else in this process's.
    public static func run(
        _ arguments: [String],
        environment: [String: String] = [:],
        stdin: Data? = nil,
        executable: URL? = nil,
        currentDirectory: String? = nil
    ) throws -> Result {
        try TestPass.requireOrdinaryUserInUserPass()
        let process = Process()
        process.executableURL = executable ?? executableURL
        process.arguments = arguments
        if let currentDirectory { process.currentDirectoryURL = URL(fileURLWithPath: currentDirectory) }
        var childEnvironment = ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]
        childEnvironment["HOME"] = ProcessInfo.processInfo.environment["HOME"] ?? "/tmp"
        childEnvironment.merge(environment) { _, new in new }
        process.environment = childEnvironment

        let outPipe = Pipe()
        let errPipe = Pipe()
        let inPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        process.standardInput = inPipe
        try process.run()

        // Read both streams concurrently so that a chatty child never blocks on a full pipe.
        let group = DispatchGroup()
        nonisolated(unsafe) var errData = Data()
        group.enter()
        DispatchQueue.global().async {
            errData = errPipe.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        // A child may exit before reading all of its input: that must not kill the test
        // process with SIGPIPE, nor trap on EPIPE.
        signal(SIGPIPE, SIG_IGN)
        if let stdin { try? inPipe.fileHandleForWriting.write(contentsOf: stdin) }
        try? inPipe.fileHandleForWriting.close()
        let outData = outPipe.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus,
            stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self),
            stdoutData: outData)
    }
}
