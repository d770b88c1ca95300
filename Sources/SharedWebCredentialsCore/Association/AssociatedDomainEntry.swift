/// One entry of an app's associated-domains entitlement, such as
/// `webcredentials:*.example.com:8443?mode=developer` (SPEC.md §2).
public struct AssociatedDomainEntry: Hashable, Sendable, CustomStringConvertible, Codable {
    /// The associated-domain services Apple defines, and `get_login_creds`, the domains an Android
    /// app declares. Only `webcredentials` (Apple) and `get_login_creds` (Android) grant credential
    /// access.
    public enum Service: String, Sendable, Codable, CaseIterable {
        /// Shared web credentials (password autofill and the shared credential API).
        case webcredentials
        /// Universal links.
        case applinks
        /// Handoff.
        case activitycontinuation
        /// App Clips.
        case appclips
        /// An Android app's declared domain, approved by the site's Digital Asset Links statement
        /// list with `delegate_permission/common.get_login_creds`. Never in an Apple entitlement.
        case getLoginCreds = "get_login_creds"

        /// The services of Apple's associated-domains entitlement.
        public static let apple: [Service] = [.webcredentials, .applinks, .activitycontinuation, .appclips]

        /// Whether the service lets an app use the domain's credentials.
        public var grantsCredentials: Bool { self == .webcredentials || self == .getLoginCreds }
    }

    /// The alternate modes an entry may request with `?mode=`.
    public enum Mode: String, Sendable, Codable, CaseIterable {
        /// Skip the CDN and fetch from the site directly; allows IP addresses and localhost.
        case developer
        /// Managed (MDM) devices fetch from the site directly.
        case managed
    }

    /// The service before the colon.
    public let service: Service
    /// The host, lower-case ASCII (IDNA `xn--` form), without the `*.` of a wildcard.
    public let host: String
    /// Whether the entry was written `*.host` and covers every subdomain and the host itself.
    public let isWildcard: Bool
    /// A non-default port the entry is limited to, or nil.
    public let port: Int?
    /// The requested modes (empty for the normal mode).
    public let modes: Set<Mode>

    /// Parses an entitlement string; the error names the rule that was broken.
    public init(_ text: String) throws {
        let context = "associated domain \"\(text)\""
        func invalid(_ rule: String) -> SharedWebCredentialsError {
            SharedWebCredentialsError(.invalidInput, "invalid \(context): \(rule)")
        }
        guard let colon = text.firstIndex(of: ":") else {
            throw invalid("expected SERVICE:HOST, for example webcredentials:example.com")
        }
        let serviceName = String(text[..<colon])
        guard let service = Service(rawValue: serviceName) else {
            if serviceName == "https" || serviceName == "http" {
                throw invalid("remove the scheme: write webcredentials:example.com, not a URL")
            }
            throw invalid(
                "unknown service \"\(serviceName)\"; use one of \(Service.apple.map(\.rawValue).joined(separator: ", "))"
            )
        }
        var rest = Substring(text[text.index(after: colon)...])
        if rest.hasPrefix("//") || rest.contains("://") {
            throw invalid("remove the scheme: write \(serviceName):example.com, not a URL")
        }
        var modes: Set<Mode> = []
        if let question = rest.firstIndex(of: "?") {
            let query = rest[rest.index(after: question)...]
            rest = rest[..<question]
            guard query.hasPrefix("mode=") else {
                throw invalid("the only query allowed is ?mode=developer, ?mode=managed or ?mode=developer+managed")
            }
            for name in query.dropFirst(5).split(separator: "+", omittingEmptySubsequences: false) {
                guard let mode = Mode(rawValue: String(name)) else {
                    throw invalid("unknown mode \"\(name)\"; use developer, managed or developer+managed")
                }
                modes.insert(mode)
            }
        }
        if rest.contains("/") { throw invalid("remove the path or trailing slash: an entry names a host only") }
        var isWildcard = false
        if rest.hasPrefix("*.") {
            isWildcard = true
            rest = rest.dropFirst(2)
        }
        if rest.contains("*") { throw invalid("a wildcard is allowed only as a leading \"*.\"") }
        var hostPart = rest
        var port: Int?
        if rest.hasPrefix("["), let close = rest.firstIndex(of: "]") {
            hostPart = rest[...close]
            let after = rest[rest.index(after: close)...]
            if after.hasPrefix(":") {
                port = try parsePort(after.dropFirst(), context: context)
            } else if !after.isEmpty {
                throw invalid("unexpected text after the address")
            }
        } else if rest.filter({ $0 == ":" }).count == 1, let portColon = rest.lastIndex(of: ":") {
            hostPart = rest[..<portColon]
            port = try parsePort(rest[rest.index(after: portColon)...], context: context)
        }
        let (host, kind) = try HostName.normalize(String(hostPart), context: context)
        if kind == .ipAddress && !modes.contains(.developer) {
            throw invalid("an IP address is allowed only with ?mode=developer")
        }
        if kind == .localhost && !modes.contains(.developer) {
            throw invalid("localhost is allowed only with ?mode=developer")
        }
        if isWildcard && kind != .domain { throw invalid("a wildcard needs a domain name, not \(host)") }
        self.service = service
        self.host = host
        self.isWildcard = isWildcard
        self.port = port == 443 ? nil : port
        self.modes = modes
    }

    /// The canonical text of the entry (ASCII host, modes in a fixed order).
    public var description: String {
        var text =
            "\(service.rawValue):\(isWildcard ? "*." : "")\(host.utf8.contains(UInt8(ascii: ":")) ? "[\(host)]" : host)"
        if let port { text += ":\(port)" }
        let names = Mode.allCases.filter(modes.contains).map(\.rawValue)
        if !names.isEmpty { text += "?mode=" + names.joined(separator: "+") }
        return text
    }

    /// Whether the entry covers a request for `target`: same host (or a subdomain of a wildcard's
    /// host, or the wildcard's host itself) and the same port.
    public func covers(_ target: DomainTarget) -> Bool {
        guard target.port == port else { return false }
        if target.host == host { return true }
        return isWildcard && target.host.hasSuffix("." + host)
    }

    /// Where this entry's AASA file is fetched from: the host itself, or a wildcard's parent host.
    public var aasaTarget: DomainTarget { DomainTarget(normalizedHost: host, port: port) }

    public init(from decoder: any Decoder) throws {
        try self.init(try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
