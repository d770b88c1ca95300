import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The browser socket's accept loop (`swcred serve --browser`): an accept the kernel interrupts
/// (EINTR) or refuses for a moment (EMFILE, no descriptor left) is tried again, so the next
/// browser is still served. The failures are made with an `LD_PRELOAD` library, as nothing real
/// makes `accept` fail on demand; it fails only the browser socket's first three accepts.
@Suite("swcred serve --browser: an accept that fails for a passing reason is tried again", .serialized)
struct ServiceBrowserAcceptRetryTests {
    @Test(
        "accept interrupted, or out of descriptors, three times: the browser that connects is answered",
        arguments: [EINTR, EMFILE])
    func acceptRetried(code: Int32) async throws {
        try await ServiceFixture.with { fixture in
            let shim = try Self.failingAcceptShim(in: fixture.gated.directory)
            let socket = fixture.gated.directory.path("browser/kpxc.sock")
            try fixture.start(
                ["--browser"],
                environment: [
                    "LD_PRELOAD": shim, "SWCRED_BROWSER_SOCKET": socket, "SWCRED_TEST_FAIL_ACCEPT": "kpxc.sock",
                    "SWCRED_TEST_ACCEPT_ERRNO": "\(code)",
                ])
            let answer = try Self.exchange(socket, "{}")
            let log = try fixture.running.log
            #expect(answer.contains("\"errorCode\""), "an empty message is answered with its error: \(answer) \(log)")
            if code == EMFILE {
                #expect(
                    log.components(separatedBy: "accept on \(socket) failed: Too many open files; retrying").count == 4,
                    "each failure said once: \(log)")
            }
            #expect(!log.contains("no more connections"), "\(log)")
            let service = try fixture.running
            let status = service.stop()
            #expect(status == 0, "exit \(status): \(service.log)")
        }
    }

    /// Sends `message` on the Unix socket at `path` and returns the first answer, waiting at most
    /// 20 s for it (a listener that stopped accepting never answers).
    static func exchange(_ path: String, _ message: String) throws -> String {
        let descriptor = try UnixHTTP.connect(path)
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        try UnixHTTP.write(descriptor, Data(message.utf8))
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(descriptor, &buffer, buffer.count, 0)
        return count > 0
            ? String(decoding: buffer[..<count], as: UTF8.self) : "(nothing: \(String(cString: strerror(errno))))"
    }

    /// Builds a library for `LD_PRELOAD` that makes the first three `accept`s on the Unix socket
    /// whose path holds `SWCRED_TEST_FAIL_ACCEPT` fail with the errno `SWCRED_TEST_ACCEPT_ERRNO`.
    private static func failingAcceptShim(in directory: TemporaryDirectory) throws -> String {
        try PreloadLibrary.build(
            "failing-accept",
            source: """
                #define _GNU_SOURCE
                #include <dlfcn.h>
                #include <errno.h>
                #include <stdlib.h>
                #include <string.h>
                #include <sys/socket.h>
                #include <sys/un.h>
                static int failures;
                int accept(int descriptor, struct sockaddr *address, socklen_t *length) {
                    int (*next)(int, struct sockaddr *, socklen_t *) = dlsym(RTLD_NEXT, "accept");
                    const char *part = getenv("SWCRED_TEST_FAIL_ACCEPT"), *code = getenv("SWCRED_TEST_ACCEPT_ERRNO");
                    struct sockaddr_un bound;
                    socklen_t size = sizeof bound;
                    if (part && code && getsockname(descriptor, (struct sockaddr *)&bound, &size) == 0
                        && bound.sun_family == AF_UNIX && strstr(bound.sun_path, part)
                        && __sync_fetch_and_add(&failures, 1) < 3) {
                        errno = atoi(code);
                        return -1;
                    }
                    return next(descriptor, address, length);
                }
                """, in: directory.url.path)
    }
}
