import Foundation
import NIOHTTP1
import SharedWebCredentials

/// The gated operations of ``SharedWebCredentials`` through a running `swcred serve`, for an app
/// that holds a token from `swcred app token create`. The service runs the gate; this client only
/// speaks HTTP (API/openapi.yaml) and never opens the vault.
///
/// Errors are ``SharedWebCredentialsError`` with the code the service named, so callers handle
/// both paths alike; a missing, wrong, revoked or expired token, a locked service or no service
/// at all is `vaultLocked`.
public final class SharedWebCredentialsClient: Sendable {
    /// Where the service answers.
    public let endpoint: ServiceEndpoint
    /// The app the caller means to act for, sent with each request so that the service refuses
    /// a token of another app; nil: whatever app the token belongs to.
    public let app: ApplicationIdentifier?
    private let token: SecureBytes
    private let connection: ServiceConnection

    /// - Parameters:
    ///   - caFile: extra trust roots (PEM) for an `https://` endpoint with a private CA.
    ///   - timeout: how long one call may take (a gate may verify a site first).
    public init(
        endpoint: ServiceEndpoint, token: SecureBytes, app: ApplicationIdentifier? = nil, caFile: String? = nil,
        timeout: Duration = .seconds(60)
    ) {
        self.endpoint = endpoint
        self.token = token
        self.app = app
        connection = ServiceConnection(endpoint: endpoint, caFile: caFile, timeout: timeout)
    }

    /// Closes the connections. Call once when done.
    public func shutdown() async throws {
        try await connection.shutdown()
    }

    // MARK: The gated operations

    /// Releases saved credentials, as ``SharedWebCredentials/request(domain:account:includeShared:)``.
    public func request(
        domain: DomainTarget? = nil, account: String? = nil, includeShared: Bool = false
    ) async throws -> [ServiceCredential] {
        struct Body: Encodable {
            let app: String?
            let domain: String?
            let account: String?
            let includeShared: Bool?
            enum CodingKeys: String, CodingKey {
                case app, domain, account
                case includeShared = "include_shared"
            }
        }
        struct Released: Decodable {
            let server: String
            let account: String
            let password: String
            let port: Int?
        }
        let released: [Released] = try await call(
            .POST, "/v1/credentials/request",
            Body(
                app: app?.description, domain: domain?.description, account: account,
                includeShared: includeShared ? true : nil))
        return released.map {
            ServiceCredential(
                server: $0.server, port: $0.port, account: $0.account, password: SecureBytes(utf8: $0.password))
        }
    }

    /// Adds, updates or (with no password) deletes a credential, as
    /// ``SharedWebCredentials/add(domain:account:password:confirm:)``; consent, when the token
    /// asks for it, is the vault owner's answer on the service's side.
    @discardableResult
    public func add(
        domain: DomainTarget, account: String, password: SecureBytes?,
        confirm: (CredentialChange) async throws -> Bool
    ) async throws -> CredentialChangeOutcome {
        guard let password else { return try await delete(domain: domain, account: account, confirm: confirm) }
        struct Body: Encodable {
            let app: String?
            let domain: String
            let account: String
            let password: String
            let confirmed: Bool
        }
        return try await confirmingChange(domain: domain, account: account, confirm: confirm) { confirmed in
            try await call(
                .PUT, "/v1/credentials",
                Body(
                    app: app?.description, domain: domain.description, account: account,
                    password: password.exposedString(), confirmed: confirmed))
        }
    }

    /// Deletes a credential, as ``SharedWebCredentials/delete(domain:account:confirm:)``.
    @discardableResult
    public func delete(
        domain: DomainTarget, account: String, confirm: (CredentialChange) async throws -> Bool
    ) async throws -> CredentialChangeOutcome {
        struct Body: Encodable {
            let app: String?
            let domain: String
            let account: String
            let confirmed: Bool
        }
        return try await confirmingChange(domain: domain, account: account, confirm: confirm) { confirmed in
            try await call(
                .DELETE, "/v1/credentials",
                Body(app: app?.description, domain: domain.description, account: account, confirmed: confirmed))
        }
    }

    /// Asks the service what the change would be (`confirmed: false`); a no-op is the outcome at
    /// once, as on the direct path, and a real change is made only once `confirm` approves it.
    private func confirmingChange(
        domain: DomainTarget, account: String, confirm: (CredentialChange) async throws -> Bool,
        send: (_ confirmed: Bool) async throws -> OutcomeBody
    ) async throws -> CredentialChangeOutcome {
        let preview = try await send(false)
        guard preview.outcome == "needs-confirmation" else { return try preview.parsed() }
        guard let kind = preview.change.flatMap(CredentialChange.Kind.init(rawValue:)) else {
            throw SharedWebCredentialsError(
                .internalError, "the service asked for a confirmation of an unknown change \"\(preview.change ?? "")\"")
        }
        guard try await confirm(CredentialChange(kind: kind, domain: domain, account: account)) else {
            throw SharedWebCredentialsError(.declined, "declined: nothing was changed")
        }
        return try await send(true).parsed()
    }

    /// One password for signing up on `domain`, as ``SharedWebCredentials/generatePassword(for:rules:)``.
    public func generatePassword(
        for domain: DomainTarget, rules: PasswordRules? = nil
    ) async throws
        -> GeneratedPassword
    {
        guard let first = try await generatePasswords(domain: domain, rules: rules).first else {
            throw SharedWebCredentialsError(.internalError, "the service returned no password")
        }
        return first
    }

    /// `count` passwords: for `domain` after its gate (its rules unless `rules` is given), or
    /// with no domain in `style` or by `rules`.
    public func generatePasswords(
        domain: DomainTarget? = nil, rules: PasswordRules? = nil, style: PasswordStyle? = nil, count: Int = 1
    ) async throws -> [GeneratedPassword] {
        struct Body: Encodable {
            let app: String?
            let domain: String?
            let rules: String?
            let style: String?
            let count: Int
        }
        struct Generated: Decodable {
            let password: String
            let style: String
            let entropyBits: Double
            enum CodingKeys: String, CodingKey {
                case password, style
                case entropyBits = "entropy_bits"
            }
        }
        let generated: [Generated] = try await call(
            .POST, "/v1/passwords/generate",
            Body(
                app: app?.description, domain: domain?.description, rules: rules?.description,
                style: style?.rawValue, count: count))
        return try generated.map {
            guard let style = PasswordStyle(rawValue: $0.style) else {
                throw SharedWebCredentialsError(.internalError, "the service returned an unknown style \"\($0.style)\"")
            }
            return GeneratedPassword(password: $0.password, style: style, entropyBits: $0.entropyBits)
        }
    }

    // MARK: HTTP

    private struct OutcomeBody: Decodable {
        let outcome: String
        let change: String?

        func parsed() throws -> CredentialChangeOutcome {
            guard let parsed = CredentialChangeOutcome(rawValue: outcome) else {
                throw SharedWebCredentialsError(
                    .internalError, "the service returned an unknown outcome \"\(outcome)\"")
            }
            return parsed
        }
    }

    private func call<Response: Decodable>(
        _ method: HTTPMethod, _ route: String, _ body: some Encodable
    ) async throws -> Response {
        guard let response: Response = try await connection.call(method, route, body: body, token: token) else {
            throw SharedWebCredentialsError(.internalError, "the service answered \(route) with no content")
        }
        return response
    }
}
