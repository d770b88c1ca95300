import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A minimal HTTP/1.1 client over a Unix socket, written on raw sockets so that tests can send
/// exactly the bytes they mean: half a request, a wrong content type, a body one byte too large.
public enum UnixHTTP {
    /// One parsed response.
    public struct Response: Sendable {
        /// The status code.
        public let status: Int
        /// Header fields, names lower-cased.
        public let headers: [String: String]
        /// The body.
        public let body: Data

        /// The body as text.
        public var text: String { String(decoding: body, as: UTF8.self) }

        /// The body parsed as JSON.
        public var json: Any? { try? JSONSerialization.jsonObject(with: body) }

        /// `error.code` of a JSON error body.
        public var errorCode: String? { ((json as? [String: Any])?["error"] as? [String: Any])?["code"] as? String }
    }

    /// A failure of the test client itself.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Connects to the socket at `path`; returns the descriptor.
    public static func connect(_ path: String) throws -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.enumerated() { buffer[index] = byte }
        }
        let status = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard status == 0 else {
            let message = String(cString: strerror(errno))
            close(descriptor)
            throw Failure(description: "connect \(path): \(message)")
        }
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return descriptor
    }

    /// The bytes of a request with `Content-Length` (and `Content-Type: application/json` unless
    /// `contentType` says otherwise).
    public static func requestBytes(
        method: String, path: String, token: String? = nil, body: Data? = nil,
        contentType: String? = "application/json", extraHeaders: [String] = []
    ) -> Data {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: localhost\r\n"
        if let token { head += "Authorization: Bearer \(token)\r\n" }
        if let body {
            if let contentType { head += "Content-Type: \(contentType)\r\n" }
            head += "Content-Length: \(body.count)\r\n"
        }
        for header in extraHeaders { head += header + "\r\n" }
        head += "\r\n"
        return Data(head.utf8) + (body ?? Data())
    }

    /// The bytes of a request whose body is sent `Transfer-Encoding: chunked`, in chunks of at
    /// most `chunkSize` bytes (and `Content-Type: application/json` unless `contentType` says
    /// otherwise).
    public static func chunkedRequestBytes(
        method: String, path: String, token: String? = nil, body: Data, chunkSize: Int = 1000,
        contentType: String? = "application/json"
    ) -> Data {
        var request = requestBytes(
            method: method, path: path, token: token, contentType: nil,
            extraHeaders: (contentType.map { ["Content-Type: \($0)"] } ?? []) + ["Transfer-Encoding: chunked"])
        var offset = 0
        while offset < body.count {
            let chunk = body[(body.startIndex + offset)..<(body.startIndex + min(body.count, offset + chunkSize))]
            request += Data((String(chunk.count, radix: 16) + "\r\n").utf8) + chunk + Data("\r\n".utf8)
            offset += chunk.count
        }
        return request + Data("0\r\n\r\n".utf8)
    }

    /// Writes all of `data`.
    public static func write(_ descriptor: Int32, _ data: Data) throws {
        try data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = send(descriptor, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
                guard written > 0 else { throw Failure(description: "send: \(String(cString: strerror(errno)))") }
                offset += written
            }
        }
    }

    /// Reads one response (headers and a Content-Length body).
    public static func readResponse(_ descriptor: Int32) throws -> Response {
        var buffer = Data()
        var chunk = [UInt8](repeating: 0, count: 65536)
        func fill() throws {
            let count = recv(descriptor, &chunk, chunk.count, 0)
            guard count > 0 else {
                throw Failure(
                    description: count == 0 ? "connection closed" : "recv: \(String(cString: strerror(errno)))")
            }
            buffer.append(contentsOf: chunk[0..<count])
        }
        let separator = Data("\r\n\r\n".utf8)
        while buffer.range(of: separator) == nil { try fill() }
        let headEnd = buffer.range(of: separator)!
        let head = String(decoding: buffer[..<headEnd.lowerBound], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
            throw Failure(description: "bad status line in \(head)")
        }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        let bodyStart = headEnd.upperBound
        while buffer.count - (bodyStart - buffer.startIndex) < length { try fill() }
        let body = buffer[bodyStart..<(bodyStart + length)]
        return Response(status: status, headers: headers, body: Data(body))
    }

    /// One request on a new connection.
    public static func request(
        _ socketPath: String, _ method: String, _ path: String, token: String? = nil, json: Any? = nil,
        body: Data? = nil, contentType: String? = "application/json"
    ) throws -> Response {
        let descriptor = try connect(socketPath)
        defer { close(descriptor) }
        let payload = try json.map { try JSONSerialization.data(withJSONObject: $0) } ?? body
        try write(
            descriptor, requestBytes(method: method, path: path, token: token, body: payload, contentType: contentType))
        return try readResponse(descriptor)
    }
}
