import Foundation

/// The verdict a site gives an app, as stored per (service, app, domain).
public enum AssociationVerdict: String, Sendable, Codable, CaseIterable {
    /// The site's file lists the app in `webcredentials.apps`.
    case approved
    /// The site was reached and does not approve: app not listed, unusable file, 4xx or redirect.
    case denied
    /// The site could not be asked (network, TLS, timeout, 5xx) and no approval stands.
    case unverified
}

/// The outcome of verifying one app against one entitlement entry's site.
public struct DomainVerification: Sendable {
    /// The app.
    public let app: ApplicationIdentifier
    /// The entitlement entry verified, of any service (its AASA comes from ``aasaTarget``).
    public let entry: AssociatedDomainEntry
    /// The verdict of this check alone (before the re-check policy is applied).
    public let verdict: AssociationVerdict
    /// Why: errors that explain a refusal or failure, and warnings worth fixing.
    public let reasons: [AASADiagnostic]
    /// The SHA-256 digest of the file that decided it, when one was fetched.
    public let documentDigest: [UInt8]?
    /// The site's `Cache-Control: max-age` in seconds, when it gave one (Digital Asset Links
    /// lists): the re-check policy honours it within its bounds.
    public internal(set) var maximumAge: TimeInterval? = nil

    /// Where the file was fetched: the entry's host, or a wildcard's parent host.
    public var aasaTarget: DomainTarget { entry.aasaTarget }

    /// The first error's message, the one-line reason shown for a refusal or failure.
    public var summary: String? { reasons.first { $0.severity == .error }?.message }
}
