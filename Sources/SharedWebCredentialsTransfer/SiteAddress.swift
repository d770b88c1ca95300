import SharedWebCredentials

/// Where an imported URL points: a website the vault can store a credential for, an Android
/// app, something else that is not a website, or a malformed web address (an error).
enum SiteAddress: Equatable {
    /// A web server: its scheme (`http` only for an `http:` URL, which the summary flags; a bare
    /// host is `https`), the host (IDNs in `xn--` form) and its port when not the scheme's default.
    case site(CredentialSite)
    /// `android://HASH@PACKAGE/`, as Chrome writes for Android apps.
    case android(package: String)
    /// Not a website: another scheme (`ssh:`, `file:`, Firefox's own `chrome:`…), or text without
    /// a scheme that is no host name (a title in the URL column). `what` says which, without
    /// quoting the URL (which may hold a user name and password).
    case notWeb(String)

    /// Parses a URL as password managers write it: a scheme (`https`, `http`, or none, for a bare
    /// host with a dot as KeePassXC often holds), the host and port kept, user info, path, query and
    /// fragment dropped. Throws `.invalidInput` naming the problem only for an `https:` or
    /// `http:` URL whose host is malformed: that is a damaged row, where another scheme or a
    /// value that is no host at all is a credential for something other than a website.
    static func parse(_ text: String) throws -> SiteAddress {
        let trimmed = text.trimmedOfSpaces
        guard !trimmed.isEmpty else { throw SharedWebCredentialsError(.invalidInput, "the URL is empty") }
        var rest = Substring(trimmed)
        var scheme: String?
        if let separator = trimmed.firstRange(of: "://") {
            scheme = trimmed[..<separator.lowerBound].lowercased()
            rest = trimmed[separator.upperBound...]
        } else if let colon = trimmed.firstIndex(of: ":"), isScheme(trimmed[..<colon]),
            trimmed[colon...].dropFirst().first.map({ !($0.isASCII && $0.isNumber) }) ?? true
        {
            // `mailto:`, `about:blank`: a scheme without `//` (`host:8080` is a port, not one).
            return .notWeb("\(trimmed[..<colon].lowercased()): URL")
        }
        if scheme == "android" {
            let authority = rest.prefix { $0 != "/" }
            let package = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? ""
            guard !package.isEmpty else {
                throw SharedWebCredentialsError(.invalidInput, "the android:// URL names no package")
            }
            return .android(package: String(package))
        }
        if let scheme, scheme != "https" && scheme != "http" {
            return .notWeb(isScheme(Substring(scheme)) ? "\(scheme): URL" : "no web address")
        }
        var authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        do {
            // A single-label (intranet) host needs its scheme, as browsers write it: a bare word
            // is more likely a title in the URL column than a host.
            return .site(
                try CredentialSite(
                    scheme: scheme == "http" ? .http : .https, authority: String(authority), allowDeveloperHosts: true,
                    allowSingleLabel: scheme != nil))
        } catch let error as SharedWebCredentialsError {
            // Without a scheme, text that is no host name is not a web address at all.
            guard scheme != nil else { return .notWeb("no web address: no scheme, and no host name") }
            throw invalid(host: authority, error.message)
        }
    }

    /// Whether `text` is a URL scheme: an ASCII letter, then ASCII letters, digits, `+` or `-`.
    /// RFC 3986 allows `.` as well, but text with a dot (`example.com:8443`) is taken for a host.
    private static func isScheme(_ text: Substring) -> Bool {
        guard let first = text.first, first.isLetter else { return false }
        return text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-") }
    }

    /// The error for a web URL whose host is malformed, naming the host (and port) only: the
    /// rest of the URL may hold a user name and password (`https://user:pass@host/`), a path or a
    /// query with a token, and error messages never carry secrets.
    private static func invalid(host: Substring, _ problem: String) -> SharedWebCredentialsError {
        SharedWebCredentialsError(.invalidInput, "the URL for host \"\(host)\" cannot be used: \(problem)")
    }
}
