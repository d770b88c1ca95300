import Foundation

/// What fetching one site's Digital Asset Links statement list, and the lists it includes,
/// produced.
public struct AssetLinksFetchResult: Sendable {
    /// The three ways a fetch can end, as for apple-app-site-association files.
    public enum Outcome: Sendable {
        /// The site's list was read: its statements and those of every include that could be
        /// read, and the SHA-256 of the SHA-256 digests of every file read, in order.
        case fetched(statements: [AssetStatement], digest: [UInt8])
        /// The site answered and gives nothing: not 200, a redirect, a wrong Content-Type, a list
        /// over the size cap or not a JSON array.
        case denied
        /// The site could not be asked: network, TLS, timeout or 5xx.
        case unverified
    }

    /// The host (and port) whose list was fetched.
    public let target: DomainTarget
    /// The URL of the site's own list.
    public let url: String
    /// How it ended.
    public let outcome: Outcome
    /// Findings of the fetches and the lists: errors (why the list gives nothing) and warnings
    /// (skipped statements, includes that contributed nothing, loops).
    public let diagnostics: [AASADiagnostic]
    /// Every URL read, the site's own list first.
    public let files: [String]
    /// The smallest `Cache-Control: max-age` of the files read, in seconds, if any gave one.
    public let maximumAge: TimeInterval?
}
