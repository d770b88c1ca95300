import Foundation
import Testing

@testable import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `swcred serve` whose listener cannot bind its address: exit 2, with one line that names the
/// address and says what to do, never NIO's `bind(descriptor:ptr:bytes:)` and exit 1; and never a
/// service that neither serves nor exits. (A listener failing on the engine's threads cancelled
/// Hummingbird's service group there, and about one start in twenty-five deadlocked in its exit:
/// apple/swift-async-algorithms#430.)
@Suite("swcred serve: a listener that cannot bind")
struct ServiceBindFailureTests {
    @Test("a --listen port another process listens on: exit 2 naming the address, once")
    func listenPortInUse() async throws {
        try await GatedFixture.with { gated in
            let (holder, port) = try ServiceTLSTests.loopbackSocket(listening: true)
            defer { close(holder) }
            let ca = try TestCertificateAuthority()
            let files = try ca.issue(for: ["localhost"]).writePEM(into: gated.directory, name: "service")
            let log = try Self.refusal(
                gated, socketPath: gated.directory.path("run/swcred.sock"),
                arguments: ["--listen", "127.0.0.1:\(port)", "--tls-cert", files.certificate, "--tls-key", files.key])
            let message =
                "swcred serve: cannot listen on --listen 127.0.0.1:\(port): Address already in use: stop what listens there, or choose another --listen\n"
            #expect(log.components(separatedBy: message).count == 2, "once: \(log)")
            #expect(!log.contains("bind(descriptor"), "\(log)")
        }
    }

    @Test("a socket whose bind fails (injected): exit 2 naming the socket, and each of 40 starts exits")
    func socketBindFails() async throws {
        try await GatedFixture.with { gated in
            let shim = try Self.failingBindShim(in: gated.directory)
            let socketPath = gated.directory.path("run/swcred.sock")
            for attempt in 1...40 {
                let log = try Self.refusal(
                    gated, socketPath: socketPath, arguments: [],
                    environment: [
                        "LD_PRELOAD": shim, "SWCRED_TEST_FAIL_BIND": "swcred.sock",
                        "SWCRED_TEST_BIND_ERRNO": "\(EACCES)",
                    ],
                    limit: 20, attempt: attempt)
                #expect(
                    log.contains(
                        "swcred serve: cannot listen on the socket \(socketPath): Permission denied: pass another --socket\n"
                    ), "start \(attempt): \(log)")
                if !log.contains("cannot listen on the socket") { break }
            }
        }
    }

    @Test(
        "a browser socket another server binds first exits 11, KeePassXC named; one that cannot be bound exits 2",
        arguments: [(EADDRINUSE, Int32(11)), (EACCES, Int32(2))] as [(Int32, Int32)])
    func browserSocketBindFails(code: Int32, exit: Int32) async throws {
        try await GatedFixture.with { gated in
            let shim = try Self.failingBindShim(in: gated.directory)
            let browserSocket = gated.directory.path("browser/kpxc.sock")
            let log = try Self.refusal(
                gated, socketPath: gated.directory.path("run/swcred.sock"), arguments: ["--browser"],
                environment: [
                    "LD_PRELOAD": shim, "SWCRED_TEST_FAIL_BIND": "kpxc.sock", "SWCRED_TEST_BIND_ERRNO": "\(code)",
                    "SWCRED_BROWSER_SOCKET": browserSocket,
                ], status: exit)
            let message =
                code == EADDRINUSE
                ? "swcred serve: --browser: something already listens on \(browserSocket) (KeePassXC?); quit it, or serve without --browser\n"
                : "swcred serve: --browser: "
            #expect(log.components(separatedBy: message).count == 2, "once: \(log)")
            #expect(code == EADDRINUSE || log.contains("Permission denied"), "\(log)")
        }
    }

    /// Starts `swcred serve`, which must exit with `status` (2) within `limit` seconds; returns
    /// what it printed.
    private static func refusal(
        _ gated: GatedFixture, socketPath: String, arguments: [String], environment: [String: String] = [:],
        status: Int32 = 2, limit: TimeInterval = 60, attempt: Int = 1
    ) throws -> String {
        let refused = try ServiceProcess.refusal(
            socketPath: socketPath, arguments: gated.networkArguments + arguments,
            environment: gated.environment.merging(environment) { _, new in new },
            logPath: gated.directory.path("refused-\(attempt).log"), limit: limit)
        #expect(refused.status == status, "start \(attempt): \(refused.log)")
        return refused.log
    }

    /// Builds a library for `LD_PRELOAD` that makes the `bind` of a Unix socket whose path holds
    /// `SWCRED_TEST_FAIL_BIND` fail with the errno `SWCRED_TEST_BIND_ERRNO` (what a directory the
    /// service may not write gives, or another server binding the path first); returns its path.
    private static func failingBindShim(in directory: TemporaryDirectory) throws -> String {
        try PreloadLibrary.build(
            "failing-bind",
            source: """
                #define _GNU_SOURCE
                #include <dlfcn.h>
                #include <errno.h>
                #include <stdlib.h>
                #include <string.h>
                #include <sys/socket.h>
                #include <sys/un.h>
                int bind(int descriptor, const struct sockaddr *address, socklen_t length) {
                    int (*next)(int, const struct sockaddr *, socklen_t) = dlsym(RTLD_NEXT, "bind");
                    const char *part = getenv("SWCRED_TEST_FAIL_BIND"), *code = getenv("SWCRED_TEST_BIND_ERRNO");
                    if (address->sa_family == AF_UNIX && part && code
                        && strstr(((const struct sockaddr_un *)address)->sun_path, part)) {
                        errno = atoi(code);
                        return -1;
                    }
                    return next(descriptor, address, length);
                }
                """, in: directory.url.path)
    }
}
