import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// What ``TestHTTPSServer`` does with one request.
public enum TestRoute: Sendable {
    /// Answers with a status, headers and a body (Content-Length is added).
    case respond(status: Int, headers: [(String, String)], body: [UInt8])
    /// Answers with a redirect to `location`.
    case redirect(status: Int, location: String)
    /// Answers 200 and then sends body bytes until the client hangs up.
    case streamForever
    /// Reads the request and never answers.
    case neverAnswer
    /// Answers with `route` after `milliseconds` (a slow site).
    indirect case delayed(milliseconds: Int64, TestRoute)

    /// A 200 response with a JSON body served as `application/json` (or `contentType`).
    public static func json(_ text: String, contentType: String = "application/json") -> TestRoute {
        .respond(status: 200, headers: [("Content-Type", contentType)], body: Array(text.utf8))
    }

    /// A 200 AASA file approving `apps` for webcredentials.
    public static func aasa(approving apps: [String]) -> TestRoute {
        let list = apps.map { "\"\($0)\"" }.joined(separator: ", ")
        return .json("{\"webcredentials\": {\"apps\": [\(list)]}}")
    }

    /// An empty response with `status`.
    public static func status(_ status: Int) -> TestRoute {
        .respond(status: status, headers: [], body: [])
    }
}

/// A request as the test server saw it.
public struct TestRequest: Sendable, Equatable {
    /// The method, e.g. `GET`.
    public let method: String
    /// The request target, e.g. `/.well-known/apple-app-site-association`.
    public let path: String
    /// The `Host` header, or empty.
    public let host: String
    /// The `Accept` header, or empty.
    public let accept: String
    /// The `User-Agent` header, or empty.
    public let userAgent: String

    /// Creates a request record.
    public init(method: String, path: String, host: String, accept: String, userAgent: String) {
        self.method = method
        self.path = path
        self.host = host
        self.accept = accept
        self.userAgent = userAgent
    }
}

/// An HTTPS server on 127.0.0.1 for tests: real TLS (NIOSSL) with a certificate made at test
/// time, and programmable answers (status, headers, body, redirects, an endless body, silence).
///
/// ```swift
/// let ca = try TestCertificateAuthority()
/// let server = try await TestHTTPSServer.start(identity: try ca.issue(for: ["example.com"])) { request in
///     request.path == "/.well-known/apple-app-site-association" ? .aasa(approving: ["ABCDE12345.com.example.app"]) : .status(404)
/// }
/// // fetch with --connect-to example.com:443:127.0.0.1:\(server.port) --ca-file <ca.writePEM(...)>
/// try await server.stop()
/// ```
public final class TestHTTPSServer: Sendable {
    /// The port the server listens on (chosen by the system).
    public let port: Int
    private let channel: any Channel
    private let group: MultiThreadedEventLoopGroup
    private let log: RequestLog

    private init(port: Int, channel: any Channel, group: MultiThreadedEventLoopGroup, log: RequestLog) {
        self.port = port
        self.channel = channel
        self.group = group
        self.log = log
    }

    /// Starts a server presenting `identity` and answering every request with `handler`.
    public static func start(
        identity: TestIdentity, handler: @escaping @Sendable (TestRequest) -> TestRoute
    ) async throws -> TestHTTPSServer {
        let log = RequestLog()
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: try identity.nioSSLChain().map { .certificate($0) },
            privateKey: .privateKey(try identity.nioSSLKey()))
        // Each client hello's server name (SNI), kept; the handshake goes on unchanged.
        configuration.sslContextCallback = { values, promise in
            log.appendServerName(values.serverHostname ?? "")
            promise.succeed(.noChanges)
        }
        let context = try NIOSSLContext(configuration: configuration)
        // Its own thread, not the shared singleton the client under test uses: a server pumping
        // an endless body must not starve the client's reads on a loaded machine.
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(RouteHandler(handler: handler, log: log))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return TestHTTPSServer(port: channel.localAddress!.port!, channel: channel, group: group, log: log)
    }

    /// Starts a server answering from a table of paths; other paths get 404.
    public static func start(identity: TestIdentity, routes: [String: TestRoute]) async throws -> TestHTTPSServer {
        try await start(identity: identity) { routes[$0.path] ?? .status(404) }
    }

    /// Every request received so far, in order.
    public var requests: [TestRequest] { log.all }

    /// The server name (SNI) of every TLS client hello so far, in order; empty for a hello
    /// that named none.
    public var serverNames: [String] { log.serverNames }

    /// The `--connect-to` argument that sends `host` (port 443 unless given) to this server.
    public func connectTo(_ host: String, port: Int = 443) -> String { "\(host):\(port):127.0.0.1:\(self.port)" }

    /// Stops listening and closes every open connection.
    public func stop() async throws {
        try await channel.close()
        try await group.shutdownGracefully()
    }
}

/// The requests a server received, shared between its connections.
private final class RequestLog: @unchecked Sendable {
    private let lock = NSLock()
    private var requests: [TestRequest] = []
    private var names: [String] = []

    func append(_ request: TestRequest) {
        lock.lock()
        requests.append(request)
        lock.unlock()
    }

    func appendServerName(_ name: String) {
        lock.withLock { names.append(name) }
    }

    var serverNames: [String] { lock.withLock { names } }

    var all: [TestRequest] {
        lock.lock()
        defer { lock.unlock() }
        return requests
    }
}

/// Answers requests on one connection according to the server's handler.
private final class RouteHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let handler: @Sendable (TestRequest) -> TestRoute
    private let log: RequestLog
    private var head: HTTPRequestHead?

    init(handler: @escaping @Sendable (TestRequest) -> TestRoute, log: RequestLog) {
        self.handler = handler
        self.log = log
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): self.head = head
        case .body: break
        case .end:
            guard let head else { return }
            let request = TestRequest(
                method: head.method.rawValue, path: head.uri, host: head.headers.first(name: "Host") ?? "",
                accept: head.headers.first(name: "Accept") ?? "",
                userAgent: head.headers.first(name: "User-Agent") ?? "")
            log.append(request)
            respond(to: request, route: handler(request), context: context)
        }
    }

    private func respond(to request: TestRequest, route: TestRoute, context: ChannelHandlerContext) {
        switch route {
        case .respond(let status, let headers, let body):
            var fields = HTTPHeaders(headers)
            fields.replaceOrAdd(name: "Content-Length", value: String(body.count))
            send(status: status, headers: fields, body: body, context: context)
        case .redirect(let status, let location):
            send(status: status, headers: ["Location": location, "Content-Length": "0"], body: [], context: context)
        case .neverAnswer:
            break
        case .delayed(let milliseconds, let inner):
            context.eventLoop.scheduleTask(in: .milliseconds(milliseconds)) {
                self.respond(to: request, route: inner, context: context)
            }
        case .streamForever:
            let headHead = HTTPResponseHead(
                version: .http1_1, status: .ok,
                headers: ["Content-Type": "application/json", "Transfer-Encoding": "chunked"])
            context.writeAndFlush(wrapOutboundOut(.head(headHead)), promise: nil)
            var chunk = context.channel.allocator.buffer(capacity: 16_384)
            chunk.writeRepeatingByte(UInt8(ascii: " "), count: 16_384)
            Self.pump(chunk, channel: context.channel)
        }
    }

    private static func pump(_ chunk: ByteBuffer, channel: any Channel) {
        channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(chunk))).whenSuccess {
            pump(chunk, channel: channel)
        }
    }

    private func send(status: Int, headers: HTTPHeaders, body: [UInt8], context: ChannelHandlerContext) {
        let responseHead = HTTPResponseHead(
            version: .http1_1, status: HTTPResponseStatus(statusCode: status), headers: headers)
        context.write(wrapOutboundOut(.head(responseHead)), promise: nil)
        if !body.isEmpty {
            context.write(
                wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
        }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }
}
