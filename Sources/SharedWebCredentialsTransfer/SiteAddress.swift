import SharedWebCredentials

/// Where an imported URL points: a website the vault can store a credential for, an Android
/// app, or nothing usable.
enum SiteAddress: Equatable {
    /// A web server: the host (IDNs in `xn--` form) and its non-default port. `insecure` when the
    /// URL was `http:`, which the summary flags.
    case site(DomainTarget, insecure: Bool)
    /// `android://HASH@PACKAGE/`, as Chrome writes for Android apps.
    case android(package: String)

    /// Parses a URL as password managers write it: a scheme (`https`, `http`, or none, for a bare
    /// host as KeePassXC often holds), the host and port kept, user info, path, query and
    /// fragment dropped. Throws `.invalidInput` naming the problem.
    static func parse(_ text: String) throws -> SiteAddress {
        let trimmed = text.trimmedOfSpaces
        guard !trimmed.isEmpty else { throw invalid(text, "it is empty") }
        var rest = Substring(trimmed)
        var scheme = "https"
        if let separator = trimmed.firstRange(of: "://") {
            scheme = trimmed[..<separator.lowerBound].lowercased()
            rest = trimmed[separator.upperBound...]
        }
        if scheme == "android" {
            let authority = rest.prefix { $0 != "/" }
            let package = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? ""
            guard !package.isEmpty else { throw invalid(text, "the Android URL names no package") }
            return .android(package: String(package))
        }
        guard scheme == "https" || scheme == "http" else {
            throw invalid(text, "the scheme \"\(scheme)\" is not a web address (use https or http)")
        }
        var authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        if scheme == "http", authority.hasSuffix(":80") { authority = authority.dropLast(3) }
        do {
            return .site(try DomainTarget(String(authority), allowDeveloperHosts: true), insecure: scheme == "http")
        } catch let error as SharedWebCredentialsError {
            throw invalid(text, error.message)
        }
    }

    private static func invalid(_ text: String, _ problem: String) -> SharedWebCredentialsError {
        SharedWebCredentialsError(.invalidInput, "the URL \"\(text)\" cannot be used: \(problem)")
    }
}
