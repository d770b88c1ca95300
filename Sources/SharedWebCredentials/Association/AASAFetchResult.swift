/// What fetching one host's apple-app-site-association file produced.
public struct AASAFetchResult: Sendable {
    /// The three ways a fetch can end (SPEC.md §3).
    public enum Outcome: Sendable {
        /// HTTP 200 with a body within 128 KiB: the file, ready to be checked.
        case fetched(body: [UInt8], contentType: String?)
        /// The site answered and refuses: 4xx on both paths, a redirect, or a body over 128 KiB.
        case denied
        /// The site could not be asked: network, TLS, timeout or 5xx.
        case unverified
    }

    /// The host (and port) whose file was fetched.
    public let target: DomainTarget
    /// The URL of the last request made.
    public let url: String
    /// How it ended.
    public let outcome: Outcome
    /// Findings of the fetch itself: the reason for a refusal or failure (an error) and advice
    /// such as the deprecated legacy path (a warning).
    public let diagnostics: [AASADiagnostic]
}
