import Foundation
import Hummingbird
import Logging
import NIOCore
import SharedWebCredentials

/// The routes under `/v1`: each authenticates the app's token, checks the permission, and then
/// calls the same `SharedWebCredentials` facade (and so the same gate) as the CLI.
struct VaultAPI: Sendable {
    let holder: VaultHolder
    let verifier: Verifier?
    let metrics: ServiceMetrics
    let policy: RecheckPolicy
    let throttle: FailedAuthenticationThrottle
    let bodyTimeout: Duration
    let consent: ConsentBroker
    let logger: Logger

    /// Adds every route to `router`.
    func register(on router: Router<ServiceRequestContext>) {
        router.get("/v1/health") { _, _ in
            try json(HealthBody(version: ServiceVersion.current, locked: holder.isLocked))
        }
        router.get("/metrics") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: metrics.exposition(locked: holder.isLocked))))
        }
        router.post("/v1/credentials/request") { request, context in try await requestCredentials(request, context) }
        router.put("/v1/credentials") { request, context in try await saveCredential(request, context) }
        router.delete("/v1/credentials") { request, context in try await deleteCredential(request, context) }
        router.post("/v1/passwords/generate") { request, context in try await generate(request, context) }
        router.get("/v1/associations") { request, context in try await associations(request, context) }
        router.post("/v1/lock") { request, context in try await lock(request, context) }
        router.post("/v1/unlock") { request, context in try await unlock(request, context) }
        router.get("/v1/consent/next") { request, _ in try await nextConsent(request) }
        router.post("/v1/consent/answer") { request, context in try await answerConsent(request, context) }
    }

    // MARK: Routes

    private func requestCredentials(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let body = try await decode(CredentialRequestBody.self, request, context)
        let caller = try await authenticate(request, context, permission: .request, claimedApp: body.app)
        let domain = try body.domain.map(parseDomain)
        if body.includeShared == true && domain == nil {
            throw APIError(
                status: .badRequest, code: SharedWebCredentialsError.Code.invalidInput.rawValue,
                message: "include_shared needs a domain: it adds the domains that share that one's sign-in")
        }
        let matches = try await gated(.request) {
            try await caller.facade.request(
                domain: domain, account: body.account, includeShared: body.includeShared ?? false)
        }
        if caller.token.consent == .ask {
            let approved = await consent.ask(
                app: caller.token.app.description, operation: "release",
                domain: Set(matches.map(\.server)).sorted().joined(separator: ", "),
                account: matches.map(\.account).joined(separator: ", "))
            guard approved else { throw Self.declined }
        }
        return try json(matches.map(ReleasedCredential.init))
    }

    private func saveCredential(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let body = try await decode(CredentialSaveBody.self, request, context)
        let caller = try await authenticate(request, context, permission: .add, claimedApp: body.app)
        let domain = try parseDomain(body.domain)
        let password = SecureBytes(utf8: body.password)
        return try await answeringPreview(confirmed: body.confirmed) {
            try await gated(.save) {
                try await caller.facade.add(domain: domain, account: body.account, password: password) { change in
                    try await confirm(change, caller: caller, confirmed: body.confirmed)
                }
            }
        }
    }

    private func deleteCredential(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let body = try await decode(CredentialDeleteBody.self, request, context)
        let caller = try await authenticate(request, context, permission: .delete, claimedApp: body.app)
        let domain = try parseDomain(body.domain)
        return try await answeringPreview(confirmed: body.confirmed) {
            try await gated(.delete) {
                try await caller.facade.delete(domain: domain, account: body.account) { change in
                    try await confirm(change, caller: caller, confirmed: body.confirmed)
                }
            }
        }
    }

    private func generate(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let body = try await decode(GenerateBody.self, request, context)
        let caller = try await authenticate(request, context, permission: .generate, claimedApp: body.app)
        let count = body.count ?? 1
        guard (1...ServiceLimits.maximumGenerateCount).contains(count) else {
            throw APIError(
                status: .badRequest, code: SharedWebCredentialsError.Code.invalidInput.rawValue,
                message: "count must be between 1 and \(ServiceLimits.maximumGenerateCount), not \(count)")
        }
        let style = try body.style.map { text in
            guard let style = PasswordStyle(rawValue: text) else {
                throw APIError(
                    status: .badRequest, code: SharedWebCredentialsError.Code.invalidInput.rawValue,
                    message:
                        "unknown style \"\(text)\": use one of \(PasswordStyle.allCases.map(\.rawValue).joined(separator: ", "))"
                )
            }
            return style
        }
        if style != nil && body.rules != nil {
            throw APIError(
                status: .badRequest, code: SharedWebCredentialsError.Code.invalidInput.rawValue,
                message: "give either style or rules: the rules choose the style")
        }
        if style != nil && body.domain != nil {
            throw APIError(
                status: .badRequest, code: SharedWebCredentialsError.Code.invalidInput.rawValue,
                message: "with a domain the site's rules choose the style; give rules to override them")
        }
        let rules = body.rules.map { PasswordRulesParser.parse($0).rules }
        let domain = try body.domain.map(parseDomain)
        let generator = try await gated(.generate) { () async throws -> PasswordGenerator in
            if let domain { return try await caller.facade.passwordGenerator(for: domain, rules: rules) }
            if let rules { return try PasswordGenerator(rules: rules) }
            return PasswordGenerator(style: style ?? .strong)
        }
        return try json((0..<count).map { _ in GeneratedPasswordBody(generator.next()) })
    }

    private func associations(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let caller = try await authenticate(
            request, context, permission: nil, claimedApp: request.uri.queryParameters["app"].map(String.init))
        let records = try librarySync { try caller.vault.associations.all(app: caller.token.app) }
        return try json(records.map { AssociationSummary($0, policy: policy) })
    }

    private func lock(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        holder.lock()
        logger.notice("vault locked on request")
        return try json(HealthBody(version: ServiceVersion.current, locked: true))
    }

    private func unlock(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let body = try await decode(UnlockBody.self, request, context)
        let secret: VaultSecret
        switch (body.passphrase, body.keyFile) {
        case (let passphrase?, nil): secret = .passphrase(SecureBytes(utf8: passphrase))
        case (nil, let path?): secret = .key(try librarySync { try KeyFile.read(at: path) })
        default:
            throw APIError(
                status: .badRequest, code: SharedWebCredentialsError.Code.invalidInput.rawValue,
                message: "give either passphrase or key_file")
        }
        do {
            try holder.unlock(with: secret)
        } catch let error as SharedWebCredentialsError {
            if error.code == .vaultLocked { await throttle.failed(on: ObjectIdentifier(context.channel)) }
            throw APIError(error)
        }
        throttle.reset(ObjectIdentifier(context.channel))
        logger.notice("vault unlocked on request")
        return try json(HealthBody(version: ServiceVersion.current, locked: false))
    }

    // MARK: Consent

    private static let declined = APIError(
        SharedWebCredentialsError(
            .declined,
            "declined: the vault owner declined, or did not answer in time in `swcred consent`; nothing was done"))

    /// A real change found while only asked what the change would be (`confirmed: false`): it
    /// stops the operation before anything is written, and before the owner is asked.
    private struct ConfirmationNeeded: Error {
        let kind: CredentialChange.Kind
    }

    /// Answers a change request: its outcome, or for `confirmed: false` and a real change
    /// `needs-confirmation` with the change it would make. A no-op (unchanged, nothing to
    /// delete) is answered as such either way, so a client asks its user only for real changes.
    private func answeringPreview(
        confirmed: Bool?, _ operation: () async throws -> CredentialChangeOutcome
    ) async throws -> Response {
        do {
            return try json(OutcomeBody(outcome: try await operation().rawValue))
        } catch let needed as ConfirmationNeeded {
            return try json(OutcomeBody(outcome: "needs-confirmation", change: needed.kind.rawValue))
        }
    }

    /// Whether a real change may happen: not while only previewing (`confirmed: false`), at
    /// once for a token without consent, else when the owner approves it in `swcred consent`
    /// before the timeout.
    private func confirm(_ change: CredentialChange, caller: Caller, confirmed: Bool?) async throws -> Bool {
        if confirmed == false { throw ConfirmationNeeded(kind: change.kind) }
        guard caller.token.consent == .ask else { return true }
        return await consent.ask(
            app: caller.token.app.description, operation: change.kind.rawValue, domain: change.domain.description,
            account: change.account)
    }

    /// `GET /v1/consent/next?wait=SECONDS`: the oldest waiting request, or 204 after the wait.
    private func nextConsent(_ request: Request) async throws -> Response {
        let wait = request.uri.queryParameters["wait"].flatMap { Int($0) } ?? 0
        guard (0...60).contains(wait) else {
            throw APIError(
                status: .badRequest, code: SharedWebCredentialsError.Code.invalidInput.rawValue,
                message: "wait must be 0 to 60 seconds")
        }
        guard let pending = await consent.next(wait: .seconds(wait)) else { return Response(status: .noContent) }
        return try json(pending)
    }

    /// `POST /v1/consent/answer` with `{"id", "approve"}`.
    private func answerConsent(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        struct Answer: Decodable {
            let id: String
            let approve: Bool
        }
        let answer = try await decode(Answer.self, request, context)
        guard consent.answer(id: answer.id, approve: answer.approve) else {
            throw APIError(
                status: .notFound, code: SharedWebCredentialsError.Code.itemNotFound.rawValue,
                message: "no request \(answer.id) is waiting: it was answered or timed out")
        }
        logger.notice("consent answered", metadata: ["approved": "\(answer.approve)"])
        return try json(OutcomeBody(outcome: answer.approve ? "approved" : "declined"))
    }

    // MARK: Authentication

    /// Who a request acts for: its token's record, the vault, and the facade for its app.
    struct Caller {
        let token: AppTokenRecord
        let vault: Vault
        let facade: SharedWebCredentials
    }

    /// Checks the bearer token (constant-time, keyed hash), the permission and, when the body
    /// names an app, that it is the token's app. Failures are slowed down per connection.
    private func authenticate(
        _ request: Request, _ context: ServiceRequestContext, permission: AppPermission?, claimedApp: String?
    ) async throws -> Caller {
        let connection = ObjectIdentifier(context.channel)
        let vault = try holder.vault()
        do {
            guard let header = request.headers[.authorization] else {
                throw APIError.invalidToken(
                    "no app token: send Authorization: Bearer TOKEN with a token from `swcred app token create`")
            }
            guard header.count > 7, header.prefix(7).lowercased() == "bearer " else {
                throw APIError.invalidToken(
                    "the Authorization header is not a bearer token: send Authorization: Bearer TOKEN")
            }
            let token = SecureBytes(utf8: String(header.dropFirst(7)))
            let record: AppTokenRecord
            do {
                record = try vault.appTokens.authenticate(token)
            } catch let error as SharedWebCredentialsError where error.code == .vaultLocked {
                if (try? vault.isKeyCurrent()) == false {
                    holder.lock()
                    logger.warning("the vault key was rotated by another process: locked until unlocked again")
                    throw APIError(
                        status: APIError.locked.status, code: APIError.locked.code,
                        message:
                            "the vault key was rotated by another process (swcred rekey), which revoked every app token: the owner unlocks the service again with `swcred unlock` and makes new tokens"
                    )
                }
                throw APIError.invalidToken(error.message)
            }
            if let claimedApp, claimedApp != record.app.description {
                throw APIError.invalidToken(
                    "this app token belongs to \(record.app), not to \(claimedApp): use the token made for \(claimedApp)"
                )
            }
            throttle.reset(connection)
            if let permission, !record.permissions.contains(permission) {
                throw APIError.permissionDenied(permission)
            }
            context.logger.debug("authenticated", metadata: ["app": "\(record.app)"])
            let facade = SharedWebCredentials(app: record.app, vault: vault, verifier: verifier, policy: policy)
            return Caller(token: record, vault: vault, facade: facade)
        } catch let error as APIError where error.status == .unauthorized {
            context.channel.closeFuture.whenComplete { [throttle] _ in throttle.reset(connection) }
            await throttle.failed(on: connection)
            throw error
        } catch let error as SharedWebCredentialsError {
            throw APIError(error)
        }
    }

    // MARK: Bodies

    /// Reads the whole JSON body (at most 64 KiB, within the body timeout) and decodes it.
    private func decode<Body: Decodable>(
        _ type: Body.Type, _ request: Request, _ context: ServiceRequestContext
    ) async throws -> Body {
        guard let contentType = request.headers[.contentType],
            contentType.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
                == "application/json"
        else { throw APIError.unsupportedMediaType }
        let buffer = try await collectBody(request)
        do {
            return try JSONDecoder().decode(Body.self, from: Data(buffer.readableBytesView))
        } catch let error as DecodingError {
            throw APIError.invalidJSON(Self.describe(error))
        }
    }

    private func collectBody(_ request: Request) async throws -> ByteBuffer {
        let timeout = bodyTimeout
        return try await withThrowingTaskGroup(of: ByteBuffer?.self) { group in
            group.addTask {
                do {
                    return try await request.body.collect(upTo: ServiceLimits.maximumBodySize)
                } catch is NIOTooManyBytesError {
                    throw APIError.bodyTooLarge
                }
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let buffer = first else { throw APIError.requestTimeout }
            return buffer
        }
    }

    private static func describe(_ error: DecodingError) -> String {
        switch error {
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "it does not parse" : "bad value at \(path(context.codingPath))"
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

    // MARK: Helpers

    private func parseDomain(_ text: String) throws -> DomainTarget {
        try librarySync { try DomainTarget(text, allowDeveloperHosts: true) }
    }

    /// Runs a call of the gate, counting its decision, and turns its errors into API errors; an
    /// operation that finds the vault key rotated elsewhere locks the service, so that it never
    /// writes with a stale key.
    private func gated<T>(_ operation: GateOperation, _ body: () async throws -> T) async throws -> T {
        do {
            let result = try await body()
            metrics.recordGateDecision(operation: operation, outcome: "allowed")
            return result
        } catch let error as SharedWebCredentialsError {
            metrics.recordGateDecision(operation: operation, outcome: error.code.rawValue)
            if error.code == .vaultLocked { holder.lock() }
            throw APIError(error)
        }
    }

    private func librarySync<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SharedWebCredentialsError {
            if error.code == .vaultLocked { holder.lock() }
            throw APIError(error)
        }
    }
}

/// A 200 response with `value` as JSON.
func json(_ value: some Encodable) throws -> Response {
    let data = try ServiceJSON.encoder.encode(value)
    return Response(
        status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
}
