import Foundation
import HTTPTypes
import OpenAPIRuntime
import SharedWebCredentials

/// An error answer of the service: one JSON shape, `{"error": {"code": ..., "message": ...}}`,
/// with a status that fits and a code that names the condition (the same as the CLI's exit code
/// names, DESIGN.md "Exit codes"). Messages say what to do and never carry a secret, an account
/// name or a token.
struct APIError: Error, Sendable {
    let status: HTTPResponse.Status
    let code: String
    let message: String
    /// The methods a path takes, for a 405's `Allow` header.
    var allow: [HTTPRequest.Method] = []
    /// When to try again, for a 503's `Retry-After` header: the condition passes by itself (a
    /// writer finishes, a database comes back), so the client waits and repeats the request.
    var retryAfterSeconds: Int?

    /// The condition of a library error, with the status DESIGN.md gives it.
    init(_ error: SharedWebCredentialsError) {
        message = error.message
        code = error.code.rawValue
        status = Self.status(for: error.code)
        if status == .serviceUnavailable { retryAfterSeconds = Self.retryAfterSeconds }
    }

    init(status: HTTPResponse.Status, code: String, message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    /// The HTTP status for each library error code.
    static func status(for code: SharedWebCredentialsError.Code) -> HTTPResponse.Status {
        switch code {
        case .invalidInput: .badRequest
        case .missingEntitlement, .notApproved, .declined: .forbidden
        case .itemNotFound: .notFound
        case .neverSave: .conflict
        case .vaultLocked: .init(code: 423, reasonPhrase: "Locked")
        case .networkFailure: .badGateway
        // Storage that cannot be reached or written (a PostgreSQL server restarting, a full disk)
        // changed nothing, and the service reconnects by itself: a client should try again.
        case .vaultBusy, .storageFailure: .serviceUnavailable
        case .internalError, .vaultNotFound, .vaultExists, .integrityFailure: .internalServerError
        }
    }

    /// The `Retry-After` of a 503: long enough for a writer's transaction or a database restart
    /// to finish, short enough that an app's user does not notice.
    static let retryAfterSeconds = 1

    // MARK: The service's own conditions

    static func invalidToken(_ message: String) -> APIError {
        APIError(status: .unauthorized, code: "invalid-token", message: message)
    }

    static func permissionDenied(_ permission: AppPermission) -> APIError {
        APIError(
            status: .forbidden, code: "permission-denied",
            message:
                "this app token is not allowed to \(permission.rawValue): ask the vault owner for a token with --allow \(permission.rawValue)"
        )
    }

    static let bodyTooLarge = APIError(
        status: .contentTooLarge, code: "body-too-large",
        message: "the request body is larger than \(ServiceLimits.maximumBodySize) bytes")

    static func invalidJSON(_ detail: String) -> APIError {
        APIError(
            status: .badRequest, code: "invalid-json",
            message: "the request body is not valid JSON for this route: \(detail)")
    }

    /// What is wrong with a JSON body, by its path, without any of its values.
    static func describe(_ error: DecodingError) -> String {
        switch error {
        case .dataCorrupted(let context) where context.debugDescription.hasPrefix("Additional properties"):
            return
                "unknown member \"\(path(context.codingPath))\": API/openapi.yaml lists the members this route takes"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty
                ? "it does not parse"
                : "bad value at \"\(path(context.codingPath))\": API/openapi.yaml lists the values it takes"
        case .keyNotFound(let key, let context):
            return "missing field \"\(path(context.codingPath + [key]))\""
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "wrong type at \"\(path(context.codingPath))\""
        @unknown default:
            return "it does not match"
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }

    static let unsupportedMediaType = APIError(
        status: .unsupportedMediaType, code: "unsupported-media-type",
        message: "send the request body as JSON with Content-Type: application/json")

    static let requestTimeout = APIError(
        status: .requestTimeout, code: "request-timeout",
        message: "the request body did not arrive in time; send the whole request at once")

    static let locked = APIError(
        status: .init(code: 423, reasonPhrase: "Locked"), code: SharedWebCredentialsError.Code.vaultLocked.rawValue,
        message: "the service's vault is locked: the owner unlocks it with `swcred unlock`")

    static func peerRefused(uid: UInt32) -> APIError {
        APIError(
            status: .forbidden, code: "peer-refused",
            message:
                "connections from uid \(uid) are refused: the service serves its own user unless started with --allow-uid \(uid)"
        )
    }

    /// The JSON body of this error.
    var body: Data {
        struct Body: Encodable {
            struct Detail: Encodable {
                let code: String
                let message: String
            }
            let error: Detail
        }
        return (try? ServiceJSON.encoder.encode(Body(error: .init(code: code, message: message)))) ?? Data()
    }
}

/// The service's fixed limits.
enum ServiceLimits {
    /// The largest request body accepted (413 beyond).
    static let maximumBodySize = 64 * 1024
    /// The most passwords one generate call returns.
    static let maximumGenerateCount = 1000
    /// The longest account, password or password rules, in Unicode scalars (as JSON Schema's
    /// `maxLength` counts), as API/openapi.yaml documents.
    static let maximumFieldLength = 4096

    /// Refuses `text` when it is shorter than `minimum` or longer than ``maximumFieldLength``.
    static func requireLength(_ text: String?, of field: String, minimum: Int = 1) throws(APIError) {
        guard let text else { return }
        let length = text.unicodeScalars.count
        guard length >= minimum, length <= maximumFieldLength else {
            throw APIError(
                status: .badRequest, code: SharedWebCredentialsError.Code.invalidInput.rawValue,
                message: length < minimum
                    ? "\(field) is empty: give at least one character"
                    : "\(field) is \(length) characters long; the most is \(maximumFieldLength)")
        }
    }
}

/// The paths of API/openapi.yaml and the methods each takes: a known path asked with another
/// method is 405 with an `Allow` header, not 404 (RFC 9110). ServiceContractTests checks this
/// table against the document.
enum ServiceRoutes {
    static let methods: [String: [HTTPRequest.Method]] = [
        "/v1/health": [.get], "/metrics": [.get], "/v1/credentials/request": [.post],
        "/v1/credentials": [.put, .delete], "/v1/passwords/generate": [.post], "/v1/passkeys/create": [.post],
        "/v1/passkeys/get": [.post],
        "/v1/associations": [.get],
        "/v1/lock": [.post], "/v1/unlock": [.post], "/v1/consent/next": [.get], "/v1/consent/answer": [.post],
        "/v1/owner/challenge": [.post], "/v1/owner/session": [.post],
    ]
}

/// The JSON the service writes: sorted keys, unescaped slashes, compact, as the CLI prints.
enum ServiceJSON {
    /// For the generated routes; times in ISO 8601.
    static let configuration = Configuration(
        dateTranscoder: .iso8601, jsonEncodingOptions: [.sortedKeys, .withoutEscapingSlashes])

    /// For the error bodies ``ServiceMiddleware`` writes.
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}
