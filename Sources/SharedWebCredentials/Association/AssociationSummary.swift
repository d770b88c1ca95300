import Foundation

/// One stored verdict as people and programs are shown it, in the JSON shape of DESIGN.md:
/// `verify --json`, `show --json` and the service's `GET /v1/associations` all print this.
///
/// The verdict is the one that may be acted on now (``RecheckPolicy/effectiveVerdict(_:at:)``):
/// an approval past the staleness limit shows as `unverified`, as the gate treats it, never as
/// the `approved` still stored.
public struct AssociationSummary: Sendable, Equatable, Encodable {
    /// The service: `webcredentials`, `applinks` and so on.
    public let service: String
    /// The app.
    public let app: String
    /// The entitlement domain, with `*.` and `:port` as in the entry.
    public let domain: String
    /// `approved`, `denied` or `unverified`, as of the summary's time.
    public let verdict: String
    /// When the site was last asked (ISO 8601), or nil if never.
    public let checkedAt: String?
    /// When the site will be asked again (ISO 8601).
    public let nextCheck: String
    /// The last failure's message, or nil after a clean success.
    public let error: String?

    /// Summarises `record` under `policy` as of `now`.
    public init(_ record: AssociationRecord, policy: RecheckPolicy = RecheckPolicy(), at now: Date = Date()) {
        service = record.service.rawValue
        app = record.app.description
        domain = record.domain
        verdict = policy.effectiveVerdict(record, at: now).rawValue
        checkedAt = record.checkedAt?.formatted(.iso8601)
        nextCheck = record.nextCheck.formatted(.iso8601)
        error = record.lastError
    }

    enum CodingKeys: String, CodingKey {
        case service, app, domain, verdict, error
        case checkedAt = "checked_at"
        case nextCheck = "next_check"
    }

    /// Encodes every key, with `null` for a missing check time or error, so that the shape
    /// never changes with the data.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(service, forKey: .service)
        try container.encode(app, forKey: .app)
        try container.encode(domain, forKey: .domain)
        try container.encode(verdict, forKey: .verdict)
        try container.encode(checkedAt, forKey: .checkedAt)
        try container.encode(nextCheck, forKey: .nextCheck)
        try container.encode(error, forKey: .error)
    }
}
