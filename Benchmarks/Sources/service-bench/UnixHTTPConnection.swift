import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One keep-alive HTTP/1.1 connection over a Unix socket, blocking, with as little client work
/// as possible: the request bytes are built once and the response is read into a reused buffer.
/// The same client measures the service and the floor, so its cost cancels out of their ratio.
final class UnixHTTPConnection {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private let descriptor: Int32
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)

    init(socketPath: String) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = Array(socketPath.utf8CString)
        guard path.count <= MemoryLayout.size(ofValue: address.sun_path) else {
            throw Failure(description: "socket path too long: \(socketPath)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            path.withUnsafeBytes { raw.copyMemory(from: $0) }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            throw Failure(description: "connect \(socketPath): \(String(cString: strerror(errno)))")
        }
    }

    deinit { close(descriptor) }

    /// Sends `request` (a whole HTTP/1.1 request) and reads the response; returns its status.
    func exchange(_ request: [UInt8]) throws -> Int {
        try request.withUnsafeBytes { bytes in
            var sent = 0
            while sent < bytes.count {
                let written = write(descriptor, bytes.baseAddress! + sent, bytes.count - sent)
                guard written > 0 else { throw Failure(description: "write: \(String(cString: strerror(errno)))") }
                sent += written
            }
        }
        var filled = 0
        var headerEnd = -1
        var bodyLength = 0
        while headerEnd < 0 || filled < headerEnd + bodyLength {
            guard filled < buffer.count else { throw Failure(description: "response over 64 KiB") }
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + filled, $0.count - filled) }
            guard count > 0 else { throw Failure(description: "the server closed the connection") }
            filled += count
            if headerEnd < 0, let end = Self.headerEnd(buffer, filled) {
                headerEnd = end
                bodyLength = Self.contentLength(buffer[0..<end])
            }
        }
        return Self.status(buffer)
    }

    /// The offset just past "\r\n\r\n" in the first `count` bytes, if it is there.
    private static func headerEnd(_ bytes: [UInt8], _ count: Int) -> Int? {
        guard count >= 4 else { return nil }
        for index in 0...(count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index + 4
        }
        return nil
    }

    private static func contentLength(_ header: ArraySlice<UInt8>) -> Int {
        let text = String(decoding: header, as: UTF8.self).lowercased()
        guard let range = text.range(of: "content-length:") else { return 0 }
        let digits = text[range.upperBound...].drop { $0 == " " }.prefix { $0.isNumber }
        return Int(digits) ?? 0
    }

    private static func status(_ bytes: [UInt8]) -> Int {
        // "HTTP/1.1 200 ..."
        Int(String(decoding: bytes[9..<12], as: UTF8.self)) ?? 0
    }
}

/// The bytes of a POST of `json` to `path` with a bearer token.
func postRequest(path: String, token: String, json: String) -> [UInt8] {
    Array(
        ("POST \(path) HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(token)\r\n"
            + "Content-Type: application/json\r\nContent-Length: \(json.utf8.count)\r\n\r\n\(json)").utf8)
}
