import Foundation
import Glibc
import Hummingbird
import Logging
import OpenAPIHummingbird
import OpenAPIRuntime
import SharedWebCredentials
import SwcredAPI
import SwcredHardening

/// The routes of API/openapi.yaml, on the protocol generated from it (Scripts/openapi): each app
/// route authenticates the app's token, checks the permission, and then calls the same
/// `SharedWebCredentials` facade (and so the same gate) as the CLI. Failures are thrown as
/// ``APIError``; ``ServiceMiddleware`` answers them in the one error shape.
struct VaultAPI: APIProtocol {
    let holder: VaultHolder
    let verifier: Verifier?
    let metrics: ServiceMetrics
    let policy: RecheckPolicy
    let throttle: FailedAuthenticationThrottle
    let consent: ConsentBroker
    /// The owner's proof and sessions; its throttle also slows down wrong unlocks.
    let owner: OwnerAuthority
    /// Whether `/metrics` on the TLS listener is served without an app token.
    let metricsWithoutToken: Bool
    /// The audit entries of unlocks, locks and consent decisions.
    let trail: OwnerAuditTrail
    let logger: Logger

    /// Adds every route of the document to `router`.
    func register(on router: Router<ServiceRequestContext>) throws {
        try registerHandlers(on: router, configuration: ServiceJSON.configuration)
    }

    // MARK: Unauthenticated

    /// The version and lock state; to the owner's uid on the socket, the process's hardening too.
    func health(_ input: Operations.Health.Input) async throws -> Operations.Health.Output {
        let isOwnersUID = try RequestScope.require().peer?.uid == getuid()
        return .ok(
            .init(
                body: .json(
                    .init(
                        version: ServiceVersion.current, locked: holder.isLocked,
                        hardening: isOwnersUID ? Self.hardening() : nil))))
    }

    /// The exposition: open to the service's own uid on the socket; to anyone else (the TLS
    /// listener, an `--allow-uid` peer) only with a token that has the `metrics` permission,
    /// unless `--metrics-without-token`.
    func metrics(_ input: Operations.Metrics.Input) async throws -> Operations.Metrics.Output {
        if try RequestScope.require().peer?.uid != getuid() && !metricsWithoutToken {
            // They count every app's requests and the owner's consent decisions: an app's own
            // token does not show them, only one made for monitoring (`--allow metrics`).
            _ = try await authenticate(permission: .metrics, claimedApp: nil)
        }
        let vault = holder.peekVault()
        return .ok(
            .init(
                body: .plainText(
                    HTTPBody(
                        metrics.exposition(
                            locked: holder.isLocked, audit: vault?.audit.commitStatistics,
                            transactions: vault?.transactionCounts)))))
    }

    private static func hardening() -> Components.Schemas.Hardening {
        let memoryLocked: Bool =
            switch SecretMemory.lockState {
            case .failed: false
            case .locked, .unused: true
            }
        return .init(
            dumpable: ProcessHardening.isDumpable, coreDumps: ProcessHardening.coreDumpsPossible,
            memoryLocked: memoryLocked, passphraseInEnvironment: getenv("SWCRED_PASSPHRASE") != nil)
    }

    // MARK: The gated operations

    func requestCredentials(
        _ input: Operations.RequestCredentials.Input
    ) async throws -> Operations.RequestCredentials.Output {
        guard case .json(let body) = input.body else { throw APIError.unsupportedMediaType }
        // The request's first read is done in the token's transaction when the body is well formed
        // and the token may ask for it; any refusal comes below, in the usual order.
        let caller = try await authenticate(
            permission: .request, claimedApp: body.app,
            prefetching: (domain: body.domain, account: body.account, includeShared: body.includeShared))
        try ServiceLimits.requireLength(body.account, of: "account")
        // Parsed once: the read done ahead parsed the same text.
        let domain = try caller.prefetched?.domain ?? body.domain.map(parseDomain)
        if body.includeShared == true && domain == nil {
            throw APIError(
                status: .badRequest, code: SharedWebCredentialsError.Code.invalidInput.rawValue,
                message: "include_shared needs a domain: it adds the domains that share that one's sign-in")
        }
        let matches = try await gated(.request) {
            try await caller.facade.request(
                domain: domain, account: body.account, includeShared: body.includeShared ?? false,
                prefetched: caller.prefetched
            ) { matches in
                guard caller.token.consent == .ask else { return }
                let servers = Set(
                    matches.map { match in match.port.map { "\(match.server):\($0)" } ?? match.server })
                guard
                    try await askOwner(
                        caller, operation: .release, domain: servers.sorted().joined(separator: ", "),
                        account: matches.map(\.account).joined(separator: ", "))
                else { throw Self.declinedError }
            }
        }
        return .ok(
            .init(
                body: .json(
                    matches.map {
                        .init(
                            server: $0.server, account: $0.account, password: $0.password.exposedString(),
                            port: $0.port)
                    })))
    }

    func saveCredential(_ input: Operations.SaveCredential.Input) async throws -> Operations.SaveCredential.Output {
        guard case .json(let body) = input.body else { throw APIError.unsupportedMediaType }
        let caller = try await authenticate(permission: .add, claimedApp: body.app)
        try ServiceLimits.requireLength(body.account, of: "account")
        try ServiceLimits.requireLength(body.password, of: "password")
        let domain = try parseDomain(body.domain)
        let password = SecureBytes(utf8: body.password)
        let outcome = try await answeringPreview(confirmed: body.confirmed) {
            try await gated(.save) {
                try await caller.facade.add(domain: domain, account: body.account, password: password) { change in
                    try await confirm(change, caller: caller, confirmed: body.confirmed)
                }
            }
        }
        return .ok(.init(body: .json(outcome)))
    }

    func deleteCredential(
        _ input: Operations.DeleteCredential.Input
    ) async throws -> Operations.DeleteCredential.Output {
        guard case .json(let body) = input.body else { throw APIError.unsupportedMediaType }
        let caller = try await authenticate(permission: .delete, claimedApp: body.app)
        try ServiceLimits.requireLength(body.account, of: "account")
        let domain = try parseDomain(body.domain)
        let outcome = try await answeringPreview(confirmed: body.confirmed) {
            try await gated(.delete) {
                try await caller.facade.delete(domain: domain, account: body.account) { change in
                    try await confirm(change, caller: caller, confirmed: body.confirmed)
                }
            }
        }
        return .ok(.init(body: .json(outcome)))
    }

    func generatePasswords(
        _ input: Operations.GeneratePasswords.Input
    ) async throws -> Operations.GeneratePasswords.Output {
        guard case .json(let body) = input.body else { throw APIError.unsupportedMediaType }
        let caller = try await authenticate(permission: .generate, claimedApp: body.app)
        try ServiceLimits.requireLength(body.rules, of: "rules", minimum: 0)
        let count = body.count ?? 1
        guard (1...ServiceLimits.maximumGenerateCount).contains(count) else {
            throw APIError(
                status: .badRequest, code: SharedWebCredentialsError.Code.invalidInput.rawValue,
                message: "count must be between 1 and \(ServiceLimits.maximumGenerateCount), not \(count)")
        }
        let style = try body.style.map { payload in
            guard let style = PasswordStyle(rawValue: payload.rawValue) else {
                throw APIError(
                    status: .internalServerError, code: "internal",
                    message:
                        "API/openapi.yaml names a style \"\(payload.rawValue)\" that the generator does not have")
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
        return .ok(
            .init(
                body: .json(
                    (0..<count).map { _ in
                        let generated = generator.next()
                        return .init(
                            password: generated.password, style: generated.style.rawValue,
                            entropyBits: generated.entropyBits)
                    })))
    }

    func associations(_ input: Operations.Associations.Input) async throws -> Operations.Associations.Output {
        let caller = try await authenticate(permission: nil, claimedApp: input.query.app, readingVerdicts: true)
        let now = Date()
        return .ok(.init(body: .json(try caller.verdicts.map { try association($0, at: now) })))
    }

    // MARK: The owner's routes

    func lock(_ input: Operations.Lock.Input) async throws -> Operations.Lock.Output {
        let scope = try RequestScope.require()
        await trail.locked(holder.peekVault(), by: .owner, detail: "on request from \(Self.describe(scope.peer))")
        holder.lock()
        logger.notice("vault locked on request", metadata: peerMetadata(scope))
        return .ok(.init(body: .json(.init(version: ServiceVersion.current, locked: true))))
    }

    func unlock(_ input: Operations.Unlock.Input) async throws -> Operations.Unlock.Output {
        guard case .json(let body) = input.body else { throw APIError.unsupportedMediaType }
        let scope = try RequestScope.require()
        let secret: VaultSecret
        switch (body.passphrase, body.key) {
        case (let passphrase?, nil): secret = .passphrase(SecureBytes(utf8: passphrase))
        case (nil, let text?):
            guard let key = KeyFile.key(fromText: text) else {
                throw APIError(
                    status: .badRequest, code: SharedWebCredentialsError.Code.invalidInput.rawValue,
                    message:
                        "key is not a key file's 32 bytes in base64url without padding (\(KeyFile.textLength) characters)"
                )
            }
            secret = .key(key)
        default:
            throw APIError(
                status: .badRequest, code: SharedWebCredentialsError.Code.invalidInput.rawValue,
                message: "give either passphrase or key (a key file's bytes), not both and not neither")
        }
        try await owner.throttle.waitForTurn()
        do {
            try await BlockingWork.run { [holder] in try holder.unlock(with: secret) }
        } catch let error as SharedWebCredentialsError {
            if error.code == .vaultLocked {
                await owner.throttle.failed()
                trail.failedUnlock(peer: Self.describe(scope.peer))
                logger.warning("unlock refused: wrong passphrase or key", metadata: peerMetadata(scope))
            }
            throw APIError(error)
        }
        await owner.throttle.succeeded()
        do {
            try await trail.unlocked(try holder.vault(), peer: Self.describe(scope.peer))
        } catch let error as SharedWebCredentialsError {
            // An unlock is never left unrecorded: without its entry the vault stays locked.
            holder.lock()
            throw APIError(error)
        } catch {
            holder.lock()
            throw error
        }
        logger.notice("vault unlocked on request", metadata: peerMetadata(scope))
        return .ok(.init(body: .json(.init(version: ServiceVersion.current, locked: false))))
    }

    /// A challenge for the owner's proof.
    func ownerChallenge(_ input: Operations.OwnerChallenge.Input) async throws -> Operations.OwnerChallenge.Output {
        // The owner's routes are served on the Unix socket only, where every peer has credentials.
        guard let peer = try RequestScope.require().peer else {
            throw APIError(
                status: .forbidden, code: "owner-only",
                message: "/v1/owner/challenge is the vault owner's, served on the Unix socket only")
        }
        let challenge = try owner.challenge(for: peer.pid)
        return .ok(
            .init(
                body: .json(
                    .init(
                        challenge: OwnerProof.text(challenge),
                        expiresIn: Int(OwnerAuthority.challengeLifetime.components.seconds)))))
    }

    /// An owner session for a right answer to a challenge.
    func ownerSession(_ input: Operations.OwnerSession.Input) async throws -> Operations.OwnerSession.Output {
        guard case .json(let body) = input.body else { throw APIError.unsupportedMediaType }
        let scope = try RequestScope.require()
        guard let challenge = OwnerProof.bytes(fromText: body.challenge), challenge.count == OwnerProof.length,
            let proof = OwnerProof.bytes(fromText: body.proof), proof.count == OwnerProof.length
        else {
            throw APIError(
                status: .badRequest, code: SharedWebCredentialsError.Code.invalidInput.rawValue,
                message: "challenge and proof are each 32 bytes in base64url without padding (43 characters)")
        }
        do {
            let session = try await owner.openSession(challenge: challenge, proof: proof)
            logger.notice("owner proved the passphrase: session opened", metadata: peerMetadata(scope))
            return .ok(
                .init(
                    body: .json(
                        .init(session: session, expiresIn: Int(OwnerAuthority.sessionLifetime.components.seconds)))))
        } catch let error as APIError where error.code == "owner-proof-failed" {
            logger.warning("owner proof refused", metadata: peerMetadata(scope))
            throw error
        }
    }

    /// Refuses the owner's session routes, and locks, once another process changed the
    /// passphrase or the vault key: a session of the earlier unlock must not answer for the owner
    /// (``UnlockWatcher`` locks within a second anyway; this closes that second).
    private func requireUnlockUnchanged() async throws {
        guard await UnlockWatcher.lockIfUnlockChanged(holder: holder, trail: trail, logger: logger) else { return }
        throw APIError(
            status: APIError.locked.status, code: APIError.locked.code,
            message: "\(UnlockWatcher.detail): the owner unlocks the service again with `swcred unlock`")
    }

    /// `GET /v1/consent/next?wait=SECONDS`: the oldest waiting request, or 204 after the wait.
    func nextConsentRequest(
        _ input: Operations.NextConsentRequest.Input
    ) async throws -> Operations.NextConsentRequest.Output {
        try await requireUnlockUnchanged()
        try owner.requireSession(authorization: try RequestScope.require().authorization)
        let wait = input.query.wait ?? 0
        guard (0...60).contains(wait) else {
            throw APIError(
                status: .badRequest, code: SharedWebCredentialsError.Code.invalidInput.rawValue,
                message: "wait must be 0 to 60 seconds")
        }
        guard let pending = await consent.next(wait: .seconds(wait)) else { return .noContent(.init()) }
        return .ok(.init(body: .json(pending)))
    }

    func answerConsentRequest(
        _ input: Operations.AnswerConsentRequest.Input
    ) async throws -> Operations.AnswerConsentRequest.Output {
        guard case .json(let answer) = input.body else { throw APIError.unsupportedMediaType }
        try await requireUnlockUnchanged()
        try owner.requireSession(authorization: try RequestScope.require().authorization)
        let answeredBy = "an owner session, " + Self.describe(try RequestScope.require().peer)
        // A name counts for a browser's association only (checked as `swcred consent` checks it);
        // for any other request it is ignored, as `remember` is for an app's.
        let isAssociation = consent.waitingOperation(id: answer.id) == .browserAssociate
        if isAssociation, let name = answer.name {
            do {
                try BrowserAssociation.validate(name: name)
            } catch let error as SharedWebCredentialsError {
                throw APIError(error)
            }
        }
        let details = ConsentBroker.Details(
            name: isAssociation ? answer.name : nil, remember: answer.remember ?? false)
        guard consent.answer(id: answer.id, approve: answer.approve, answeredBy: answeredBy, details: details) else {
            throw APIError(
                status: .notFound, code: SharedWebCredentialsError.Code.itemNotFound.rawValue,
                message: "no request \(answer.id) is waiting: it was answered or timed out")
        }
        logger.notice("consent answered", metadata: ["approved": "\(answer.approve)"])
        return .ok(.init(body: .json(.init(outcome: answer.approve ? .approved : .declined))))
    }

    // MARK: Consent

    static let declinedError = SharedWebCredentialsError(
        .declined,
        "declined: the vault owner declined, or did not answer in time in `swcred consent`; nothing was done")

    /// Asks the owner about an app's change or release and records the answer (or the timeout)
    /// in the audit log before anything happens; true when approved.
    func askOwner(
        _ caller: Caller, operation: ConsentBroker.Operation, domain: String, account: String?
    )
        async throws -> Bool
    {
        let decision = await consent.ask(
            app: caller.token.app.description, operation: operation, domain: domain, account: account)
        try await trail.consent(
            decision, vault: caller.vault, app: caller.token.app, operation: operation.rawValue, domain: domain,
            account: account)
        if case .approved = decision { return true }
        return false
    }

    /// A peer as the log and the audit log name it: its pid and uid, or the TLS listener.
    static func describe(_ peer: PeerCredentials?) -> String {
        peer.map { "pid \($0.pid), uid \($0.uid)" } ?? "the TLS listener"
    }

    /// A real change found while only asked what the change would be (`confirmed: false`): it
    /// stops the operation before anything is written, and before the owner is asked.
    private struct ConfirmationNeeded: Error {
        let kind: CredentialChange.Kind
    }

    /// The outcome of a change request, or for `confirmed: false` and a real change
    /// `needs-confirmation` with the change it would make. A no-op (unchanged, nothing to
    /// delete) is answered as such either way, so a client asks its user only for real changes.
    private func answeringPreview(
        confirmed: Bool?, _ operation: () async throws -> CredentialChangeOutcome
    ) async throws -> Components.Schemas.Outcome {
        do {
            let outcome = try await operation()
            return .init(
                outcome: try Self.payload(outcome.rawValue, as: Components.Schemas.Outcome.OutcomePayload.self))
        } catch let needed as ConfirmationNeeded {
            return .init(
                outcome: .needsConfirmation,
                change: try Self.payload(needed.kind.rawValue, as: Components.Schemas.Outcome.ChangePayload.self))
        }
    }

    /// Whether a real change may happen: not while only previewing (`confirmed: false`), at
    /// once for a token without consent, else when the owner approves it in `swcred consent`
    /// before the timeout.
    private func confirm(_ change: CredentialChange, caller: Caller, confirmed: Bool?) async throws -> Bool {
        if confirmed == false { throw ConfirmationNeeded(kind: change.kind) }
        guard caller.token.consent == .ask else { return true }
        return try await askOwner(
            caller, operation: try Self.payload(change.kind.rawValue, as: ConsentBroker.Operation.self),
            domain: change.domain.description, account: change.account)
    }

    // MARK: Authentication

    /// Who a request acts for: its token's record, the vault, and the facade for its app.
    struct Caller {
        let token: AppTokenRecord
        let vault: Vault
        let facade: SharedWebCredentials
        /// The request's first read, done in the token's transaction (credential requests only).
        var prefetched: SharedWebCredentials.PrefetchedRequest? = nil
        /// A passkey assertion's first read, done in the token's transaction.
        var prefetchedRelyingParty: SharedWebCredentials.PrefetchedRelyingParty? = nil
        /// The app's stored verdicts, read in the token's transaction when ``authenticate`` was
        /// asked to (`readingVerdicts`); empty otherwise.
        var verdicts: [AssociationRecord] = []
    }

    /// What a credential request reads ahead in its token's transaction: its domain's app,
    /// verdict and credentials, for a token of the app the body names (if any) with the request
    /// permission; nil for a body the checks below refuse anyway.
    private func prefetchPlan(
        _ request: CredentialRequest?, claimedApp: String?, vault: Vault
    ) -> AppTokenStore.RequestPrefetch? {
        guard let request, request.includeShared != true, let domain = request.domain,
            let target = try? DomainTarget(domain, allowDeveloperHosts: true),
            request.account.map({ !$0.isEmpty && $0.count <= ServiceLimits.maximumFieldLength }) ?? true
        else { return nil }
        let (verifier, policy) = (verifier, policy)
        return AppTokenStore.RequestPrefetch(domain: target, account: request.account) { record in
            guard record.permissions.contains(.request), claimedApp == nil || claimedApp == record.app.description
            else { return nil }
            return SharedWebCredentials(app: record.app, vault: vault, verifier: verifier, policy: policy)
        }
    }

    /// What a passkey assertion reads ahead in its token's transaction: the app, the RP's
    /// verdict and passkeys, for a token with the passkey-get permission.
    private func relyingPartyPlan(_ rpID: String, vault: Vault) -> AppTokenStore.RelyingPartyPrefetch {
        let (verifier, policy) = (verifier, policy)
        return AppTokenStore.RelyingPartyPrefetch(relyingParty: rpID) { record in
            guard record.permissions.contains(.passkeyGet) else { return nil }
            return SharedWebCredentials(app: record.app, vault: vault, verifier: verifier, policy: policy)
        }
    }

    /// A credential request's body fields that its first read needs.
    typealias CredentialRequest = (domain: String?, account: String?, includeShared: Bool?)

    /// Checks the bearer token (constant-time, keyed hash), the permission and, when the body
    /// names an app, that it is the token's app. Failures are slowed down per connection. A
    /// credential request's (`request`) or a passkey assertion's (`relyingParty`, the RP ID its
    /// options name) first read is done in the token's transaction, and so is the read of the
    /// app's stored verdicts (`readingVerdicts`).
    func authenticate(
        permission: AppPermission?, claimedApp: String?, prefetching request: CredentialRequest? = nil,
        prefetchingRelyingParty relyingParty: String? = nil, readingVerdicts: Bool = false
    ) async throws -> Caller {
        let scope = try RequestScope.require()
        let vault = try holder.vault()
        do {
            guard let header = scope.authorization else {
                throw APIError.invalidToken(
                    "no app token: send Authorization: Bearer TOKEN with a token from `swcred app token create`")
            }
            // `Bearer ` alone never arrives: the HTTP parser drops a value's trailing space.
            guard header.prefix(7).lowercased() == "bearer " else {
                throw APIError.invalidToken(
                    "the Authorization header is not a bearer token: send Authorization: Bearer TOKEN")
            }
            let token = SecureBytes(utf8: String(header.dropFirst(7)))
            let record: AppTokenRecord
            var prefetched: SharedWebCredentials.PrefetchedRequest?
            var prefetchedRelyingParty: SharedWebCredentials.PrefetchedRelyingParty?
            var verdicts: [AssociationRecord] = []
            do {
                if readingVerdicts {
                    (record, verdicts) = try await vault.appTokens.authenticateReadingVerdicts(token)
                } else if let prefetch = prefetchPlan(request, claimedApp: claimedApp, vault: vault) {
                    (record, prefetched) = try await vault.appTokens.authenticate(token, prefetching: prefetch)
                } else if let relyingParty {
                    (record, prefetchedRelyingParty) = try await vault.appTokens.authenticate(
                        token, prefetching: relyingPartyPlan(relyingParty, vault: vault))
                } else {
                    record = try await vault.appTokens.authenticate(token)
                }
            } catch let error as SharedWebCredentialsError where error.code == .vaultLocked {
                if (try? await BlockingWork.run({ try vault.isUnlockCurrent() })) == false {
                    await trail.locked(vault, by: .service, detail: UnlockWatcher.detail)
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
            throttle.reset(scope.connection)
            if let permission, !record.permissions.contains(permission) {
                throw APIError.permissionDenied(permission)
            }
            logger.debug("authenticated", metadata: ["app": "\(record.app)"])
            let facade = SharedWebCredentials(app: record.app, vault: vault, verifier: verifier, policy: policy)
            return Caller(
                token: record, vault: vault, facade: facade, prefetched: prefetched,
                prefetchedRelyingParty: prefetchedRelyingParty, verdicts: verdicts)
        } catch let error as APIError where error.status == .unauthorized {
            let connection = scope.connection
            scope.channel.closeFuture.whenComplete { [throttle] _ in throttle.reset(connection) }
            await throttle.failed(on: connection)
            throw error
        } catch let error as SharedWebCredentialsError {
            throw APIError(error)
        }
    }

    // MARK: Helpers

    /// The peer's pid and uid for a log line about the owner's routes.
    private func peerMetadata(_ scope: RequestScope) -> Logger.Metadata {
        guard let peer = scope.peer else { return ["peer": "tcp"] }
        return ["peer_pid": "\(peer.pid)", "peer_uid": "\(peer.uid)"]
    }

    private func parseDomain(_ text: String) throws -> DomainTarget {
        try librarySync { try DomainTarget(text, allowDeveloperHosts: true) }
    }

    /// Runs a call of the gate, counting its decision, and turns its errors into API errors; an
    /// operation that finds the vault key rotated elsewhere locks the service, so that it never
    /// writes with a stale key.
    func gated<T>(_ operation: GateOperation, _ body: () async throws -> T) async throws -> T {
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

    /// `body`, a library call that touches no vault (a parser), its error as the API's.
    private func librarySync<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SharedWebCredentialsError {
            throw APIError(error)
        }
    }

    /// The API's value for a library value of the same name; a name the document lacks is a bug.
    private static func payload<Payload: RawRepresentable<String>>(
        _ rawValue: String, as _: Payload.Type
    ) throws
        -> Payload
    {
        guard let payload = Payload(rawValue: rawValue) else {
            throw APIError(
                status: .internalServerError, code: "internal",
                message: "API/openapi.yaml lacks the value \"\(rawValue)\"; see the log")
        }
        return payload
    }

    /// A verdict in the API's shape: the verdict that may be acted on now, as
    /// ``AssociationSummary`` shows it to the CLI.
    private func association(_ record: AssociationRecord, at now: Date) throws -> Components.Schemas.Association {
        .init(
            service: record.service.rawValue, app: record.app.description, domain: record.domain,
            verdict: try Self.payload(
                policy.effectiveVerdict(record, at: now).rawValue,
                as: Components.Schemas.Association.VerdictPayload.self),
            checkedAt: record.checkedAt, nextCheck: record.nextCheck, error: record.lastError)
    }
}
