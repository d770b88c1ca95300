import Foundation
import Testing

@testable import TestSupport

/// A client named a service socket that a service left behind when it died: the file is there,
/// its directory passes every check, and nothing listens. The client says no service answers, at
/// the path as the user gave it, and exits 7.
@Suite("swcred --server: a socket nobody listens on")
struct ServiceStaleSocketTests {
    @Test("a stale socket, named by a relative path: exit 7, no service at that path, connection refused")
    func staleSocket() throws {
        let directory = try TemporaryDirectory()
        let run = directory.path("run")
        try FileManager.default.createDirectory(
            atPath: run, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        let bind = Process()
        bind.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        bind.arguments = [
            "-c", "import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])", run + "/swcred.sock",
        ]
        try bind.run()
        bind.waitUntilExit()
        #expect(bind.terminationStatus == 0)

        let result = try SwcredProcess.run(
            ["request", "--domain", "shop.example", "--server", "run/swcred.sock"],
            environment: ["SWCRED_TOKEN": "swcred_app_" + String(repeating: "A", count: 43)],
            currentDirectory: directory.path(""))
        #expect(result.status == 7, "\(result.stderr)")
        #expect(
            result.stderr.contains("no swcred service answers at run/swcred.sock (Connection refused)"),
            "\(result.stderr)")
    }
}
