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
    let vault: Vault
    let gate: AssociationGate
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
        try await request(
            domain: domain, account: account, includeShared: includeShared, prefetched: nil,
            confirmRelease: confirmRelease)
    }

    /// ``request(domain:account:includeShared:confirmRelease:)`` with its first read done ahead,
    /// when `prefetched` is for this domain and account (else it is read now).
    package func request(
        domain: DomainTarget?, account: String?, includeShared: Bool, prefetched: PrefetchedRequest?,
        confirmRelease: (([Credential]) async throws -> Void)?
    )
        async throws -> [Credential]
    {
        let prefetched = prefetched.flatMap {
            $0.domain == domain && $0.account == account && !includeShared ? $0.standing : nil
        }
        return try await audited(.request, domain: domain, account: account) {
            let matches = try await find(
                domain: domain, account: account, includeShared: includeShared, prefetched: prefetched)
            try await confirmRelease?(matches)
            try await vault.audit.append(
                event(.request, domain: domain, account: account, released: matches.map(AuditCredential.init)))
            return matches
        }
    }

    private func find(
        domain: DomainTarget?, account: String?, includeShared: Bool,
        prefetched: Result<StandingRead, SharedWebCredentialsError>?
    ) async throws -> [Credential] {
        guard let domain else { return try await findEverywhere(try await registeredApp(), account: account) }
        let standing: StandingRead
        if let prefetched {
            standing = try prefetched.get()
        } else {
            standing = try await standingRead(domain: domain, account: account)
        }
        if !includeShared, let matches = standing.matches {
            guard !matches.isEmpty else { throw SharedWebCredentialsError(.itemNotFound, "no matching items found") }
            return matches
        }
        let registered = standing.registered
        if standing.matches == nil {
            _ = try await gate.check(app: registered.identifier, entry: standing.entry, stored: standing.stored)
        }
        var servers = [domain]
        if includeShared {
            let related = SharedCredentialGroups.domains(sharingCredentialsWith: domain.host)
                .map { DomainTarget(normalizedHost: $0, port: nil) }
            servers += try await approved(related, of: registered)
            servers += try await sharedByStatementLists(with: domain, of: registered)
                .filter { !servers.contains($0) }
        }
        let keys = try servers.map { try CredentialKey(server: $0.host, port: $0.port) }
        let matches = try await vault.read { [vault] db, vaultKeys in
            try keys.flatMap { try CredentialStore.find($0, account: account, db: db, keys: vaultKeys, vault: vault) }
        }
        guard !matches.isEmpty else {
            throw SharedWebCredentialsError(.itemNotFound, "no matching items found")
        }
        return matches
    }

    /// What one read transaction tells about a request for `domain`: the app's registration and,
    /// when its stored verdict settles the gate without asking the site, the credentials saved
    /// for the domain (nil when the site must be asked first). The app, the verdict and the
    /// credentials are read in the same transaction, on the storage engine's threads; a refusal
    /// the stored verdict stands for is thrown.
    private func standingRead(domain: DomainTarget, account: String?) async throws -> StandingRead {
        try await vault.read { [self] db, keys in
            try standingRead(domain: domain, account: account, db: db, keys: keys, registration: nil)
        }
    }

    /// ``standingRead(domain:account:)`` inside the caller's read transaction, with the app's
    /// `apps` row when the caller read it already.
    private func standingRead(
        domain: DomainTarget, account: String?, db: any StoreReader, keys: VaultKeys,
        registration: AppRegistry.ReadRegistration?
    ) throws
        -> StandingRead
    {
        let key = try CredentialKey(server: domain.host, port: domain.port)
        let registered = try registeredApp(db: db, keys: keys, registration: registration)
        let entry = try gate.entry(of: registered, covering: domain)
        let identifier = registered.identifier
        let stored = try vault.associations.record(app: identifier, entry: entry, db: db, keys: keys)
        guard try gate.decide(app: identifier, entry: entry, stored: stored) != nil else {
            return StandingRead(registered: registered, entry: entry, stored: stored, matches: nil)
        }
        return StandingRead(
            registered: registered, entry: entry, stored: stored,
            matches: try CredentialStore.find(key, account: account, db: db, keys: keys, vault: vault))
    }

    /// The first read of a request for `domain` (without `includeShared`), done ahead inside a
    /// read transaction of the caller's: the token check does it in its own transaction
    /// (``AppTokenStore/authenticate(_:now:prefetching:)``), so that a request reads the token,
    /// the app, the verdict and the credentials in one transaction. Pass it to
    /// ``request(domain:account:includeShared:prefetched:confirmRelease:)``; a refusal it met is
    /// thrown (and audited) there.
    ///
    /// Only the library's own errors (the gate's refusals, a record that fails authentication)
    /// are kept for later. An engine's error is thrown at once, so that it fails the caller's
    /// transaction, whose storage names it (a server restarting is `.storageFailure`, HTTP 503);
    /// kept, it would reach the request unnamed.
    ///
    /// `registration` is this app's `apps` row when the caller read it already (with the token).
    func prefetchRequest(
        domain: DomainTarget, account: String?, db: any StoreReader, keys: VaultKeys,
        registration: AppRegistry.ReadRegistration?
    ) throws
        -> PrefetchedRequest
    {
        let standing: Result<StandingRead, SharedWebCredentialsError>
        do {
            standing = .success(
                try standingRead(domain: domain, account: account, db: db, keys: keys, registration: registration))
        } catch let refusal as SharedWebCredentialsError {
            standing = .failure(refusal)
        }
        return PrefetchedRequest(domain: domain, account: account, standing: standing)
    }

    /// A request's first read, done ahead (``prefetchRequest(domain:account:db:keys:registration:)``).
    package struct PrefetchedRequest: Sendable {
        /// The domain read for, as the request's text parsed.
        package let domain: DomainTarget
        fileprivate let account: String?
        fileprivate let standing: Result<StandingRead, SharedWebCredentialsError>
    }

    fileprivate struct StandingRead: Sendable {
        let registered: RegisteredApp
        /// The entry that covers the domain, and its stored record as the transaction read it.
        let entry: AssociatedDomainEntry
        let stored: AssociationRecord?
        /// The credentials saved for the domain, when the stored verdict approved; nil when the
        /// site must be asked first.
        let matches: [Credential]?
    }

    /// The app's registration, read on the storage engine's threads.
    func registeredApp() async throws -> RegisteredApp {
        try await vault.read { [self] db, keys in try registeredApp(db: db, keys: keys, registration: nil) }
    }

    /// The app's registration inside the caller's read transaction: from its `apps` row when the
    /// caller read it already (`registration`), else read now; throws when the app has none.
    func registeredApp(
        db: any StoreReader, keys: VaultKeys, registration: AppRegistry.ReadRegistration?
    ) throws -> RegisteredApp {
        let registered =
            if let registration {
                try AppRegistry.registration(of: app, in: registration.row, db: db, keys: keys, path: vault.path)
            } else {
                try AppRegistry.find(app, db: db, keys: keys, path: vault.path)
            }
        guard let registered else { throw AppRegistry.notRegistered(app) }
        return registered
    }

    /// Every credential on a server that an entry of the app covers and whose site approves it,
    /// found through the blind indexes (never by opening every record).
    private func findEverywhere(_ registered: RegisteredApp, account: String?) async throws -> [Credential] {
        let entries = registered.entitlements.webcredentialsEntries
        let candidates = try await vault.read { [vault] db, keys in
            try CredentialStore.candidates(coveredBy: entries, db: db, keys: keys, vault: vault)
        }
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
            let registered = try await registeredApp()
            _ = try await gate.authorize(app: registered, domain: domain)
            let generator: PasswordGenerator
            if let rules {
                generator = try PasswordGenerator(rules: rules)
            } else if let quirk = try PasswordRulesQuirks.quirk(for: domain.host) {
                generator = try PasswordGenerator(rules: PasswordRulesParser.parse(quirk.rulesText).rules)
            } else {
                generator = PasswordGenerator(style: .strong)
            }
            try await vault.audit.append(event(.generate, domain: domain, account: nil))
            return generator
        }
    }

    // MARK: Audit

    /// An entry for this app.
    func event(
        _ operation: AuditOperation, domain: DomainTarget?, account: String?, released: [AuditCredential] = [],
        outcome: AuditOutcome = .done, detail: String? = nil
    ) -> AuditEvent {
        AuditEvent(
            actor: .app(app), operation: operation, domain: domain?.description, account: account,
            released: released, outcome: outcome, detail: detail)
    }

    /// The detail of a delete that found nothing to delete, and of a save of the password already
    /// saved: done, and nothing changed (so the log tells them from real changes).
    static let nothingToDeleteDetail = "nothing to delete"
    static let unchangedDetail = "unchanged: the same password"

    /// Runs `body`; when it fails with a library error, appends a refusal entry (as `operation`,
    /// or the one an ``AuditedRefusal`` names) and throws the error. A refusal whose entry cannot
    /// be written still throws the refusal: nothing was released or changed either way.
    ///
    /// All of it runs as a task on the engine's threads (``EngineThreads/inPlace(_:)``), so that
    /// the operation's reads, writes and audit entry run there in place rather than each handed
    /// over to another thread and back.
    func audited<T>(
        _ operation: AuditOperation, domain: DomainTarget?, account: String?, _ body: () async throws -> T
    ) async throws -> T {
        try await vault.storage.threads.inPlace {
            do {
                return try await body()
            } catch let refusal as AuditedRefusal {
                _ = try? await vault.audit.append(
                    event(refusal.operation, domain: domain, account: account, outcome: .refused(refusal.error.code)))
                throw refusal.error
            } catch let error as SharedWebCredentialsError {
                _ = try? await vault.audit.append(
                    event(operation, domain: domain, account: account, outcome: .refused(error.code)))
                throw error
            }
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
struct AuditedRefusal: Error {
    let operation: AuditOperation
    let error: SharedWebCredentialsError
}
