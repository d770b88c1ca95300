import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The service against processes of other uids and of its own (issue 28): `--allow-uid` lets
/// exactly the named uids in, as apps and never as the owner; and the service process cannot be
/// read by other processes of its user, nor its passphrase found in its environment, even by root.
@Suite(
    "swcred serve: other uids, and the process's own hardening", .serialized,
    .enabled(
        if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/curl"),
        "needs root, setpriv and curl to act as other uids"))
struct ServiceOtherUIDTests {
    /// A uid allowed with --allow-uid, and one that is not; neither needs a user entry.
    static let allowedUID: UInt32 = 61_001
    static let strangerUID: UInt32 = 61_002
    /// The unprivileged uid the service runs as in the hardening test.
    static let serviceUID: UInt32 = 65_534

    /// `curl` on the Unix socket as `uid`: the HTTP status (0 when it could not connect) and body.
    static func curl(
        as uid: UInt32, socket: String, _ method: String, _ path: String, body: String? = nil,
        authorization: String? = nil
    ) throws -> (status: Int, body: String) {
        var arguments = ["-s", "--unix-socket", socket, "-X", method, "-w", "\n%{http_code}"]
        if let body { arguments += ["-H", "Content-Type: application/json", "-d", body] }
        if let authorization { arguments += ["-H", "Authorization: \(authorization)"] }
        let result = try runAs(uid, "/usr/bin/curl", arguments + ["http://localhost\(path)"])
        let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false)
        return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
    }

    /// Runs `executable` as `uid` (and gid) with no supplementary groups.
    static func runAs(
        _ uid: UInt32, _ executable: String, _ arguments: [String]
    ) throws -> (
        status: Int32, output: String
    ) {
        try ServiceOwnerBoundaryTests.run(
            "/usr/bin/setpriv", ["--reuid", "\(uid)", "--regid", "\(uid)", "--clear-groups", executable] + arguments)
    }

    @Test("--allow-uid: the named uid reaches the socket as an app, never as the owner; another uid does not reach it")
    func allowedUIDIsAnAppOnly() async throws {
        try await ServiceFixture.with { fixture in
            // A socket directory others may pass through, as /run is; the service makes its own 0700.
            let base = try TemporaryDirectory(prefix: "swcred-acl")
            chmod(base.url.path, 0o711)
            let socket = base.path("run/swcred.sock")
            let service = try ServiceProcess.start(
                socketPath: socket, arguments: fixture.gated.networkArguments + ["--allow-uid", "\(Self.allowedUID)"],
                environment: fixture.gated.environment, logPath: fixture.logPath)
            defer { _ = service.stop() }

            // The owner's connection stays open while the allowed uid connects: the service keeps
            // each connection's peer credentials, and another connection never inherits them.
            let owner = try UnixHTTP.connect(socket)
            defer { close(owner) }
            try UnixHTTP.write(owner, UnixHTTP.requestBytes(method: "POST", path: "/v1/owner/challenge"))
            #expect(try UnixHTTP.readResponse(owner).status == 200, "the owner's own connection")

            let health = try Self.curl(as: Self.allowedUID, socket: socket, "GET", "/v1/health")
            #expect(health.status == 200, "the allowed uid reaches the socket: \(health)")
            #expect(!health.body.contains("hardening"), "the hardening report is the owner's uid's")
            let stranger = try Self.curl(as: Self.strangerUID, socket: socket, "GET", "/v1/health")
            #expect(stranger.status == 0, "any other uid cannot even connect: \(stranger)")

            for (method, path, body) in [
                ("POST", "/v1/lock", nil), ("POST", "/v1/unlock", #"{"passphrase": "x"}"#),
                ("GET", "/v1/consent/next", nil), ("POST", "/v1/consent/answer", #"{"id": "x", "approve": true}"#),
                ("POST", "/v1/owner/challenge", nil),
            ] {
                // A credential shaped as an owner session: the uid is refused whatever it brings.
                let answer = try Self.curl(
                    as: Self.allowedUID, socket: socket, method, path, body: body,
                    authorization: "Bearer owner_" + String(repeating: "A", count: 43))
                #expect(answer.status == 403, "\(path) as uid \(Self.allowedUID): \(answer)")
                #expect(answer.body.contains("owner-only"), "\(path): \(answer.body)")
            }
            let anonymous = try Self.curl(as: Self.allowedUID, socket: socket, "GET", "/v1/consent/next")
            #expect(
                anonymous.status == 401 && anonymous.body.contains("invalid-owner-session"),
                "a consent route without Authorization is 401 from any uid: \(anonymous)")
            let metrics = try Self.curl(as: Self.allowedUID, socket: socket, "GET", "/metrics")
            #expect(metrics.status == 401, "metrics need a token from another uid: \(metrics)")
            try UnixHTTP.write(owner, UnixHTTP.requestBytes(method: "POST", path: "/v1/owner/challenge"))
            #expect(try UnixHTTP.readResponse(owner).status == 200, "the owner's connection is still the owner's")
            #expect(
                (try UnixHTTP.request(socket, "GET", "/v1/health").json as? [String: Any])?["locked"] as? Bool == false)
        }
    }

    @Test(
        "the running service: its memory and environment closed to its own uid, no passphrase in its environment, hardening reported"
    )
    func serviceProcessIsHardened() async throws {
        try await GatedFixture.with { gated in
            let (home, vault) = try gated.copyOfVault(ownedBy: Self.serviceUID, prefix: "swcred-hardened")
            let socket = home.path("run/swcred.sock")
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = [
                "--reuid", "\(Self.serviceUID)", "--regid", "\(Self.serviceUID)", "--clear-groups",
                SwcredProcess.executableURL.path, "serve", "--offline", "--socket", socket, "--vault", vault,
            ]
            process.environment = [
                "PATH": "/usr/bin:/bin", "HOME": home.url.path, "SWCRED_PASSPHRASE": gated.passphrase,
            ]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            defer {
                kill(process.processIdentifier, SIGTERM)
                process.waitUntilExit()
            }
            var health: (status: Int, body: String) = (0, "")
            for _ in 0..<1500 where health.status != 200 {
                health = try Self.curl(as: Self.serviceUID, socket: socket, "GET", "/v1/health")
                if health.status != 200 { usleep(40_000) }
            }
            #expect(health.status == 200, "the service answered its own uid")
            let pid = process.processIdentifier  // setpriv and swcred exec: the service keeps this pid

            // Another process of the service's own uid.
            let environ = try Self.runAs(Self.serviceUID, "/bin/cat", ["/proc/\(pid)/environ"])
            #expect(environ.status != 0, "its environment is closed to its own uid")
            #expect(!environ.output.contains(gated.passphrase))
            let memory = try Self.runAs(
                Self.serviceUID, "/bin/sh", ["-c", "exec 3</proc/\(pid)/mem && echo opened"])
            #expect(memory.status != 0 && !memory.output.contains("opened"), "its memory is closed to its own uid")

            // Root may read the environment block, but the passphrase's bytes were overwritten.
            let rootView = try #require(FileManager.default.contents(atPath: "/proc/\(pid)/environ"))
            #expect(!String(decoding: rootView, as: UTF8.self).contains(gated.passphrase))
            #expect(rootView.range(of: Data(gated.passphrase.utf8)) == nil)

            let report = try #require(
                (try JSONSerialization.jsonObject(with: Data(health.body.utf8)) as? [String: Any])?["hardening"]
                    as? [String: Any], "the owner's uid sees the hardening: \(health.body)")
            #expect(report["dumpable"] as? Bool == false)
            #expect(report["core_dumps"] as? Bool == false)
            #expect(report["passphrase_in_environment"] as? Bool == false)
        }
    }
}
