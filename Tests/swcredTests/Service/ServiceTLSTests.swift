import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `--listen HOST:PORT`: TCP only with TLS.
@Suite("swcred serve --listen: TLS on TCP, never plaintext", .serialized)
struct ServiceTLSTests {
    /// A TCP port that was free a moment ago on 127.0.0.1.
    static func freePort() throws -> Int {
        let (descriptor, port) = try loopbackSocket(listening: false)
        close(descriptor)
        return port
    }

    /// A TCP socket bound to a free port of 127.0.0.1, listening if `listening`, and its port;
    /// the caller closes it.
    static func loopbackSocket(listening: Bool) throws -> (descriptor: Int32, port: Int) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(descriptor, socketAddress, length) == 0 && (!listening || listen(descriptor, 1) == 0)
                    && getsockname(descriptor, socketAddress, &length) == 0
            }
        }
        guard bound else {
            close(descriptor)
            throw FixtureError(message: "no free loopback port: \(String(cString: strerror(errno)))")
        }
        return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
    }

    @Test("the CLI goes through the TLS listener; plaintext HTTP on it fails; --listen without TLS is refused")
    func tlsListener() async throws {
        try await ServiceFixture.with { fixture in
            let ca = try TestCertificateAuthority()
            let caFile = try ca.writePEM(into: fixture.gated.directory, name: "service-ca.pem")
            let files = try ca.issue(for: ["localhost"]).writePEM(into: fixture.gated.directory, name: "service")
            let port = try Self.freePort()
            try fixture.start([
                "--listen", "127.0.0.1:\(port)", "--tls-cert", files.certificate, "--tls-key", files.key,
            ])
            let token = try fixture.token()
            let viaTLS = try SwcredProcess.run(
                [
                    "request", "--app", GatedFixture.app, "--domain", "shop.example", "--server",
                    "https://localhost:\(port)",
                    "--ca-file", caFile,
                ],
                environment: ["SWCRED_TOKEN": token])
            #expect(viaTLS.status == 5, "reached the gate over TLS: \(viaTLS.stderr)")
            #expect(viaTLS.stderr.contains("no matching items found"))
            let untrusted = try SwcredProcess.run(
                [
                    "request", "--app", GatedFixture.app, "--domain", "shop.example", "--server",
                    "https://localhost:\(port)",
                ],
                environment: ["SWCRED_TOKEN": token])
            #expect(untrusted.status == 7, "a certificate from an unknown CA is refused: \(untrusted.stderr)")

            // Plaintext HTTP to the TLS port gets no HTTP answer.
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(descriptor) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
            #expect(connected)
            try UnixHTTP.write(descriptor, UnixHTTP.requestBytes(method: "GET", path: "/v1/health"))
            var timeout = timeval(tv_sec: 10, tv_usec: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            let plaintext = try? UnixHTTP.readResponse(descriptor)
            #expect(plaintext == nil, "no plaintext HTTP answer on the TLS port")

            let lock = Process()
            lock.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
            lock.arguments = ["-s", "--cacert", caFile, "-X", "POST", "https://localhost:\(port)/v1/lock"]
            let output = Pipe()
            lock.standardOutput = output
            try lock.run()
            let answer = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            lock.waitUntilExit()
            #expect(answer.contains("owner-only"), "the owner's routes stay on the Unix socket: \(answer)")

            let refused = try SwcredProcess.run(
                ["serve", "--socket", fixture.gated.directory.path("other.sock"), "--listen", "127.0.0.1:\(port + 1)"],
                environment: fixture.gated.environment)
            #expect(refused.status == 2)
            #expect(refused.stderr.contains("no plaintext TCP"))
        }
    }
}
