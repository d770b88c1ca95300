/// One statement of a Digital Asset Links statement list: the site (the principal) declares
/// `relations` about `target`, as in `[{"relation": [...], "target": {...}}]`.
public struct AssetStatement: Sendable, Equatable {
    /// What a statement is about.
    public enum Target: Sendable, Equatable {
        /// `{"namespace": "android_app", "package_name": ..., "sha256_cert_fingerprints": [...]}`.
        case androidApp(packageName: String, fingerprints: [CertificateFingerprint])
        /// `{"namespace": "web", "site": "https://host[:port]"}`: `site` as written (without a
        /// trailing slash), `https` the site when its scheme is HTTPS (nil for `http:`).
        case web(site: String, https: DomainTarget?)
    }

    /// The relation strings, each `kind/detail`, such as `delegate_permission/common.get_login_creds`.
    public let relations: [String]
    /// The target.
    public let target: Target
    /// The URL (or file name) of the list the statement was read from.
    public let source: String

    /// Creates a statement.
    public init(relations: [String], target: Target, source: String) {
        self.relations = relations
        self.target = target
        self.source = source
    }
}

/// The relation strings swcred acts on.
public enum AssetRelation {
    /// Grants the target permission to retrieve sign-in credentials stored for the source: the
    /// one relation that lets an app (or another site) use a site's passwords.
    public static let getLoginCredentials = "delegate_permission/common.get_login_creds"
    /// Grants the target permission to handle all URLs the source can handle (App Links). It
    /// shares no credentials.
    public static let handleAllURLs = "delegate_permission/common.handle_all_urls"

    /// Whether `text` is a well-formed relation string: `kind/detail`, each part one or more of
    /// `a-z`, `0-9`, `_` and `.`.
    public static func isWellFormed(_ text: String) -> Bool {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        return parts.count == 2
            && parts.allSatisfy { part in
                !part.isEmpty
                    && part.unicodeScalars.allSatisfy {
                        ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" || $0 == "."
                    }
            }
    }
}
