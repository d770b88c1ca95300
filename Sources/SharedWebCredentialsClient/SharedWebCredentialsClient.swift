import Foundation
import SharedWebCredentials
import SwcredAPI

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
    let connection: ServiceConnection

    /// A Unix socket endpoint is checked first, and the token is never sent unless the socket's
    /// directory is the caller's own (or `trustedServiceUID`'s), writable by nobody else, under
    /// directories only root, the caller or that uid can change, and the process listening on it
    /// runs as the caller's uid or as `trustedServiceUID`; otherwise this throws `vaultLocked`
    /// naming the owner it found.
    ///
    /// - Parameters:
    ///   - caFile: extra trust roots (PEM) for an `https://` endpoint with a private CA.
    ///   - timeout: how long one call may take (a gate may verify a site first).
    ///   - trustedServiceUID: another uid whose service on a Unix socket the caller trusts with
    ///     its token, such as the owner of a service started with `--allow-uid` for this app's
    ///     user (`swcred --server-uid`, `SWCRED_SERVER_UID`); nil: only the caller's own.
    public init(
        endpoint: ServiceEndpoint, token: SecureBytes, app: ApplicationIdentifier? = nil, caFile: String? = nil,
        timeout: Duration = .seconds(60), trustedServiceUID: uid_t? = nil
    ) throws {
        self.endpoint = endpoint
        self.app = app
        connection = try ServiceConnection(
            endpoint: endpoint, token: token, caFile: caFile, timeout: timeout, trustedServiceUID: trustedServiceUID)
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
        let released = try await connection.perform {
            try await $0.requestCredentials(
                body: .json(
                    .init(
                        app: app?.description, domain: domain?.description, account: account,
                        includeShared: includeShared ? true : nil))
            ).ok.body.json
        }
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
        return try await confirmingChange(domain: domain, account: account, confirm: confirm) { confirmed in
            try await connection.perform {
                try await $0.saveCredential(
                    body: .json(
                        .init(
                            app: app?.description, domain: domain.description, account: account,
                            password: password.exposedString(), confirmed: confirmed))
                ).ok.body.json
            }
        }
    }

    /// Deletes a credential, as ``SharedWebCredentials/delete(domain:account:confirm:)``.
    @discardableResult
    public func delete(
        domain: DomainTarget, account: String, confirm: (CredentialChange) async throws -> Bool
    ) async throws -> CredentialChangeOutcome {
        try await confirmingChange(domain: domain, account: account, confirm: confirm) { confirmed in
            try await connection.perform {
                try await $0.deleteCredential(
                    body: .json(
                        .init(app: app?.description, domain: domain.description, account: account, confirmed: confirmed)
                    )
                ).ok.body.json
            }
        }
    }

    /// Asks the service what the change would be (`confirmed: false`); a no-op is the outcome at
    /// once, as on the direct path, and a real change is made only once `confirm` approves it.
    private func confirmingChange(
        domain: DomainTarget, account: String, confirm: (CredentialChange) async throws -> Bool,
        send: (_ confirmed: Bool) async throws -> Components.Schemas.Outcome
    ) async throws -> CredentialChangeOutcome {
        let preview = try await send(false)
        guard preview.outcome == .needsConfirmation else { return try Self.outcome(preview) }
        guard let kind = preview.change.flatMap({ CredentialChange.Kind(rawValue: $0.rawValue) }) else {
            throw SharedWebCredentialsError(
                .internalError, "the service asked for a confirmation without saying of which change")
        }
        guard try await confirm(CredentialChange(kind: kind, domain: domain, account: account)) else {
            throw SharedWebCredentialsError(.declined, "declined: nothing was changed")
        }
        return try Self.outcome(try await send(true))
    }

    /// The library's outcome for the service's; one it does not know is an internal error.
    private static func outcome(_ answer: Components.Schemas.Outcome) throws -> CredentialChangeOutcome {
        guard let outcome = CredentialChangeOutcome(rawValue: answer.outcome.rawValue) else {
            throw SharedWebCredentialsError(
                .internalError, "the service answered a change with \"\(answer.outcome.rawValue)\"")
        }
        return outcome
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
        let style = try style.map { style in
            guard let payload = Components.Schemas.Generate.StylePayload(rawValue: style.rawValue) else {
                throw SharedWebCredentialsError(
                    .invalidInput, "the service does not generate \(style.rawValue) passwords; use the CLI for those")
            }
            return payload
        }
        let generated = try await connection.perform {
            try await $0.generatePasswords(
                body: .json(
                    .init(
                        app: app?.description, domain: domain?.description, rules: rules?.description, style: style,
                        count: count))
            ).ok.body.json
        }
        return try generated.map {
            guard let style = PasswordStyle(rawValue: $0.style) else {
                throw SharedWebCredentialsError(.internalError, "the service returned an unknown style \"\($0.style)\"")
            }
            return GeneratedPassword(password: $0.password, style: style, entropyBits: $0.entropyBits)
        }
    }
}
