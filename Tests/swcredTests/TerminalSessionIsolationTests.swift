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
}
