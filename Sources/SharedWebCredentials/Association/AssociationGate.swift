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
        guard let entry = app.entitlements.webcredentialsEntry(covering: domain) else {
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
        let record = try await standingRecord(app: app.identifier, entry: entry)
        guard let record else {
            throw SharedWebCredentialsError(
                .networkFailure,
                "offline and \(app.identifier) was never verified for \(AssociationStore.domainKey(for: entry)); run `swcred verify` online"
            )
        }
        switch policy.effectiveVerdict(record, at: now()) {
        case .approved: return record
        case .denied:
            throw SharedWebCredentialsError(
                .notApproved,
                "\"\(AssociationStore.domainKey(for: entry))\" failed to approve \"\(app.identifier)\": \(record.lastError ?? "the site does not list the app")"
            )
        case .unverified:
            let code: SharedWebCredentialsError.Code = record.approvedAt == nil ? .networkFailure : .notApproved
            throw SharedWebCredentialsError(
                code,
                "could not verify \(app.identifier) with \(AssociationStore.domainKey(for: entry)): \(record.lastError ?? "the approval is older than 30 days and the site could not be re-checked")"
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
            let previous = try store.record(app: app.identifier, entry: check.entry)
            results.append((policy.apply(check, to: previous, at: time), check))
        }
        try store.save(results.map(\.record), by: .owner)
        return results
    }

    private func standingRecord(
        app: ApplicationIdentifier, entry: AssociatedDomainEntry
    ) async throws
        -> AssociationRecord?
    {
        var cached = try store.record(app: app, entry: entry)
        if let record = cached, let approvedAt = record.approvedAt, approvedAt > now() {
            // swcred never writes a future approval (it would never go stale): not trusted.
            store.warn(
                "The stored approval of \(app) by \(record.domain) is dated in the future (\(approvedAt)), which swcred never writes: it counts as missing and is verified again."
            )
            cached = nil
        }
        guard let verifier else { return cached }
        if let cached, !policy.isDue(cached, at: now()) { return cached }
        let check = await verifier.verify([(app, entry)])[0]
        let record = policy.apply(check, to: cached, at: now())
        // A check the app's own operation set off: a changed verdict is recorded as the app's.
        try store.save(record, by: .app(app))
        return record
    }
}
