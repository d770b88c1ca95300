import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A program running on a real pseudo-terminal, driven the way a person would drive it: tmux
/// runs it on a private server, keys are typed with `send-keys`, secrets are pasted from a tmux
/// buffer loaded through standard input (so they never appear in any process's argv), and the
/// screen is read with `capture-pane`.
public final class TerminalSession {
    private let socket = "swcred-test-\(UUID().uuidString)"
    private let target = "main"

    /// Starts `executable` with `arguments` and `environment` in a new 200x50 terminal. When the
    /// program ends, the line `[exit N]` appears on the screen and the terminal stays open until
    /// this session is released (its tmux server is killed then), or else, when the test process
    /// `owner` ends first (killed, crashed, or leaking the session), within a second of that, and
    /// at the latest after ten minutes. So no tmux server or pane outlives the test run.
    public init(
        executable: String, arguments: [String], environment: [String: String], owner: pid_t = getpid()
    ) throws {
        let command = ([executable] + arguments).map(Self.shellQuoted).joined(separator: " ")
        var tmuxArguments = ["new-session", "-d", "-s", target, "-x", "200", "-y", "50"]
        for (name, value) in environment.sorted(by: { $0.key < $1.key }) {
            tmuxArguments += ["-e", "\(name)=\(value)"]
        }
        let keepOpen = "i=0; while [ $i -lt 600 ] && kill -0 \(owner) 2>/dev/null; do sleep 1; i=$((i + 1)); done"
        tmuxArguments.append("\(command); echo \"[exit $?]\"; \(keepOpen)")
        try startServer(tmuxArguments)
    }

    /// The process id of this session's tmux server.
    public func serverPID() throws -> pid_t {
        let text = try tmux(["display-message", "-p", "-t", target, "#{pid}"])
        guard let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw TerminalSessionError(message: "tmux printed no server pid: \(text)")
        }
        return pid
    }

    /// Types `keys` (tmux key names such as `Enter` are allowed as separate elements).
    public func type(_ keys: String...) throws {
        try tmux(["send-keys", "-t", target] + keys)
    }

    /// Pastes `secret` into the terminal without putting it on any command line.
    public func paste(secret: String) throws {
        try tmux(["load-buffer", "-b", "secret", "-"], stdin: Data(secret.utf8))
        try tmux(["paste-buffer", "-d", "-b", "secret", "-t", target])
    }

    /// The visible screen as text.
    public func screen() throws -> String {
        try tmux(["capture-pane", "-p", "-t", target])
    }

    /// Waits until the screen contains `text`, up to `timeout`; returns the screen.
    @discardableResult
    public func waitFor(_ text: String, timeout: Duration = .seconds(20)) throws -> String {
        let deadline = ContinuousClock.now + timeout
        while true {
            let shown = try screen()
            if shown.contains(text) { return shown }
            if ContinuousClock.now >= deadline {
                throw TerminalSessionError(message: "timed out waiting for \"\(text)\"; screen:\n\(shown)")
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    /// Waits for the program to end and returns its exit status.
    public func exitStatus(timeout: Duration = .seconds(30)) throws -> Int32 {
        let shown = try waitFor("[exit ", timeout: timeout)
        guard let range = shown.range(of: #"\[exit (\d+)\]"#, options: .regularExpression) else {
            throw TerminalSessionError(message: "no exit status on screen:\n\(shown)")
        }
        let digits = shown[range].filter(\.isNumber)
        return Int32(digits) ?? -1
    }

    deinit {
        _ = try? tmux(["kill-server"])
    }

    /// Runs the tmux command that starts the server, with posix_spawn and waitpid rather than
    /// Foundation's Process: Process learns of a child's exit through a descriptor the child
    /// inherits, and the tmux server forked from the client would hold it open forever. For the
    /// same reason the child gets no descriptor but the three standard ones: a pipe another test
    /// has open at this moment would otherwise stay open as long as the server runs. It also gets
    /// no blocked signals and every signal's default action: a test runs on a thread that blocks
    /// signals (libdispatch's workers do), and a server that inherited that mask ignored
    /// `kill-server` (SIGTERM), while its pane's shell and `sleep` outlived the hang-up (SIGHUP).
    private func startServer(_ arguments: [String]) throws {
        let status: Int32
        do {
            status = try CleanSpawn.run(
                ["tmux", "-L", socket, "-f", "/dev/null"] + arguments, streams: [.null, .null, .null])
        } catch {
            throw TerminalSessionError(message: error.description)
        }
        guard status == 0 else { throw TerminalSessionError(message: "tmux new-session failed (status \(status))") }
    }

    /// Runs one tmux command against the running server and returns what it printed.
    @discardableResult
    private func tmux(_ arguments: [String], stdin: Data? = nil) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["tmux", "-L", socket, "-f", "/dev/null"] + arguments
        let output = Pipe()
        let input = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0 else {
            throw TerminalSessionError(message: "tmux \(arguments.first ?? "") failed: \(text)")
        }
        return text
    }

    private static func shellQuoted(_ word: String) -> String {
        "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

/// A failure to drive the terminal.
public struct TerminalSessionError: Error, CustomStringConvertible {
    /// What went wrong, with the screen when useful.
    public let message: String
    public var description: String { message }
}
