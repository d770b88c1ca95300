import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Secrets in memory and in crash output (issue 11, finding 7): no core dump, no backtracer,
/// and a warning when secrets cannot be locked into RAM.
@Suite("swcred process hardening", .serialized)
struct ProcessHardeningTests {
    static let passphrase = ["SWCRED_PASSPHRASE": "test passphrase: violet kernel umbrella frost 93"]

    /// Creates a vault in `directory` and returns the environment that opens it.
    static func makeVault(in directory: TemporaryDirectory) throws -> [String: String] {
        let environment = passphrase.merging(["SWCRED_VAULT": directory.path("vault.sqlite")]) { $1 }
        let created = try SwcredProcess.run(
            ["init", "--kdf-opslimit", "1", "--kdf-memlimit", "8192"], environment: environment)
        #expect(created.status == 0, "\(created.stderr)")
        return environment
    }

    /// Starts `swcred add ... --password-stdin` through `sh -c 'ulimit -c LIMIT; exec ...'` in
    /// `directory`: it blocks reading the password from a pipe that stays open, before it
    /// touches any vault.
    static func startBlocked(
        in directory: TemporaryDirectory, coreLimit: String, environment: [String: String]
    ) throws -> (
        Process, Pipe, Pipe
    ) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = [
            "-c",
            "ulimit -c \(coreLimit); exec \"$0\" add --app ABCDE12345.com.example.app --domain example.com "
                + "--account alice --password-stdin", SwcredProcess.executableURL.path,
        ]
        process.currentDirectoryURL = directory.url
        process.environment = ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"].merging(environment) { $1 }
        let input = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        // Wait until it sleeps in read(2): the runtime has started and main has begun.
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let stat = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8)) ?? ""
            if stat.split(separator: ")").last?.split(separator: " ").first == "S",
                let cmdline = FileManager.default.contents(atPath: "/proc/\(process.processIdentifier)/cmdline"),
                String(decoding: cmdline, as: UTF8.self).contains("--password-stdin")
            {
                break
            }
            usleep(20_000)
        }
        usleep(200_000)
        return (process, input, errors)
    }

    /// The signals whose handlers `/proc/PID/status` lists as caught (`SigCgt`).
    static func caughtSignals(_ pid: Int32) throws -> Set<Int32> {
        try signals(in: "/proc/\(pid)/status", field: "SigCgt:")
    }

    /// The signals a `/proc/PID/status` mask field (`SigCgt:`, `SigIgn:`) lists.
    static func signals(in path: String, field: String) throws -> Set<Int32> {
        let status = try String(contentsOfFile: path, encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix(field) })
        let mask = try #require(UInt64(line.dropFirst(field.count).trimmingCharacters(in: .whitespaces), radix: 16))
        return Set((1...64).filter { mask & (1 << UInt64($0 - 1)) != 0 }.map(Int32.init))
    }

    static let crashSignals: Set<Int32> = [SIGQUIT, SIGABRT, SIGBUS, SIGFPE, SIGILL, SIGSEGV, SIGTRAP]

    @Test("a crash ends the process at once: no crash handler, no backtrace, no debugger prompt, no core file")
    func crashIsSilent() throws {
        let directory = try TemporaryDirectory()
        let (process, input, errors) = try Self.startBlocked(
            in: directory, coreLimit: "unlimited",
            environment: ["SWIFT_BACKTRACE": "enable=yes,interactive=yes,registers=all"])
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let limits = try String(contentsOfFile: "/proc/\(process.processIdentifier)/limits", encoding: .utf8)
        let coreLine = limits.split(separator: "\n").first { $0.hasPrefix("Max core file size") } ?? ""
        #expect(
            coreLine.split(separator: " ", omittingEmptySubsequences: true).dropFirst(4).prefix(2) == ["0", "0"],
            "RLIMIT_CORE is 0, soft and hard: \(coreLine)")
        let caught = try Self.caughtSignals(process.processIdentifier)
        #expect(caught.isDisjoint(with: Self.crashSignals), "the runtime's crash handlers are installed: \(caught)")
        kill(process.processIdentifier, SIGSEGV)
        process.waitUntilExit()
        try? input.fileHandleForWriting.close()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGSEGV)
        #expect(stderr.isEmpty, "the backtracer ran: \(stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.path("core")), "a core file was written")
    }

    @Test("SWCRED_ALLOW_CORE_DUMPS=1 leaves the runtime's crash handlers in place, for debugging")
    func optOut() throws {
        let directory = try TemporaryDirectory()
        let (process, input, _) = try Self.startBlocked(
            in: directory, coreLimit: "0",
            environment: ["SWCRED_ALLOW_CORE_DUMPS": "1", "SWIFT_BACKTRACE": "enable=yes"])
        let caught = try Self.caughtSignals(process.processIdentifier)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? input.fileHandleForWriting.close()
        // A signal this process ignores, the child inherits ignored (a run started in the
        // background has SIGQUIT so), and the runtime leaves an ignored signal alone.
        let inherited = try Self.signals(in: "/proc/self/status", field: "SigIgn:")
        #expect(
            Self.crashSignals.subtracting(inherited).isSubset(of: caught),
            "the runtime's crash handlers: \(caught), ignored here: \(inherited)")
    }

    @Test("status reports core dumps off, and allowed with the opt-out")
    func statusShowsCoreDumps() throws {
        let directory = try TemporaryDirectory()
        let environment = try Self.makeVault(in: directory)
        let hardened = try SwcredProcess.run(
            ["-c", "ulimit -c unlimited; exec \"$0\" status --json", SwcredProcess.executableURL.path],
            environment: environment, executable: URL(fileURLWithPath: "/bin/sh"))
        let json = try #require(try JSONSerialization.jsonObject(with: hardened.stdoutData) as? [String: Any])
        #expect(json["core_dumps"] as? Bool == false, "\(hardened.stdout)")
        let text = try SwcredProcess.run(["status"], environment: environment)
        #expect(text.stdout.contains("core dumps:   off"), "\(text.stdout)")
        let debugging = try SwcredProcess.run(
            ["-c", "ulimit -c unlimited; exec \"$0\" status", SwcredProcess.executableURL.path],
            environment: environment.merging(["SWCRED_ALLOW_CORE_DUMPS": "1"]) { $1 },
            executable: URL(fileURLWithPath: "/bin/sh"))
        #expect(debugging.stdout.contains("core dumps:   allowed (SWCRED_ALLOW_CORE_DUMPS=1)"), "\(debugging.stdout)")
    }

    @Test("when mlock fails under a small ulimit -l, status says so and one warning is printed")
    func memoryLockFailure() throws {
        let directory = try TemporaryDirectory()
        let environment = try Self.makeVault(in: directory)
        let normal = try SwcredProcess.run(["status", "--verify"], environment: environment)
        #expect(normal.stdout.contains("memory lock:  locked"), "\(normal.stdout)")
        #expect(!normal.stderr.contains("locked into memory"))
        // 16 KiB is less than one 64 KiB slab of secrets. Root (CAP_IPC_LOCK) may lock past any
        // limit: drop the capability as well.
        let dropCapability = getuid() == 0 ? "setpriv --bounding-set=-ipc_lock --inh-caps=-ipc_lock " : ""
        let limited = try SwcredProcess.run(
            ["-c", "ulimit -l 16 && exec \(dropCapability)\"$0\" status --verify", SwcredProcess.executableURL.path],
            environment: environment, executable: URL(fileURLWithPath: "/bin/sh"))
        #expect(limited.status == 0, "\(limited.stderr)")
        #expect(limited.stdout.contains("memory lock:  NOT locked"), "\(limited.stdout)")
        #expect(limited.stdout.contains("RLIMIT_MEMLOCK is 16 KiB"), "\(limited.stdout)")
        #expect(
            limited.stderr.components(separatedBy: "could not be locked into memory").count == 2,
            "warned exactly once: \(limited.stderr)")
    }
}
