/// A host and optional port that an operation or a fetch is aimed at: `example.com` or
/// `example.com:8443`. Port 443 is the default and is stored as `nil`.
public struct DomainTarget: Hashable, Sendable, CustomStringConvertible, Comparable {
    /// The host in lower-case ASCII (`xn--` form for IDNs); IPv6 without brackets.
    public let host: String
    /// A non-default port, or nil for 443.
    public let port: Int?

    /// Creates a target from an already-normalised host.
    public init(normalizedHost host: String, port: Int?) {
        self.host = host
        self.port = port == 443 ? nil : port
    }

    /// Parses `host[:port]` as typed by a user. IP addresses and localhost are rejected unless
    /// `allowDeveloperHosts` is true (they need `mode=developer` in an entitlement). A host of one
    /// label (an intranet's `wiki`) is rejected unless `allowSingleLabel` is true as well: no
    /// entitlement entry or AASA host can name one, so the gate never approves an app for it, but
    /// the owner may keep credentials for it, as browsers do.
    public init(_ text: String, allowDeveloperHosts: Bool = false, allowSingleLabel: Bool = false) throws {
        // A plain domain name has no port, no brackets and needs no message context.
        if let host = HostName.plainDomain(text) {
            self.init(normalizedHost: host, port: nil)
            return
        }
        let context = "domain \"\(text)\""
        var hostPart = Substring(text)
        var port: Int?
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            hostPart = text[...close]
            let rest = text[text.index(after: close)...]
            if rest.hasPrefix(":") {
                port = try parsePort(rest.dropFirst(), context: context)
            } else if !rest.isEmpty {
                throw SharedWebCredentialsError(.invalidInput, "invalid \(context): unexpected text after the address")
            }
        } else if !text.contains("://"), text.filter({ $0 == ":" }).count == 1, let colon = text.lastIndex(of: ":") {
            hostPart = text[..<colon]
            port = try parsePort(text[text.index(after: colon)...], context: context)
        }
        let (host, kind) = try HostName.normalize(
            String(hostPart), context: context, allowSingleLabel: allowDeveloperHosts && allowSingleLabel)
        if kind != .domain && !allowDeveloperHosts {
            throw SharedWebCredentialsError(
                .invalidInput,
                "invalid \(context): IP addresses and localhost are allowed only in entitlement entries with ?mode=developer"
            )
        }
        self.init(normalizedHost: host, port: port)
    }

    /// `host` or `host:port` (IPv6 in brackets), the form used in URLs and messages.
    public var description: String {
        let shown = host.utf8.contains(UInt8(ascii: ":")) ? "[\(host)]" : host
        return port.map { "\(shown):\($0)" } ?? shown
    }

    /// The port to connect to (443 when none is given).
    public var effectivePort: Int { port ?? 443 }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.host, lhs.effectivePort) < (rhs.host, rhs.effectivePort)
    }
}
