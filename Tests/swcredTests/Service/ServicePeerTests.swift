import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// SO_PEERCRED: only the service's own uid is served unless `--allow-uid` adds another.
@Suite("swcred serve: peers of another uid", .serialized)
struct ServicePeerTests {
    /// The unprivileged uid the service runs as in this test.
    static let serviceUID: UInt32 = 65534

    @Test(
        "a peer of another uid is refused with 403, and served with --allow-uid",
        .enabled(
            if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
            "needs root to run the service as another user"))
    func otherUID() async throws {
        try await GatedFixture.with { gated in
            // A vault and socket directory the unprivileged user owns.
            let (home, vault) = try gated.copyOfVault(ownedBy: Self.serviceUID, prefix: "swcred-peer")
            let socketPath = home.path("run/swcred.sock")
            for allowed in [false, true] {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
                process.arguments =
                    [
                        "--reuid", "\(Self.serviceUID)", "--regid", "\(Self.serviceUID)", "--clear-groups",
                        SwcredProcess.executableURL.path, "serve", "--offline", "--socket", socketPath,
                        "--vault", vault,
                    ] + (allowed ? ["--allow-uid", "0"] : [])
                process.environment = [
                    "PATH": "/usr/bin:/bin", "HOME": home.url.path, "SWCRED_PASSPHRASE": gated.passphrase,
                ]
                let log = Pipe()
                process.standardError = log
                process.standardOutput = log
                try process.run()
                defer {
                    kill(process.processIdentifier, SIGTERM)
                    process.waitUntilExit()
                }
                var response: UnixHTTP.Response?
                for _ in 0..<3000 where response == nil {
                    response = try? UnixHTTP.request(socketPath, "GET", "/v1/health")
                    if response == nil { usleep(20_000) }
                }
                let answer = try #require(response, "the service answered")
                if allowed {
                    #expect(answer.status == 200)
                } else {
                    #expect(answer.status == 403)
                    #expect(answer.errorCode == "peer-refused")
                    #expect(answer.text.contains("uid 0"))
                }
            }
        }
    }
}
