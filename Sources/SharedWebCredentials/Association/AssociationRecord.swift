import Foundation

/// One row of the `associations` table: the standing verdict for (service, app, domain) and
/// when to ask the site again, like a line of `swcutil show`.
public struct AssociationRecord: Sendable, Equatable {
    /// The service (always `webcredentials` for the gate).
    public var service: AssociatedDomainEntry.Service
    /// The app.
    public var app: ApplicationIdentifier
    /// The entitlement domain: host with `*.` and `:port` as in the entry.
    public var domain: String
    /// The standing verdict (after the re-check policy).
    public var verdict: AssociationVerdict
    /// When the site was last asked, or nil if never.
    public var checkedAt: Date?
    /// When the site should be asked again.
    public var nextCheck: Date
    /// The last failure's message, or nil after a clean success.
    public var lastError: String?
    /// Failed checks in a row (drives the back-off).
    public var retryCount: Int
    /// SHA-256 of the last file fetched.
    public var documentDigest: [UInt8]?
    /// When the site last approved the app.
    public var approvedAt: Date?

    /// Creates a record.
    public init(
        service: AssociatedDomainEntry.Service, app: ApplicationIdentifier, domain: String,
        verdict: AssociationVerdict, checkedAt: Date?, nextCheck: Date, lastError: String?, retryCount: Int,
        documentDigest: [UInt8]?, approvedAt: Date?
    ) {
        self.service = service
        self.app = app
        self.domain = domain
        self.verdict = verdict
        self.checkedAt = checkedAt
        self.nextCheck = nextCheck
        self.lastError = lastError
        self.retryCount = retryCount
        self.documentDigest = documentDigest
        self.approvedAt = approvedAt
    }
}
