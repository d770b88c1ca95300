import AsyncHTTPClient
import Foundation
import HTTPTypes
import NIOCore
import NIOSSL
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime
import SharedWebCredentials
import SwcredAPI

/// The client generated from API/openapi.yaml, over AsyncHTTPClient to the service's socket or
/// TLS listener. Every failure reaches callers as a ``SharedWebCredentialsError``: see
/// ``perform(_:)``.
final class ServiceConnection: Sendable {
    let endpoint: ServiceEndpoint
    /// The generated client: one method per operation of the document.
    let client: Client
    private let httpClient: HTTPClient

    /// A Unix socket is checked first (``ServiceSocketTrust``): nothing is sent to one that
    /// another user could have planted or that another user's process listens on.
    ///
    /// - Parameters:
    ///   - token: the app token or owner session sent as `Authorization: Bearer`; nil for the
    ///     routes that take neither.
    ///   - trustedServiceUID: another uid whose service on a Unix socket the caller trusts, besides
    ///     its own.
    init(
        endpoint: ServiceEndpoint, token: SecureBytes?, caFile: String?, timeout: Duration, trustedServiceUID: uid_t?
    ) throws {
        self.endpoint = endpoint
        let target: ServiceEndpoint =
            switch endpoint {
            case .unixSocket(let path):
                .unixSocket(path: try ServiceSocketTrust(trustedUID: trustedServiceUID).verifiedSocketPath(path))
            case .https: endpoint
            }
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        if let caFile {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.additionalTrustRoots = [.file(caFile)]
            configuration.tlsConfiguration = tls
        }
        let httpClient = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        self.httpClient = httpClient
        guard let baseURL = target.baseURL else {
            try? httpClient.syncShutdown()
            throw SharedWebCredentialsError(.invalidInput, "cannot make a URL for the service at \(endpoint)")
        }
        client = Client(
            serverURL: baseURL,
            transport: AsyncHTTPClientTransport(
                configuration: .init(client: httpClient, timeout: .seconds(timeout.components.seconds))),
            middlewares: [ServiceErrorMiddleware(endpoint: endpoint, token: token)])
    }

    func shutdown() async throws {
        try await httpClient.shutdown()
    }

    /// Runs one call of the generated client, unwrapping its `ClientError` to the library error
    /// that ``ServiceErrorMiddleware`` threw; an answer that does not match the document is an
    /// internal error.
    func perform<T>(_ call: (Client) async throws -> T) async throws -> T {
        do {
            return try await call(client)
        } catch let error as ClientError {
            if let libraryError = error.underlyingError as? SharedWebCredentialsError { throw libraryError }
            throw SharedWebCredentialsError(
                .internalError,
                "the service's answer to \(error.operationID) does not match API/openapi.yaml: \(error.causeDescription)"
            )
        }
    }
}

/// Adds the app token to each request, and turns a failed exchange into the library's error: no
/// answer at all is a locked vault ("start the service"), and an error answer carries the
/// service's code and message.
struct ServiceErrorMiddleware: ClientMiddleware {
    let endpoint: ServiceEndpoint
    let token: SecureBytes?

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        if let token { request.headerFields[.authorization] = "Bearer " + token.exposedString() }
        let response: HTTPResponse
        let responseBody: HTTPBody?
        do {
            (response, responseBody) = try await next(request, body, baseURL)
        } catch {
            throw SharedWebCredentialsError.noService(at: endpoint.description, "\(error)")
        }
        guard response.status.kind == .successful else {
            let data = try await Data(collecting: responseBody ?? HTTPBody(), upTo: 1024 * 1024)
            throw Self.error(status: response.status.code, body: data)
        }
        return (response, responseBody)
    }

    /// The library error for an error answer: the service's code when it names a library
    /// condition, and for its own conditions the nearest one (a token problem is a locked vault).
    static func error(status: Int, body: Data) -> SharedWebCredentialsError {
        guard let parsed = try? JSONDecoder().decode(Components.Schemas._Error.self, from: body) else {
            return SharedWebCredentialsError(.internalError, "the service answered \(status) without an error body")
        }
        let code: SharedWebCredentialsError.Code =
            if let libraryCode = SharedWebCredentialsError.Code(rawValue: parsed.error.code) {
                libraryCode
            } else {
                switch parsed.error.code {
                case "invalid-token", "peer-refused", "owner-only", "owner-proof-failed", "invalid-owner-session":
                    .vaultLocked
                case "permission-denied": .missingEntitlement
                case "body-too-large", "invalid-json", "unsupported-media-type", "invalid-request": .invalidInput
                default: .internalError
                }
            }
        return SharedWebCredentialsError(code, parsed.error.message)
    }
}

extension SharedWebCredentialsError {
    /// Nothing answers at `place` (a socket path or URL): the service is not running there.
    static func noService(at place: String, _ reason: String) -> SharedWebCredentialsError {
        SharedWebCredentialsError(
            .vaultLocked,
            "no swcred service answers at \(place) (\(reason)): start it with `swcred serve`, or check --server / SWCRED_SERVER"
        )
    }
}
