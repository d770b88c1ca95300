import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `--allow-uid` opens the socket's directory to the named uids, but a directory above it that
/// others cannot pass still stops them: the service names each such directory at start-up, and
/// only those; the access lists it writes are read back. Run as the ordinary user: nothing here
/// needs another uid.
@Suite("swcred serve: --allow-uid names the directories above the socket that stop other users", .serialized)
struct ServiceAllowUIDWarningTests {
    @Test(
        "a closed directory above the socket is named, an open one is not; the access lists give the uid search on the directory, read and write on the socket, and nothing to group or others"
    )
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
            // The access lists: the owner, the named uid, no group, a mask, no others; search
            // only on the directory, read and write on the socket.
            #expect(
                try Self.accessList(base.path("open/run")) == "user::7 user:61001:1 group::0 mask::1 other::0",
                "the directory's")
            #expect(try Self.accessList(socket) == "user::6 user:61001:6 group::0 mask::6 other::0", "the socket's")
        }
    }

    /// The POSIX access list of `path` (its `system.posix_acl_access` attribute, read by Python
    /// as the owner may), as `tag:id:permissions` entries in the kernel's order.
    static func accessList(_ path: String) throws -> String {
        let script = """
            import os, struct, sys
            data = os.getxattr(sys.argv[1], "system.posix_acl_access")
            names = {1: "user", 2: "user", 4: "group", 16: "mask", 32: "other"}
            entries = []
            for offset in range(4, len(data), 8):
                tag, permissions, uid = struct.unpack_from("<HHI", data, offset)
                entries.append("%s:%s:%d" % (names[tag], uid if tag == 2 else "", permissions))
            print(" ".join(entries))
            """
        let result = try SwcredProcess.run(
            ["-c", script, path], executable: URL(fileURLWithPath: "/usr/bin/python3"))
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) + result.stderr
    }
}
