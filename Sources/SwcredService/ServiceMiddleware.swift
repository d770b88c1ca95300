import Foundation
import Glibc
import HTTPTypes
import Hummingbird
import Logging
import OpenAPIRuntime
import SharedWebCredentials

/// Wraps every route: refuses peers of another uid, turns every failure into the one JSON error
/// shape, logs one line per request (method, route, status, time, peer pid and uid, never a body,
/// a header value, a token or an account) and counts it in the metrics.
struct ServiceMiddleware: RouterMiddleware {
    typealias Context = ServiceRequestContext

    let allowedUIDs: Set<UInt32>
    let ownUID: UInt32 = getuid()
    let logger: Logger
    let metrics: ServiceMetrics
    let peers = PeerCredentialCache()

    /// The owner's routes: served only on the Unix socket, only to the service's own uid, and
    /// never to a request that carries an app token. The consent routes also need an owner
    /// session (``OwnerAuthority``), and unlock the passphrase or key file itself.
    static let ownerRoutes: Set<String> = [
        "/v1/lock", "/v1/unlock", "/v1/consent/next", "/v1/consent/answer", "/v1/owner/challenge",
        "/v1/owner/session",
    ]

    /// The owner's routes that take an owner session (`security: ownerSession` in API/openapi.yaml).
    static let ownerSessionRoutes: Set<String> = ["/v1/consent/next", "/v1/consent/answer"]

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let start = ContinuousClock.now
        let response: Response
        var peer: PeerCredentials?
        do {
            peer = try await Self.identify { try await peers.credentials(of: context.channel) }
            if let peer, peer.uid != ownUID, !allowedUIDs.contains(peer.uid) {
                throw APIError.peerRefused(uid: peer.uid)
            }
            // The matched route's template, not the raw path, which a client may spell otherwise.
            if let route = context.endpointPath, Self.ownerRoutes.contains(route) {
                try requireOwnerPeer(peer, route: route, authorization: request.headers[.authorization])
            }
            var context = context
            context.peer = peer
            response = try await next(request, context)
        } catch let error as APIError {
            logIntegrityFailure(error)
            response = Self.response(for: error)
        } catch let error as ServerError where error.underlyingError is APIError || error.operationInput == nil {
            // The handler's own answer, or a request the generated code could not decode; a
            // failure after decoding that is not an APIError is internal, as below.
            let answer = Self.apiError(for: error)
            logIntegrityFailure(answer)
            response = Self.response(for: answer)
        } catch let error as any HTTPResponseError {
            response = Self.response(for: Self.apiError(for: error.status, request: request))
        } catch {
            let cause = (error as? ServerError)?.underlyingError ?? error
            logger.error("internal error", metadata: ["type": "\(type(of: cause))"])
            response = Self.response(
                for: APIError(
                    status: .internalServerError, code: "internal",
                    message: "the service failed on this request; see its log"))
        }
        let elapsed = ContinuousClock.now - start
        // The matched route's template, never the raw path: a client may put anything in a path.
        let route = context.endpointPath ?? "NotFound"
        metrics.recordRequest(
            route: route, method: request.method.rawValue, status: response.status.code,
            duration: elapsed)
        if logger.logLevel <= .info {
            log(request, route: route, status: response.status, elapsed: elapsed, peer: peer)
        }
        return response
    }

    /// The peer of a request, from `lookup`; a Unix socket peer whose credentials cannot be read
    /// is refused (fail closed), never served as if it were a TCP client, which no uid check sees.
    static func identify(_ lookup: () async throws -> PeerCredentials?) async throws(APIError) -> PeerCredentials? {
        do {
            return try await lookup()
        } catch {
            throw APIError(
                status: .forbidden, code: "peer-refused",
                message:
                    "the service could not read which process is at the other end of this connection (SO_PEERCRED failed), and serves no connection it cannot identify"
            )
        }
    }

    /// Refuses an owner's route on TCP, to a peer of another uid (`--allow-uid` admits apps, never
    /// owners), and to a request with any credential but an owner session (an app token, above
    /// all: an app is never the owner). A consent route asked with no credential at all is 401
    /// first, wherever it comes from, as HTTP answers a request without authentication.
    private func requireOwnerPeer(_ peer: PeerCredentials?, route: String, authorization: String?) throws {
        if authorization == nil, Self.ownerSessionRoutes.contains(route) { throw OwnerAuthority.missingSession }
        guard let peer else {
            throw APIError(
                status: .forbidden, code: "owner-only",
                message:
                    "\(route) is the vault owner's, served on the Unix socket only: run `swcred` on the service's machine"
            )
        }
        guard peer.uid == ownUID else {
            throw APIError(
                status: .forbidden, code: "owner-only",
                message:
                    "\(route) is the vault owner's: uid \(peer.uid) may use the service as an app (--allow-uid), never as its owner"
            )
        }
        if let authorization, !authorization.lowercased().hasPrefix("bearer " + OwnerAuthority.sessionPrefix) {
            throw APIError(
                status: .forbidden, code: "owner-only",
                message:
                    "\(route) is the vault owner's, and an app token never makes a caller the owner: send no app token; the owner proves the passphrase (`swcred unlock`, `swcred consent`)"
            )
        }
    }

    /// An error line for an answer that failed closed on the vault's integrity (a row put back, a
    /// broken seal, a rollback): whoever runs the service must see it even when requests are not
    /// logged. Its message names the row and the vault, never a secret.
    private func logIntegrityFailure(_ error: APIError) {
        guard error.code == SharedWebCredentialsError.Code.integrityFailure.rawValue else { return }
        logger.error("integrity failure: \(error.message)")
    }

    /// One line per request; its metadata is built only when info lines are written.
    private func log(
        _ request: Request, route: String, status: HTTPResponse.Status, elapsed: Duration, peer: PeerCredentials?
    ) {
        var metadata: Logger.Metadata = [
            "method": "\(request.method.rawValue)", "route": "\(route)",
            "status": "\(status.code)",
            "micros": "\(elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000)",
        ]
        if let peer {
            metadata["peer_pid"] = "\(peer.pid)"
            metadata["peer_uid"] = "\(peer.uid)"
        } else {
            metadata["peer"] = "tcp"
        }
        logger.info("request", metadata: metadata)
    }

    /// The JSON error response for `error`.
    static func response(for error: APIError) -> Response {
        var headers: HTTPFields = [.contentType: "application/json"]
        if error.status == .unauthorized { headers[.wwwAuthenticate] = "Bearer" }
        if !error.allow.isEmpty { headers[.allow] = error.allow.map(\.rawValue).joined(separator: ", ") }
        if let seconds = error.retryAfterSeconds { headers[.retryAfter] = "\(seconds)" }
        return Response(status: error.status, headers: headers, body: .init(byteBuffer: .init(bytes: error.body)))
    }

    /// The answer to a failure inside the generated routes: the handler's own error, or the
    /// request not matching the API document before any handler ran (a body that does not decode
    /// as the operation's schema, a missing body, a bad query parameter).
    private static func apiError(for error: ServerError) -> APIError {
        switch error.underlyingError {
        case let error as APIError: error
        // The document's GET routes take query parameters and no body.
        case is DecodingError where error.request.method == .get:
            APIError(
                status: .badRequest, code: SharedWebCredentialsError.Code.invalidInput.rawValue,
                message:
                    "a query parameter does not match API/openapi.yaml for \(error.operationID): see its parameters")
        case let decodingError as DecodingError: .invalidJSON(APIError.describe(decodingError))
        default:
            APIError(
                status: .badRequest, code: "invalid-request",
                message:
                    "the request does not match API/openapi.yaml for \(error.operationID): \(error.causeDescription)")
        }
    }

    private static func apiError(for status: HTTPResponse.Status, request: Request) -> APIError {
        switch status {
        case .notFound, .methodNotAllowed:
            if let methods = ServiceRoutes.methods[request.uri.path] {
                var error = APIError(
                    status: .methodNotAllowed, code: "method-not-allowed",
                    message:
                        "\(request.uri.path) does not take \(request.method.rawValue); it takes \(methods.map(\.rawValue).joined(separator: ", ")): see API/openapi.yaml"
                )
                error.allow = methods
                return error
            }
            return APIError(
                status: .notFound, code: "no-route",
                message: "no route \(request.method.rawValue) \(request.uri.path): see API/openapi.yaml")
        case .contentTooLarge:
            return .bodyTooLarge
        default:
            return APIError(
                status: status, code: "http-error", message: "the request was refused (\(status.code))")
        }
    }
}
