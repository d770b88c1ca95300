/// The protocol of a credential's server, part of its identity as `kSecAttrProtocol` is of a
/// keychain's internet password: the same host, port and account saved for `http://` and for
/// `https://` are two credentials, and an `http://` page never gets an `https://` one.
public enum CredentialScheme: String, Sendable, Hashable, CaseIterable {
    /// `https://`, the scheme of every credential apps reach, and of every credential saved before
    /// schemes were kept.
    case https
    /// `http://`: saved only by a browser the owner allowed http pages for, by an import of an
    /// `http://` URL, or by the owner.
    case http

    /// The port a URL of this scheme means when it names none (443 or 80), kept as no port.
    public var defaultPort: Int {
        switch self {
        case .https: 443
        case .http: 80
        }
    }

    /// Where credentials of this scheme come among those of one server and port: https first.
    var listOrder: Int { self == .https ? 0 : 1 }
}

/// What a credential is saved for: a scheme, a host and a port (nil for the scheme's default).
/// Two sites are the same only when all three are.
public struct CredentialSite: Hashable, Sendable, CustomStringConvertible {
    /// `https` or `http`.
    public let scheme: CredentialScheme
    /// The normalised host (lower-case ASCII, `xn--` form; IPv6 without brackets).
    public let host: String
    /// The port, only when it is not the scheme's default.
    public let port: Int?

    /// A site for a normalised host; a port equal to the scheme's default is kept as none.
    public init(scheme: CredentialScheme, host: String, port: Int?) {
        self.scheme = scheme
        self.host = host
        self.port = port == scheme.defaultPort ? nil : port
    }

    /// Parses `host[:port]` after `scheme://` (IPv6 in brackets), as ``DomainTarget`` parses it,
    /// keeping a written port 443 for http (where it is not the default).
    public init(
        scheme: CredentialScheme, authority: String, allowDeveloperHosts: Bool = false, allowSingleLabel: Bool = false
    ) throws {
        let target = try DomainTarget(
            authority, allowDeveloperHosts: allowDeveloperHosts, allowSingleLabel: allowSingleLabel)
        // The target keeps 443 as no port; the text wrote it when what follows its last colon is
        // 443 in any spelling (`host:443`, `host:0443`) and what precedes it is a host (so not the
        // last group of an IPv6 address, `::443`).
        var wrote443 = false
        if let colon = authority.lastIndex(of: ":"), Int(authority[authority.index(after: colon)...]) == 443 {
            wrote443 =
                (try? DomainTarget(
                    String(authority[..<colon]), allowDeveloperHosts: allowDeveloperHosts,
                    allowSingleLabel: allowSingleLabel)) != nil
        }
        self.init(scheme: scheme, host: target.host, port: target.port ?? (wrote443 ? 443 : nil))
    }

    /// Parses a site as the owner types it: `host[:port]` for https, or with `https://` or
    /// `http://` before it (one trailing `/` allowed). Any other text is an error.
    public init(_ text: String, allowDeveloperHosts: Bool = false, allowSingleLabel: Bool = false) throws {
        var scheme = CredentialScheme.https
        var authority = Substring(text)
        if let separator = text.range(of: "://") {
            guard let named = CredentialScheme(rawValue: text[..<separator.lowerBound].lowercased()) else {
                throw SharedWebCredentialsError(
                    .invalidInput, "invalid site \"\(text)\": the scheme must be https:// or http://, or none for https"
                )
            }
            scheme = named
            authority = text[separator.upperBound...]
            if authority.hasSuffix("/") { authority = authority.dropLast() }
        }
        try self.init(
            scheme: scheme, authority: String(authority), allowDeveloperHosts: allowDeveloperHosts,
            allowSingleLabel: allowSingleLabel)
    }

    /// The origin as a URL writes it, scheme always named: `https://shop.example`,
    /// `http://shop.example:8443`, `https://[::1]:8443`.
    public var description: String { "\(scheme.rawValue)://\(hostAndPort)" }

    /// The site as lists and the audit log show it: `host[:port]` for https, as every credential
    /// was shown before schemes were kept, and `http://host[:port]` for http.
    public var name: String { scheme == .https ? hostAndPort : description }

    /// `host` or `host:port` (IPv6 in brackets), without the scheme.
    public var hostAndPort: String {
        let shown = host.utf8.contains(UInt8(ascii: ":")) ? "[\(host)]" : host
        return port.map { "\(shown):\($0)" } ?? shown
    }
}
