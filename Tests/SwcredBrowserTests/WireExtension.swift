import Foundation
import Testing

@testable import SwcredBrowser

#if canImport(Glibc)
    import Glibc
#endif

struct WireFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Runs blocking work (a read that waits for the listener, a child process) on a thread of its
/// own. The listener's connection threads run each message through the engine, an actor, on
/// Swift's shared pool, which has as many threads as cores (two here): a test blocked in `recv`
/// on a pool thread would starve the very engine it waits for.
func offPool<T>(_ body: @escaping () throws -> T) async throws -> T {
    let work = OffPoolWork(body)
    return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
        work.continuation = continuation
        Thread { work.run() }.start()
    }
}

/// The closure and continuation of one ``offPool(_:)`` call, handed to its thread.
private final class OffPoolWork<T>: @unchecked Sendable {
    let body: () throws -> T
    var continuation: CheckedContinuation<T, any Error>?
    init(_ body: @escaping () throws -> T) { self.body = body }
    func run() {
        do {
            continuation!.resume(returning: try body())
        } catch {
            continuation!.resume(throwing: error)
        }
    }
}

/// One end of a conversation with the bridge: sends one message, receives the next one.
protocol WireTransport: AnyObject {
    func send(_ message: [UInt8]) throws
    /// The next whole message, or nil when the other side closed; blocks.
    func receiveBlocking() throws -> [UInt8]?
}

extension WireTransport {
    /// The next whole message, or nil when the other side closed, waited for off the shared pool.
    func receive() async throws -> [UInt8]? {
        try await offPool { try self.receiveBlocking() }
    }
}

/// A connection to the browser socket itself, as keepassxc-proxy makes: unframed JSON. Records
/// whether a read ever returned more than one message (which the proxy would pass on to the
/// browser as one unparseable message).
final class SocketTransport: WireTransport {
    let descriptor: Int32
    private var splitter = BrowserJSONStreamSplitter()
    private var queued: [[UInt8]] = []
    /// How many reads returned more than one whole message, or a message and part of the next.
    private(set) var coalescedReads = 0

    init(path: String, timeout: Int = 20) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw WireFailure("socket: \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in bytes.enumerated() { buffer[index] = byte }
        }
        let status = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard status == 0 else {
            let failure = errno
            close(descriptor)
            throw WireFailure("connect \(path): \(String(cString: strerror(failure)))")
        }
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(descriptor) }

    func send(_ message: [UInt8]) throws {
        try sendRaw(message)
    }

    /// Writes `bytes` as they are, in one write.
    func sendRaw(_ bytes: [UInt8]) throws {
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { raw in
                Glibc.send(descriptor, raw.baseAddress! + written, raw.count - written, Int32(MSG_NOSIGNAL))
            }
            guard count >= 0 else { throw WireFailure("send: \(String(cString: strerror(errno)))") }
            written += count
        }
    }

    func receiveBlocking() throws -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while queued.isEmpty {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count < 0 {
                if errno == EINTR { continue }
                throw WireFailure("recv: \(String(cString: strerror(errno))) (nothing arrived in time?)")
            }
            if count == 0 { return nil }
            let messages = try splitter.feed(buffer[..<count])
            if messages.count > 1 || (messages.count == 1 && splitter.isInsideMessage) { coalescedReads += 1 }
            queued += messages
        }
        return queued.removeFirst()
    }

    /// True when the listener closed the connection (or closes it within the timeout) without
    /// sending anything more.
    func closedWithoutReply() async -> Bool {
        (try? await receive()) == .some(nil)
    }
}

/// A native-messaging host run as a browser runs it: framed messages on its standard input,
/// framed replies on its standard output.
final class NativeHostTransport: WireTransport {
    let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    let errors: URL
    private var reader: NativeMessageReader<PollingSource>

    /// A byte source that gives up after `timeout` seconds without bytes.
    struct PollingSource: NativeMessageByteSource {
        let fileDescriptor: Int32
        let timeout: Int32
        mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(NativeMessageFramingError) -> Int {
            var entry = pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, timeout * 1000)
            guard ready > 0 else { throw .systemCallFailed(call: "poll (timed out)", errno: ETIMEDOUT) }
            var source = FileDescriptorByteSource(fileDescriptor: fileDescriptor)
            return try source.read(into: buffer)
        }
    }

    init(executable: String, arguments: [String], environment: [String: String], timeout: Int32 = 20) throws {
        // A host that exited must fail the test's write, not kill the test process.
        signal(SIGPIPE, SIG_IGN)
        errors = FileManager.default.temporaryDirectory.appendingPathComponent("host-\(UUID().uuidString).err")
        FileManager.default.createFile(atPath: errors.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        process.standardInput = input
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: errors)
        reader = NativeMessageReader(
            source: PollingSource(fileDescriptor: output.fileHandleForReading.fileDescriptor, timeout: timeout))
        try process.run()
    }

    deinit {
        if process.isRunning { process.terminate() }
        try? FileManager.default.removeItem(at: errors)
    }

    func send(_ message: [UInt8]) throws {
        try sendRaw(try NativeMessageFraming.frame(message))
    }

    func sendRaw(_ bytes: [UInt8]) throws {
        try input.fileHandleForWriting.write(contentsOf: Data(bytes))
    }

    func receiveBlocking() throws -> [UInt8]? {
        try reader.next()
    }

    /// Closes the host's standard input and waits for it to exit; its status and standard error.
    func finish() async throws -> (status: Int32, stderr: String) {
        try? input.fileHandleForWriting.close()
        let process = process
        try await offPool { process.waitUntilExit() }
        return (process.terminationStatus, (try? String(contentsOf: errors, encoding: .utf8)) ?? "")
    }
}

/// The extension's side of the protocol over a ``WireTransport``, from keepassxc-browser 1.8.4's
/// client.js as ``ExtensionClient`` plays it against the engine directly.
final class WireExtension {
    let transport: any WireTransport
    let keys = ClientKeys()
    let identificationKey = ClientKeys()
    let clientID: String
    var hostPublicKey: [UInt8] = []
    var associationID: String?

    init(_ transport: any WireTransport, clientID: String? = nil) {
        self.transport = transport
        self.clientID = clientID ?? Data((0..<24).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
    }

    /// The next reply as a JSON object; fails on a reply that is not one JSON object.
    func receiveObject() async throws -> [String: Any] {
        guard let bytes = try await transport.receive() else {
            throw WireFailure("the other side closed the connection")
        }
        guard let reply = object(bytes) else {
            throw WireFailure("a reply is not one JSON object: \(String(decoding: bytes.prefix(200), as: UTF8.self))")
        }
        return reply
    }

    func changePublicKeys() async throws {
        let nonce = BrowserNonce.random()
        try transport.send(
            json([
                "action": "change-public-keys", "publicKey": keys.publicKeyBase64, "nonce": nonce.base64,
                "clientID": clientID,
            ]))
        let reply = try await receiveObject()
        guard reply["success"] as? String == "true", let keyText = reply["publicKey"] as? String,
            let key = Data(base64Encoded: keyText), key.count == 32
        else { throw WireFailure("change-public-keys failed: \(reply)") }
        #expect(reply["nonce"] as? String == Data(extensionIncrement(nonce.bytes)).base64EncodedString())
        hostPublicKey = [UInt8](key)
    }

    /// The bytes of an encrypted request, and its nonce.
    func request(_ action: String, _ payload: [String: Any] = [:]) -> (bytes: [UInt8], nonce: [UInt8]) {
        var inner = payload
        inner["action"] = action
        let nonce = BrowserNonce.random()
        let box = boxEasy(json(inner), nonce: nonce.bytes, publicKey: hostPublicKey, secretKey: keys.secretKey)
        let envelope: [String: Any] = [
            "action": action, "message": Data(box).base64EncodedString(), "nonce": nonce.base64, "clientID": clientID,
        ]
        return (json(envelope), nonce.bytes)
    }

    /// Opens a reply to the request with `nonce`: the decrypted message, or nil for an error reply.
    func open(_ reply: [String: Any], nonce: [UInt8]) throws -> [String: Any]? {
        guard let text = reply["message"] as? String else { return nil }
        let expected = extensionIncrement(nonce)
        #expect(reply["nonce"] as? String == Data(expected).base64EncodedString())
        guard let box = Data(base64Encoded: text),
            let plain = openEasy([UInt8](box), nonce: expected, publicKey: hostPublicKey, secretKey: keys.secretKey)
        else { throw WireFailure("a reply does not open") }
        return object(plain)
    }

    /// Sends an encrypted request and returns the outer reply and its opened message.
    @discardableResult
    func send(
        _ action: String, _ payload: [String: Any] = [:]
    ) async throws -> (reply: [String: Any], message: [String: Any]?) {
        let (bytes, nonce) = request(action, payload)
        try transport.send(bytes)
        let reply = try await receiveObject()
        return (reply, try open(reply, nonce: nonce))
    }

    var keysField: [[String: String]] {
        [["id": associationID ?? "", "key": identificationKey.publicKeyBase64]]
    }

    /// change-public-keys, get-databasehash, associate, test-associate and get-logins of `url`:
    /// the conversation the extension has when it first meets a password manager.
    func firstConversation(url: String) async throws -> (hash: String?, logins: [[String: Any]]) {
        try await changePublicKeys()
        let hash = try await send("get-databasehash").message?["hash"] as? String
        let association = try await send(
            "associate", ["key": keys.publicKeyBase64, "idKey": identificationKey.publicKeyBase64])
        associationID = association.message?["id"] as? String
        guard associationID != nil else { throw WireFailure("associate failed: \(association.reply)") }
        let test = try await send("test-associate", ["id": associationID!, "key": identificationKey.publicKeyBase64])
        guard test.message?["id"] as? String == associationID else {
            throw WireFailure("test-associate: \(test.reply)")
        }
        let logins = try await send("get-logins", ["url": url, "keys": keysField])
        return (hash, logins.message?["entries"] as? [[String: Any]] ?? [])
    }
}
