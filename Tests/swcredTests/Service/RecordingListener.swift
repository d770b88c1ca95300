import Foundation
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A listener on a Unix socket that is not the service: a Python process, run as `uid` (or as
/// the test's own), that counts every connection and records every byte it receives, and
/// answers a request with 503. It creates the socket's directory (0755) if missing. So a test
/// can play the user who planted a socket and see what a client sent it.
final class RecordingListener {
    /// What the listener saw.
    struct Record: Equatable, CustomStringConvertible {
        var connections: Int
        var received: String
        var description: String { "\(connections) connection(s), received \(received.debugDescription)" }
    }

    let socketPath: String
    private let logs: TemporaryDirectory
    private let process: Process

    /// Connections one at a time, each read up to the end of its request (or of the stream).
    private static let script = #"""
        import os, socket, sys
        path, logs = sys.argv[1], sys.argv[2]
        os.umask(0o022)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(path)
        server.listen(16)
        while True:
            connection, _ = server.accept()
            with open(os.path.join(logs, "connections"), "a") as out:
                out.write("connection\n")
            connection.settimeout(10)
            data = b""
            try:
                while True:
                    head, separator, body = data.partition(b"\r\n\r\n")
                    if separator:
                        length = 0
                        for line in head.split(b"\r\n")[1:]:
                            name, _, value = line.partition(b":")
                            if name.strip().lower() == b"content-length":
                                length = int(value.strip())
                        chunked = b"transfer-encoding: chunked" in head.lower()
                        if body.endswith(b"0\r\n\r\n") if chunked else len(body) >= length:
                            break
                    chunk = connection.recv(65536)
                    if not chunk:
                        break
                    data += chunk
            except OSError:
                pass
            with open(os.path.join(logs, "received"), "ab") as out:
                out.write(data)
            if data:
                try:
                    connection.sendall(b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                except OSError:
                    pass
            connection.close()
        """#

    /// Starts the listener at `socketPath` as `uid` (nil: the test's own) and waits until the
    /// socket exists.
    init(socketPath: String, uid: UInt32?) throws {
        self.socketPath = socketPath
        logs = try TemporaryDirectory(prefix: "swcred-listener")
        let python = ["/usr/bin/python3", "-c", Self.script, socketPath, logs.url.path]
        process = Process()
        if let uid {
            chown(logs.url.path, uid, uid)
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid", "\(uid)", "--regid", "\(uid)", "--clear-groups"] + python
        } else {
            process.executableURL = URL(fileURLWithPath: python[0])
            process.arguments = Array(python.dropFirst())
        }
        process.environment = ["PATH": "/usr/bin:/bin"]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        var info = stat()
        for _ in 0..<500 where lstat(socketPath, &info) != 0 {
            guard process.isRunning else {
                let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                throw FixtureError(message: "the listener at \(socketPath) exited: \(message)")
            }
            usleep(20_000)
        }
        guard lstat(socketPath, &info) == 0 else {
            throw FixtureError(message: "the listener made no socket at \(socketPath) within 10 s")
        }
    }

    /// What the listener saw since the last record, once every earlier connection has been
    /// handled: a last connection of the test's own (not counted) sends a marker and waits for
    /// the listener to close it, and the listener takes connections one at a time.
    func record() throws -> Record {
        let marker = "end-of-test-\(UUID().uuidString)"
        let descriptor = try UnixHTTP.connect(socketPath)
        defer { close(descriptor) }
        try UnixHTTP.write(descriptor, Data(marker.utf8))
        shutdown(descriptor, Int32(SHUT_WR))
        var byte: UInt8 = 0
        while recv(descriptor, &byte, 1, 0) > 0 {}
        let connections = (try? String(contentsOfFile: logs.path("connections"), encoding: .utf8)) ?? ""
        let received = (try? String(contentsOfFile: logs.path("received"), encoding: .utf8)) ?? ""
        unlink(logs.path("connections"))
        unlink(logs.path("received"))
        guard received.hasSuffix(marker) else {
            throw FixtureError(message: "the listener did not record the marker: \(received.debugDescription)")
        }
        return Record(
            connections: connections.split(separator: "\n").count - 1, received: String(received.dropLast(marker.count))
        )
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}
