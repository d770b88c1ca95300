import Foundation

/// The gated, app-facing API: what `SecRequestSharedWebCredential`,
/// `SecAddSharedWebCredential` and `SecCreateSharedWebCredentialPassword` are on Apple's systems.
///
/// An instance acts for one app. Every operation first passes the gate (SPEC.md §1): the app is
/// registered in the vault, a `webcredentials:` entry of its entitlement covers the domain, and
/// the domain's apple-app-site-association file approves the app, verified over HTTPS when the
/// stored verdict is missing or due for a re-check (``RecheckPolicy``). Nothing is released,
/// changed or generated for a pair that fails the gate.
///
/// Every operation appends one entry to the vault's audit log (``AuditLog``): released or done,
/// or refused with its error code. A change and its entry are committed together; a release is
/// returned only once its entry is written (fail closed).
///
/// The vault owner's ungated access is ``Vault/credentials``; this facade is what apps get.
public struct SharedWebCredentials: Sendable {
    /// The app this instance acts for.
    public let app: ApplicationIdentifier
    private let vault: Vault
    private let gate: AssociationGate
    private let verifier: Verifier?

    /// Creates the facade for `app` over an unlocked vault.
    ///
    /// - Parameters:
    ///   - verifier: fetches AASA files when a verdict is missing or due; `nil` means offline,
    ///     where only stored verdicts count.
    ///   - policy: when verdicts are re-checked and how long an approval survives failures.
    ///   - now: the clock (injected by tests).
    public init(
        app: ApplicationIdentifier, vault: Vault, verifier: Verifier?, policy: RecheckPolicy = RecheckPolicy(),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.app = app
        self.vault = vault
        self.verifier = verifier
        gate = AssociationGate(
            store: vault.associations, verifier: verifier, policy: policy, now: now)
    }

    /// Releases saved credentials to the app (`SecRequestSharedWebCredential`).
    ///
    /// With a domain, the pair must pass the gate and the credentials saved for that server and
    /// port are returned. Without one, every server in the vault that a `webcredentials:` entry
    /// covers and whose site approves the app is searched; sites that do not approve it are
    /// skipped. Choosing which credential to hand over is the caller's job (Apple shows a picker).
    ///
    /// - Parameters:
    ///   - account: only the credential for this account name (exact match).
    ///   - includeShared: with a domain, also search the domains that share its sign-in backend
    ///     (``SharedCredentialGroups``), but only those the app is entitled to and approved for;
    ///     for an Android app, also its other sites whose Digital Asset Links list shares their
    ///     credentials with the domain (a `get_login_creds` statement with the web target
    ///     `https://domain`), each one announced through the vault's warning handler.
    ///   - confirmRelease: called with the matches after the gate and before anything is released
    ///     or recorded as released: a consent prompt. It refuses by throwing (the release is then
    ///     audited as refused with that error's code).
    /// Without a domain, the candidate servers come from the blind indexes of the app's entries
    /// (``CredentialStore/candidates(coveredBy:)``), so the cost follows the app's credentials,
    /// not the size of the vault.
    ///
    /// - Returns: the matches, sorted by server and account; never empty.
    /// - Throws: the gate's errors, `itemNotFound` ("no matching items found"), or the error of
    ///   the audit entry that could not be written (then nothing is released).
    public func request(
        domain: DomainTarget? = nil, account: String? = nil, includeShared: Bool = false,
        confirmRelease: (([Credential]) async throws -> Void)? = nil
    )
        async throws -> [Credential]
    {
        try await audited(.request, domain: domain, account: account) {
            let matches = try await find(domain: domain, account: account, includeShared: includeShared)
            try await confirmRelease?(matches)
            try vault.audit.append(
                event(.request, domain: domain, account: account, released: matches.map(AuditCredential.init)))
            return matches
        }
    }

    private func find(domain: DomainTarget?, account: String?, includeShared: Bool) async throws -> [Credential] {
        let registered = try vault.apps.require(app)
        guard let domain else { return try await findEverywhere(registered, account: account) }
        _ = try await gate.authorize(app: registered, domain: domain)
        var servers = [domain]
        if includeShared {
            let related = SharedCredentialGroups.domains(sharingCredentialsWith: domain.host)
                .map { DomainTarget(normalizedHost: $0, port: nil) }
            servers += try await approved(related, of: registered)
            servers += try await sharedByStatementLists(with: domain, of: registered)
                .filter { !servers.contains($0) }
        }
        let matches = try servers.flatMap { server in
            try vault.credentials.find(server: server.host, port: server.port, account: account)
        }
        guard !matches.isEmpty else {
            throw SharedWebCredentialsError(.itemNotFound, "no matching items found")
        }
        return matches
    }

    /// Every credential on a server that an entry of the app covers and whose site approves it,
    /// found through the blind indexes (never by opening every record).
    private func findEverywhere(_ registered: RegisteredApp, account: String?) async throws -> [Credential] {
        let entries = registered.entitlements.webcredentialsEntries
        let candidates = try vault.credentials.candidates(coveredBy: entries)
        var servers: [DomainTarget] = []
        for credential in candidates {
            let server = DomainTarget(normalizedHost: credential.server, port: credential.port)
            if servers.last != server { servers.append(server) }
        }
        let approvedServers = Set(try await approved(servers, of: registered))
        let matches = candidates.filter {
            approvedServers.contains(DomainTarget(normalizedHost: $0.server, port: $0.port))
                && (account == nil || $0.account == account)
        }
        guard !matches.isEmpty else {
            throw SharedWebCredentialsError(.itemNotFound, "no matching items found")
        }
        return matches
    }

    /// Adds, updates or deletes a credential (`SecAddSharedWebCredential`).
    ///
    /// After the gate: no credential and a password adds; the same password changes nothing and
    /// asks nobody; a different password updates; no password (`nil`) deletes; no credential and
    /// no password is a success with nothing to do. Every real change is put to `confirm` first.
    ///
    /// - Parameters:
    ///   - password: the new password, or `nil` to delete.
    ///   - confirm: asked before the change is made; returning `false` cancels it.
    /// - Throws: `invalidInput` for an empty account or password or one longer than
    ///   ``Credential/maximumFieldBytes``, the gate's errors, `neverSave`
    ///   when the owner marked the host "never save", `declined` when `confirm` says no, or the
    ///   error of the audit entry (then nothing is changed: the change and its entry are one
    ///   transaction).
    @discardableResult
    public func add(
        domain: DomainTarget, account: String, password: SecureBytes?,
        confirm: (CredentialChange) async throws -> Bool
    ) async throws -> CredentialChangeOutcome {
        try await audited(password == nil ? .delete : .add, domain: domain, account: account) {
            try await change(domain: domain, account: account, password: password, confirm: confirm)
        }
    }

    private func change(
        domain: DomainTarget, account: String, password: SecureBytes?,
        confirm: (CredentialChange) async throws -> Bool
    ) async throws -> CredentialChangeOutcome {
        guard !account.isEmpty else {
            throw SharedWebCredentialsError(.invalidInput, "the account name is empty; give the account to save")
        }
        if let password, password.isEmpty {
            throw SharedWebCredentialsError(.invalidInput, "the password is empty; nothing was saved")
        }
        if let password { try Credential.checkFieldSizes(account: account, password: password, details: .none) }
        let registered = try vault.apps.require(app)
        _ = try await gate.authorize(app: registered, domain: domain)
        if password != nil, try vault.neverSave.isMarked(domain.host) {
            throw SharedWebCredentialsError(
                .neverSave,
                "Item already exists for this server: the vault owner chose never to save passwords for \(domain.host) (clear it with `swcred never-save \(domain.host) --clear`)"
            )
        }
        let existing = try vault.credentials.find(server: domain.host, port: domain.port, account: account).first
        let kind: CredentialChange.Kind
        switch (existing, password) {
        case (nil, nil):
            try vault.audit.append(event(.delete, domain: domain, account: account))
            return .nothingToDelete
        case (.some, nil): kind = .delete
        case (nil, .some): kind = .add
        case (.some(let saved), .some(let new)):
            if saved.password.isEqual(to: new) {
                try vault.audit.append(event(.update, domain: domain, account: account))
                return .unchanged
            }
            kind = .update
        }
        let operation: AuditOperation = kind == .add ? .add : kind == .update ? .update : .delete
        guard try await confirm(CredentialChange(kind: kind, domain: domain, account: account)) else {
            throw AuditedRefusal(
                operation: operation, error: SharedWebCredentialsError(.declined, "declined: nothing was changed"))
        }
        let entry = event(operation, domain: domain, account: account)
        return try vault.credentials.batch { batch in
            if let password {
                try batch.upsert(server: domain.host, port: domain.port, account: account, password: password)
                try batch.recordAudit(entry)
                return kind == .add ? .added : .updated
            }
            try batch.delete(server: domain.host, port: domain.port, account: account)
            try batch.recordAudit(entry)
            return .deleted
        }
    }

    /// Deletes a credential: ``add(domain:account:password:confirm:)`` without a password.
    @discardableResult
    public func delete(
        domain: DomainTarget, account: String, confirm: (CredentialChange) async throws -> Bool
    ) async throws -> CredentialChangeOutcome {
        try await add(domain: domain, account: account, password: nil, confirm: confirm)
    }

    /// Generates a strong password for signing up on `domain`
    /// (`SecCreateSharedWebCredentialPassword` and Safari's automatic strong passwords).
    ///
    /// The pair must pass the gate. Without explicit `rules`, the domain's password-rules quirk
    /// (Apple's `password-rules.json`) applies when there is one, else Safari's `strong` style.
    ///
    /// - Throws: the gate's errors, or `invalidInput` when the rules cannot be met.
    public func generatePassword(
        for domain: DomainTarget, rules: PasswordRules? = nil
    ) async throws
        -> GeneratedPassword
    {
        try await passwordGenerator(for: domain, rules: rules).next()
    }

    /// A generator of passwords for `domain`, after the gate: for many passwords at once.
    /// The rules are chosen as in ``generatePassword(for:rules:)``.
    public func passwordGenerator(
        for domain: DomainTarget, rules: PasswordRules? = nil
    ) async throws
        -> PasswordGenerator
    {
        try await audited(.generate, domain: domain, account: nil) {
            let registered = try vault.apps.require(app)
            _ = try await gate.authorize(app: registered, domain: domain)
            let generator: PasswordGenerator
            if let rules {
                generator = try PasswordGenerator(rules: rules)
            } else if let quirk = try PasswordRulesQuirks.quirk(for: domain.host) {
                generator = try PasswordGenerator(rules: PasswordRulesParser.parse(quirk.rulesText).rules)
            } else {
                generator = PasswordGenerator(style: .strong)
            }
            try vault.audit.append(event(.generate, domain: domain, account: nil))
            return generator
        }
    }

    // MARK: Audit

    /// An entry for this app.
    private func event(
        _ operation: AuditOperation, domain: DomainTarget?, account: String?, released: [AuditCredential] = [],
        outcome: AuditOutcome = .done
    ) -> AuditEvent {
        AuditEvent(
            actor: .app(app), operation: operation, domain: domain?.description, account: account,
            released: released, outcome: outcome)
    }

    /// Runs `body`; when it fails with a library error, appends a refusal entry (as `operation`,
    /// or the one an ``AuditedRefusal`` names) and throws the error. A refusal whose entry cannot
    /// be written still throws the refusal: nothing was released or changed either way.
    private func audited<T>(
        _ operation: AuditOperation, domain: DomainTarget?, account: String?, _ body: () async throws -> T
    ) async throws -> T {
        do {
            return try await body()
        } catch let refusal as AuditedRefusal {
            try? vault.audit.append(
                event(refusal.operation, domain: domain, account: account, outcome: .refused(refusal.error.code)))
            throw refusal.error
        } catch let error as SharedWebCredentialsError {
            try? vault.audit.append(event(operation, domain: domain, account: account, outcome: .refused(error.code)))
            throw error
        }
    }

    /// The other sites of an Android app that it is approved for and whose statement list shares
    /// their credentials with `domain` (web-to-web sharing). Never silent: each is announced.
    /// Nothing offline or for an Apple app.
    private func sharedByStatementLists(
        with domain: DomainTarget, of registered: RegisteredApp
    ) async throws -> [DomainTarget] {
        guard registered.identifier.platform == .android, let verifier else { return [] }
        let sites = registered.entitlements.webcredentialsEntries.filter { !$0.isWildcard }.map(\.aasaTarget)
        var shared: [DomainTarget] = []
        for site in try await approved(sites.filter { $0 != domain }, of: registered) {
            let list = await verifier.statementList(of: site)
            guard case .fetched(let statements, _) = list.outcome,
                AssetLinksApproval.sharesCredentials(statements, with: domain)
            else { continue }
            vault.warn(
                "also offering the credentials saved for \(site) on \(domain): \(list.url) shares them with https://\(domain) (\(AssetRelation.getLoginCredentials))"
            )
            shared.append(site)
        }
        return shared
    }

    /// The `candidates` that a `webcredentials:` entry of the app covers and whose site approves
    /// the app now. Sites that deny it or cannot vouch for it are left out.
    private func approved(_ candidates: [DomainTarget], of registered: RegisteredApp) async throws -> [DomainTarget] {
        guard !registered.entitlements.webcredentialsEntries.isEmpty else {
            throw SharedWebCredentialsError(
                .missingEntitlement,
                "\(app) has no webcredentials: entry in its com.apple.developer.associated-domains entitlement")
        }
        // The gate's answer depends only on the entry that covers a server (its verdict), so it
        // is asked once per entry: a wildcard covering many servers costs one check.
        var verdicts: [AssociatedDomainEntry: Bool] = [:]
        var approved: [DomainTarget] = []
        for server in candidates {
            guard let entry = registered.entitlements.webcredentialsEntry(covering: server) else { continue }
            if verdicts[entry] == nil {
                do {
                    _ = try await gate.authorize(app: registered, domain: server)
                    verdicts[entry] = true
                } catch let error as SharedWebCredentialsError
                    where error.code == .notApproved || error.code == .networkFailure
                {
                    verdicts[entry] = false
                }
            }
            if verdicts[entry] == true { approved.append(server) }
        }
        return approved
    }
}

/// A refusal known to be of a more precise operation than the one asked for (an `add` that would
/// have been an `update`), for its audit entry.
private struct AuditedRefusal: Error {
    let operation: AuditOperation
    let error: SharedWebCredentialsError
}
