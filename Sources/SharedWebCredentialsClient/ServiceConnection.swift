import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import NIOSSL
import SharedWebCredentials

/// HTTP to the service: JSON in and out, errors turned into ``SharedWebCredentialsError``.
final class ServiceConnection: Sendable {
    let endpoint: ServiceEndpoint
    private let httpClient: HTTPClient
    private let timeout: TimeAmount

    init(endpoint: ServiceEndpoint, caFile: String?, timeout: Duration) {
        self.endpoint = endpoint
        self.timeout = .seconds(timeout.components.seconds)
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        if let caFile {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.additionalTrustRoots = [.file(caFile)]
            configuration.tlsConfiguration = tls
        }
        httpClient = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    func shutdown() async throws {
        try await httpClient.shutdown()
    }

    /// Sends `body` (when given) as JSON with the bearer `token` (when given); returns the decoded
    /// answer, or nil for 204 No Content.
    func call<Response: Decodable>(
        _ method: HTTPMethod, _ route: String, body: (some Encodable)?, token: SecureBytes?
    ) async throws -> Response? {
        guard let url = endpoint.url(route) else {
            throw SharedWebCredentialsError(.invalidInput, "cannot make a URL for \(route) at \(endpoint)")
        }
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = method
        if let token { request.headers.add(name: "Authorization", value: "Bearer " + token.exposedString()) }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(data: try JSONEncoder().encode(body)))
        }
        let response: HTTPClientResponse
        let bytes: ByteBuffer
        do {
            response = try await httpClient.execute(request, timeout: timeout)
            bytes = try await response.body.collect(upTo: 64 * 1024 * 1024)
        } catch {
            throw SharedWebCredentialsError(
                .vaultLocked,
                "no swcred service answers at \(endpoint) (\(error)): start it with `swcred serve`, or check --server / SWCRED_SERVER"
            )
        }
        let data = Data(bytes.readableBytesView)
        if response.status == .noContent { return nil }
        guard response.status == .ok else { throw Self.error(status: response.status, body: data) }
        do {
            return try JSONDecoder().decode(Response.self, from: data)
        } catch {
            throw SharedWebCredentialsError(.internalError, "the service's answer to \(route) did not parse: \(error)")
        }
    }

    /// The library error for an error answer: the service's code when it names a library
    /// condition, and for its own conditions the nearest one (a token problem is a locked vault).
    static func error(status: HTTPResponseStatus, body: Data) -> SharedWebCredentialsError {
        struct ErrorBody: Decodable {
            struct Detail: Decodable {
                let code: String
                let message: String
            }
            let error: Detail
        }
        guard let parsed = try? JSONDecoder().decode(ErrorBody.self, from: body) else {
            return SharedWebCredentialsError(
                .internalError, "the service answered \(status.code) without an error body")
        }
        let code: SharedWebCredentialsError.Code =
            if let libraryCode = SharedWebCredentialsError.Code(rawValue: parsed.error.code) {
                libraryCode
            } else {
                switch parsed.error.code {
                case "invalid-token", "peer-refused", "owner-only": .vaultLocked
                case "permission-denied": .missingEntitlement
                case "body-too-large", "invalid-json", "unsupported-media-type": .invalidInput
                default: .internalError
                }
            }
        return SharedWebCredentialsError(code, parsed.error.message)
    }
}

/// A body-less request.
struct NoBody: Encodable {}
