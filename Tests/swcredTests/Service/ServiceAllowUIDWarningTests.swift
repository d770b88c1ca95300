import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `--allow-uid` opens the socket's directory to the named uids, but a directory above it that
/// others cannot pass still stops them: the service names each such directory at start-up, and
/// only those. Run as the ordinary user: nothing here needs another uid.
@Suite("swcred serve: --allow-uid names the directories above the socket that stop other users", .serialized)
struct ServiceAllowUIDWarningTests {
    @Test("a closed directory above the socket is named; an open one between it and the socket is not")
    func closedAncestorsNamed() async throws {
        try await ServiceFixture.with { fixture in
            let base = try TemporaryDirectory(prefix: "swcred-ancestors")
            let closed = base.url.path
            let open = base.path("open")
            try FileManager.default.createDirectory(atPath: open, withIntermediateDirectories: false)
            #expect(chmod(closed, 0o700) == 0)
            #expect(chmod(open, 0o711) == 0)
            let socket = base.path("open/run/swcred.sock")
            let service = try ServiceProcess.start(
                socketPath: socket, arguments: fixture.gated.networkArguments + ["--allow-uid", "61001"],
                environment: fixture.gated.environment, logPath: fixture.logPath)
            defer { _ = service.stop() }
            let log = service.log
            #expect(
                log.contains("\(closed) does not let other users through"),
                "the closed directory above the socket is named: \(log)")
            #expect(!log.contains("\(open) does not let"), "a directory others can pass is not named: \(log)")
            #expect(!log.contains("\(open)/run does not let"), "the socket's own directory is the service's: \(log)")
        }
    }
}
