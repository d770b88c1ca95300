import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The tmux server behind a terminal test outlives the call that starts it. If it inherited a
/// descriptor another test had open at that moment, such as the write end of a pipe to a
/// `swcred` child, that test's read would wait for the server's `sleep 600`: a ten-minute stall
/// seen in a parallel run.
@Suite("terminal sessions hold no other test's descriptors")
struct TerminalSessionIsolationTests {
    @Test("a pipe open while a session starts reaches end of file as soon as its writer closes")
    func serverInheritsNoPipe() throws {
        var ends: [Int32] = [-1, -1]
        // Inheritable on purpose, like the pipe ends Foundation's Process holds while it spawns.
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]) }
        let terminal = try TerminalSession(executable: "/bin/true", arguments: [], environment: [:])
        close(ends[1])
        // Other tests' short-lived children may hold the pipe for a moment; the server would
        // hold it for ten minutes.
        var descriptor = pollfd(fd: ends[0], events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, 5_000)
        var byte: UInt8 = 0
        #expect(ready == 1 && read(ends[0], &byte, 1) == 0, "the tmux server kept the pipe's write end open")
        withExtendedLifetime(terminal) {}
    }

    /// Issue 30, section 5: the sessions used to wait in `sleep 600` after their program ended,
    /// so a run that ended without releasing one (killed, crashed) left them behind.
    @Test("a session's tmux server ends when the session is released, also when the test fails")
    func releasedSessionEnds() throws {
        struct Failed: Error {}
        var server: pid_t = 0
        do {
            let terminal = try TerminalSession(executable: "/bin/true", arguments: [], environment: [:])
            #expect(try terminal.exitStatus() == 0)
            server = try terminal.serverPID()
            #expect(kill(server, 0) == 0, "running while the session is held")
            throw Failed()
        } catch is Failed {}
        #expect(try Self.ends(server), "the tmux server \(server) outlived its session")
    }

    @Test("a session's tmux server ends soon after the test process that owns it, released or not")
    func ownerGoneSessionEnds() throws {
        let owner = Process()
        owner.executableURL = URL(fileURLWithPath: "/bin/sleep")
        owner.arguments = ["60"]
        try owner.run()
        let terminal = try TerminalSession(
            executable: "/bin/true", arguments: [], environment: [:], owner: owner.processIdentifier)
        #expect(try terminal.exitStatus() == 0)
        let server = try terminal.serverPID()
        kill(owner.processIdentifier, SIGKILL)  // the owner was killed, as a hung test run is
        owner.waitUntilExit()
        #expect(try Self.ends(server), "the tmux server \(server) outlived the process that owned it")
        withExtendedLifetime(terminal) {}
    }

    /// Whether process `pid` is gone (or a zombie) within five seconds.
    private static func ends(_ pid: pid_t) throws -> Bool {
        for _ in 0..<100 {
            let state = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8))?
                .split(separator: ")").last?.split(separator: " ").first
            if kill(pid, 0) != 0 || state == "Z" { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return false
    }
}
