import Foundation

/// When to ask a site again, and how a new check changes a standing verdict (SPEC.md §3).
///
/// - Approval: re-check after ``successInterval`` (5 days), or sooner when the site's Digital
///   Asset Links list carries `Cache-Control: max-age`: after max-age, but never sooner than
///   ``minimumCacheLifetime`` (1 hour).
/// - Failure or refusal: re-check after ``failureInterval`` (3.5 hours), doubling with each failure
///   in a row, at most ``successInterval``.
/// - A failed re-check (network, TLS, 5xx) keeps an approval until it is ``stalenessLimit``
///   (30 days) old; a re-check that reaches the site and no longer finds the app revokes at once.
public struct RecheckPolicy: Sendable {
    /// How long an approval is trusted before it is checked again.
    public var successInterval: TimeInterval
    /// The first wait after a failure or refusal.
    public var failureInterval: TimeInterval
    /// How long an approval survives failed re-checks.
    public var stalenessLimit: TimeInterval
    /// The shortest re-check interval a `Cache-Control: max-age` can set, so that a site cannot
    /// make every request wait on the network.
    public var minimumCacheLifetime: TimeInterval = 3_600

    /// The policy of SPEC.md §3: 5 days, 3.5 hours, 30 days.
    public init(
        successInterval: TimeInterval = 5 * 86_400, failureInterval: TimeInterval = 3.5 * 3_600,
        stalenessLimit: TimeInterval = 30 * 86_400
    ) {
        self.successInterval = successInterval
        self.failureInterval = failureInterval
        self.stalenessLimit = stalenessLimit
    }

    /// The record that results from a fresh check, given the one before it (if any).
    public func apply(_ check: DomainVerification, to previous: AssociationRecord?, at now: Date) -> AssociationRecord {
        var record =
            previous
            ?? AssociationRecord(
                service: check.entry.service, app: check.app, domain: AssociationStore.domainKey(for: check.entry),
                verdict: .unverified, checkedAt: nil, nextCheck: now, lastError: nil, retryCount: 0,
                documentDigest: nil, approvedAt: nil)
        record.checkedAt = now
        if let digest = check.documentDigest { record.documentDigest = digest }
        switch check.verdict {
        case .approved:
            record.verdict = .approved
            record.approvedAt = now
            record.retryCount = 0
            record.lastError = nil
            record.nextCheck = now + approvalLifetime(maximumAge: check.maximumAge)
            return record
        case .denied:
            record.verdict = .denied
            record.approvedAt = nil
        case .unverified:
            record.verdict = isFreshApproval(record, at: now) ? .approved : .unverified
        }
        record.retryCount += 1
        // Stored for display by every later `show`: escaped once here, as it comes from the site.
        record.lastError = check.summary.map(DisplayText.escaped)
        record.nextCheck = now + backoff(afterFailures: record.retryCount)
        return record
    }

    /// How long an approval stands before it is checked again: ``successInterval``, or the site's
    /// max-age when that is shorter, but at least ``minimumCacheLifetime``.
    public func approvalLifetime(maximumAge: TimeInterval?) -> TimeInterval {
        guard let maximumAge else { return successInterval }
        return min(successInterval, max(minimumCacheLifetime, maximumAge))
    }

    /// The wait after `failures` failed checks in a row.
    public func backoff(afterFailures failures: Int) -> TimeInterval {
        let doublings = Double(max(0, min(failures - 1, 16)))
        return min(failureInterval * pow(2, doublings), successInterval)
    }

    /// Whether the site should be asked again: the re-check time has come, or the standing
    /// approval has gone stale.
    public func isDue(_ record: AssociationRecord, at now: Date) -> Bool {
        now >= record.nextCheck || (record.verdict == .approved && !isFreshApproval(record, at: now))
    }

    /// The verdict that may be acted on now: an approval older than the staleness limit no
    /// longer counts (it becomes `unverified`).
    public func effectiveVerdict(_ record: AssociationRecord, at now: Date) -> AssociationVerdict {
        if record.verdict == .approved && !isFreshApproval(record, at: now) { return .unverified }
        return record.verdict
    }

    /// An approval counts from when it was given until the staleness limit; one dated in the
    /// future (which no check writes) never counts.
    private func isFreshApproval(_ record: AssociationRecord, at now: Date) -> Bool {
        guard record.verdict == .approved, let approvedAt = record.approvedAt, approvedAt <= now else { return false }
        return now.timeIntervalSince(approvedAt) < stalenessLimit
    }
}
