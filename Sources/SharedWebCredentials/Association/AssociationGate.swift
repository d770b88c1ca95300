import Foundation

/// The association half of the gate (SPEC.md §1): an (app, domain) pair passes only when a
/// `webcredentials:` entry covers the domain and the site's standing verdict is `approved`.
///
/// Standing verdicts come from the store; when one is missing or due, the gate asks the site
/// (unless offline) and records the outcome through the ``RecheckPolicy``.
public struct AssociationGate: Sendable {
    private let store: AssociationStore
    private let verifier: Verifier?
    private let policy: RecheckPolicy
    private let now: @Sendable () -> Date

    /// Creates a gate. Pass `verifier: nil` for offline mode: cached verdicts only.
    public init(
        store: AssociationStore, verifier: Verifier?, policy: RecheckPolicy = RecheckPolicy(),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.store = store
        self.verifier = verifier
        self.policy = policy
        self.now = now
    }

    /// Lets `app` act for `domain`, or throws why not.
    ///
    /// - Returns: the standing record (approved).
    /// - Throws: `missingEntitlement` (no covering entry), `notApproved` (denied, or an approval
    ///   that went stale), `networkFailure` (never verified and the site cannot be reached, or
    ///   offline with no cached verdict).
    public func authorize(app: RegisteredApp, domain: DomainTarget) async throws -> AssociationRecord {
        let entry = try entry(of: app, covering: domain)
        let cached = try await store.record(app: app.identifier, entry: entry)
        if let decided = try decide(app: app.identifier, entry: entry, stored: cached) { return decided }
        return try await check(app: app.identifier, entry: entry, stored: cached)
    }

    /// The `webcredentials:` entry of `app` that covers `domain`; throws `missingEntitlement`
    /// when there is none.
    package func entry(of app: RegisteredApp, covering domain: DomainTarget) throws -> AssociatedDomainEntry {
        if let entry = app.entitlements.webcredentialsEntry(covering: domain) { return entry }
        if app.identifier.platform == .android {
            throw SharedWebCredentialsError(
                .missingEntitlement,
                "\(domain) is not among the domains of \(app.identifier); add it with `swcred app add \(app.identifier) --cert-sha256 ... --domain \(domain)`"
            )
        }
        throw SharedWebCredentialsError(
            .missingEntitlement,
            "\(domain) not found in com.apple.developer.associated-domains entitlement of \(app.identifier); add webcredentials:\(domain) to it with `swcred app add`"
        )
    }

    /// What the `stored` record of (`app`, `entry`) decides without asking the site: the record
    /// when it approves, a thrown refusal, or nil when the site must be asked first (online, and
    /// the record is missing, due or dated in the future). Reads and writes nothing, so it can run
    /// inside the read transaction that fetched the record.
    package func decide(
        app: ApplicationIdentifier, entry: AssociatedDomainEntry, stored: AssociationRecord?
    ) throws
        -> AssociationRecord?
    {
        let trusted = stored.flatMap { isDatedInTheFuture($0) ? nil : $0 }
        if verifier != nil {
            guard let trusted, !policy.isDue(trusted, at: now()) else { return nil }
            return try verdict(trusted, app: app, entry: entry)
        }
        if let stored, trusted == nil { warnFutureApproval(stored, app: app) }
        return try verdict(trusted, app: app, entry: entry)
    }

    /// Asks the site about (`app`, `entry`) given its `stored` record (as ``decide(app:entry:stored:)``
    /// saw it), records the outcome (a changed verdict as the app's), and decides on it.
    package func check(
        app: ApplicationIdentifier, entry: AssociatedDomainEntry, stored: AssociationRecord?
    )
        async throws -> AssociationRecord
    {
        var cached = stored
        if let record = cached, isDatedInTheFuture(record) {
            warnFutureApproval(record, app: app)
            cached = nil
        }
        guard let verifier else { return try verdict(cached, app: app, entry: entry) }
        let check = await verifier.verify([(app, entry)])[0]
        let record = policy.apply(check, to: cached, at: now())
        // A check the app's own operation set off: a changed verdict is recorded as the app's.
        try await store.save(record, by: .app(app))
        return try verdict(record, app: app, entry: entry)
    }

    /// swcred never writes a future approval (it would never go stale): such a record is not trusted.
    private func isDatedInTheFuture(_ record: AssociationRecord) -> Bool {
        record.approvedAt.map { $0 > now() } ?? false
    }

    private func warnFutureApproval(_ record: AssociationRecord, app: ApplicationIdentifier) {
        store.warn(
            "The stored approval of \(app) by \(record.domain) is dated in the future (\(record.approvedAt.map { "\($0)" } ?? "")), which swcred never writes: it counts as missing and is verified again."
        )
    }

    /// The record when it approves now; else the refusal it stands for.
    private func verdict(
        _ record: AssociationRecord?, app: ApplicationIdentifier, entry: AssociatedDomainEntry
    ) throws
        -> AssociationRecord
    {
        guard let record else {
            throw SharedWebCredentialsError(
                .networkFailure,
                "offline and \(app) was never verified for \(AssociationStore.domainKey(for: entry)); run `swcred verify` online"
            )
        }
        switch policy.effectiveVerdict(record, at: now()) {
        case .approved: return record
        case .denied:
            throw SharedWebCredentialsError(
                .notApproved,
                "\"\(AssociationStore.domainKey(for: entry))\" failed to approve \"\(app)\": \(record.lastError ?? "the site does not list the app")"
            )
        case .unverified:
            let code: SharedWebCredentialsError.Code = record.approvedAt == nil ? .networkFailure : .notApproved
            throw SharedWebCredentialsError(
                code,
                "could not verify \(app) with \(AssociationStore.domainKey(for: entry)): \(record.lastError ?? "the approval is older than 30 days and the site could not be re-checked")"
            )
        }
    }

    /// Asks the sites of every entitlement entry of `app` now, of every service (or only the
    /// entries covering `domain`, one per service), stores the outcomes and returns the new
    /// records with the checks behind them. Only `webcredentials` (and an Android app's `get_login_creds`)
    /// verdicts ever gate credentials.
    public func refresh(
        app: RegisteredApp, domain: DomainTarget? = nil
    ) async throws -> [(
        record: AssociationRecord, check: DomainVerification
    )] {
        guard let verifier else {
            throw SharedWebCredentialsError(.networkFailure, "cannot verify while offline; drop --offline")
        }
        var entries = app.entitlements.entries
        if let domain {
            entries = app.entitlements.entries(covering: domain)
            guard !entries.isEmpty else {
                throw SharedWebCredentialsError(
                    .missingEntitlement, "\(domain) is not covered by any entitlement entry of \(app.identifier)")
            }
        }
        let checks = await verifier.verify(entries.map { (app.identifier, $0) })
        let time = now()
        var results: [(record: AssociationRecord, check: DomainVerification)] = []
        for check in checks {
            let previous = try await store.record(app: app.identifier, entry: check.entry)
            results.append((policy.apply(check, to: previous, at: time), check))
        }
        try await store.save(results.map(\.record), by: .owner)
        return results
    }
}
