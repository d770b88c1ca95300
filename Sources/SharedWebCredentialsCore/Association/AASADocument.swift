/// The parts of an apple-app-site-association file the gate and its diagnostics use.
public struct AASADocument: Hashable, Sendable {
    /// The strings listed in `webcredentials.apps` (non-strings and non-ASCII entries already
    /// dropped with a warning).
    public var webcredentialsApps: [String] = []
    /// Whether the file has a `webcredentials` object at all.
    public var hasWebcredentials = false
    /// Where a `webcredentials` object sits nested, ignored by iOS (such as `applinks`), if the
    /// file has none at the top level.
    public var misplacedWebcredentials: String?
    /// The `applinks.details` entries, parsed so diagnostics can describe them.
    public var applinks: [ApplinksDetail] = []
    /// `applinks.apps` (the legacy empty array), when present.
    public var applinksLegacyApps: [String]?
    /// App IDs listed under `appclips.apps`.
    public var appclipsApps: [String] = []
    /// App IDs listed under `activitycontinuation.apps`.
    public var activityContinuationApps: [String] = []

    /// Creates an empty document.
    public init() {}

    /// Whether `webcredentials.apps` lists `app` (prefix case-insensitive, bundle ID exact).
    public func approvesWebcredentials(_ app: ApplicationIdentifier) -> Bool {
        webcredentialsApps.contains { app.isNamed(by: $0) }
    }

    /// Every app ID named under `applinks` (both `appID` and `appIDs`).
    public var applinksApps: [String] { applinks.flatMap(\.appIDs) }
}

/// One entry of `applinks.details`, in either of its two formats.
public struct ApplinksDetail: Hashable, Sendable {
    /// How the entry describes its URLs.
    public enum Patterns: Hashable, Sendable {
        /// The legacy (iOS 12 and earlier) `paths` array of strings, `NOT ` prefixes for exclusions.
        case paths([String])
        /// The iOS 13+ `components` array; each item's `/`, `?`, `#` and `exclude` keys.
        case components([Component])
        /// Neither key present.
        case none
    }

    /// One item of a `components` array.
    public struct Component: Hashable, Sendable {
        /// The path pattern (`/`).
        public var path: String?
        /// The query pattern (`?`), a string or an object flattened to `key=value` pairs.
        public var query: String?
        /// The fragment pattern (`#`).
        public var fragment: String?
        /// Whether matching URLs are excluded.
        public var exclude: Bool
        /// The free-text comment.
        public var comment: String?
    }

    /// The app IDs the entry names (`appID` or `appIDs`).
    public var appIDs: [String]
    /// The URL patterns.
    public var patterns: Patterns
}
