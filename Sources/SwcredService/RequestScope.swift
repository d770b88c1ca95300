import Hummingbird
import NIOCore
import SharedWebCredentials

/// What a route handler needs from the HTTP layer that the API's generated types do not carry:
/// the `Authorization` header (the security scheme is not an operation parameter) and the
/// connection, for slowing down repeated failed authentications. ``RequestBodyMiddleware`` sets
/// it around each request; the handlers of ``VaultAPI`` read it.
struct RequestScope: Sendable {
    /// The raw `Authorization` header, if any.
    let authorization: String?
    /// The connection the request came on.
    let channel: any Channel
    /// The process at the other end of a Unix socket connection; nil on TCP.
    let peer: PeerCredentials?

    /// The connection's identity, the key of the authentication throttle.
    var connection: ObjectIdentifier { ObjectIdentifier(channel) }

    @TaskLocal static var current: RequestScope?

    /// The scope of the request being handled; a handler outside a request is a bug.
    static func require() throws -> RequestScope {
        guard let current else {
            throw APIError(
                status: .internalServerError, code: "internal", message: "a route ran outside a request; see the log")
        }
        return current
    }
}

/// Reads a request's whole body before any decoder sees it, within the limits of the service:
/// JSON only (415 otherwise, missing `Content-Type` included), at most 64 KiB (413), all of it
/// within the body timeout (408, ``BodyDeadlineHandler``), so that a slow or huge body never ties
/// up a handler; I-JSON only (400 `invalid-json` naming a member repeated in one object), so that
/// no reader can take another of two same-named members than the gate did; and no null, which the
/// document never allows (the generated decoder would read it as an absent member). Then it runs
/// the route inside the request's ``RequestScope``.
struct RequestBodyMiddleware: RouterMiddleware {
    typealias Context = ServiceRequestContext

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var request = request
        if Self.hasBody(request) {
            guard Self.isJSON(request.headers[.contentType]) else { throw APIError.unsupportedMediaType }
            let body = try await collectBody(request)
            let value: JSONValue
            do {
                value = try IJSON.parse(Array(body.readableBytesView))
            } catch {
                throw APIError.invalidJSON(error.message)
            }
            if let member = Self.nullMember(in: value) {
                throw APIError.invalidJSON(
                    "\"\(member)\" is null: leave an optional member out instead (API/openapi.yaml has no nullable member)"
                )
            }
            request.body = .init(buffer: body)
        }
        let scope = RequestScope(
            authorization: request.headers[.authorization], channel: context.channel, peer: context.peer)
        return try await RequestScope.$current.withValue(scope) { try await next(request, context) }
    }

    /// The path of the first member whose value is null, if any (`a.b[2].c`).
    static func nullMember(in value: JSONValue, at path: String = "") -> String? {
        switch value {
        case .null:
            return path
        case .object(let members):
            for member in members {
                let child = path.isEmpty ? member.key : "\(path).\(member.key)"
                if let found = nullMember(in: member.value, at: child) { return found }
            }
            return nil
        case .array(let elements):
            for (index, element) in elements.enumerated() {
                if let found = nullMember(in: element, at: "\(path)[\(index)]") { return found }
            }
            return nil
        case .string, .number, .bool:
            return nil
        }
    }

    /// Whether the request sends a body: a length above zero, or chunked.
    private static func hasBody(_ request: Request) -> Bool {
        if let length = request.headers[.contentLength] { return length != "0" }
        return request.headers[.transferEncoding] != nil
    }

    private static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        if contentType == "application/json" { return true }  // the usual spelling, without Foundation's trimming
        return contentType.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
            == "application/json"
    }

    /// The whole body, at most ``ServiceLimits/maximumBodySize``; the connection's
    /// ``BodyDeadlineHandler`` ends a body that has not arrived in time.
    private func collectBody(_ request: Request) async throws -> ByteBuffer {
        do {
            return try await request.body.collect(upTo: ServiceLimits.maximumBodySize)
        } catch is NIOTooManyBytesError {
            throw APIError.bodyTooLarge
        } catch is BodyDeadlineExpired {
            throw APIError.requestTimeout
        }
    }
}
