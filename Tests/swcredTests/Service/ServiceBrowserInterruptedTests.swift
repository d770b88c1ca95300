import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `swcred serve --browser` with every read, write, send and recv interrupted once (EINTR, made
/// with an `LD_PRELOAD` library): each browser is still answered, and one that goes away gives its
/// place back, though its last `recv` ends (0, the peer closed) with `errno` still EINTR from the
/// interrupted call before it.
@Suite("swcred serve --browser: interrupted system calls", .serialized)
struct ServiceBrowserInterruptedTests {
    @Test("browsers that connect, are answered and go away, one after another, more than one process may hold at once")
    func placesGivenBack() async throws {
        try await ServiceFixture.with { fixture in
            let shim = try PreloadLibrary.build(
                "interrupting", source: PreloadLibrary.interruptingSource, in: fixture.gated.directory.url.path)
            let socket = fixture.gated.directory.path("browser/kpxc.sock")
            try fixture.start(["--browser"], environment: ["LD_PRELOAD": shim, "SWCRED_BROWSER_SOCKET": socket])
            // Four places per process: a fifth browser is answered only if the first gave its back.
            var answers: [String] = []
            for _ in 1...6 { answers.append(try ServiceBrowserAcceptRetryTests.exchange(socket, "{}")) }
            let log = try fixture.running.log
            #expect(answers.allSatisfy { $0.contains("\"errorCode\"") }, "\(answers) \(log)")
            #expect(!log.contains("already holds"), "\(log)")
            let service = try fixture.running
            let status = service.stop()
            #expect(status == 0, "exit \(status): \(service.log)")
        }
    }
}
