/// A `--connect-to HOST:PORT:ADDR:PORT2` rule, as in curl: requests for HOST:PORT are sent to
/// ADDR:PORT2, while HOST is kept for SNI, the certificate name check and the `Host` header.
///
/// An empty PORT matches any port; an empty ADDR keeps the host's own address; an empty PORT2
/// keeps the port. HOST must be given. IPv6 addresses go in brackets: `[::1]`.
public struct ConnectToRule: Hashable, Sendable, CustomStringConvertible {
    /// The host the rule applies to (lower-case ASCII).
    public let host: String
    /// The port the rule applies to, or nil for any port.
    public let port: Int?
    /// The address (or host) to connect to instead, or nil to keep the host's own.
    public let address: String?
    /// The port to connect to instead, or nil to keep the request's port.
    public let connectPort: Int?

    /// Parses `HOST:PORT:ADDR:PORT2`.
    public init(_ text: String) throws {
        let context = "--connect-to \"\(text)\""
        func invalid(_ rule: String) -> SharedWebCredentialsError {
            SharedWebCredentialsError(.invalidInput, "invalid \(context): \(rule); expected HOST:PORT:ADDR:PORT2")
        }
        var fields: [String] = []
        var current = ""
        var inBrackets = false
        for character in text {
            switch character {
            case "[": inBrackets = true
            case "]": inBrackets = false
            case ":" where !inBrackets:
                fields.append(current)
                current = ""
                continue
            default: break
            }
            current.append(character)
        }
        fields.append(current)
        guard fields.count == 4 else { throw invalid("it has \(fields.count) fields, not 4") }
        guard !fields[0].isEmpty else { throw invalid("HOST is empty; name the host the rule is for") }
        host = try HostName.normalize(fields[0], context: context).host
        port = fields[1].isEmpty ? nil : try parsePort(Substring(fields[1]), context: context)
        if fields[2].isEmpty {
            address = nil
        } else {
            let raw =
                fields[2].hasPrefix("[") && fields[2].hasSuffix("]")
                ? String(fields[2].dropFirst().dropLast()) : fields[2]
            // A host name's rules take IPv4 and IPv6 addresses too.
            guard (try? HostName.normalize(raw, context: context)) != nil else {
                throw invalid("ADDR \"\(fields[2])\" is neither an IP address nor a host name")
            }
            address = raw
        }
        connectPort = fields[3].isEmpty ? nil : try parsePort(Substring(fields[3]), context: context)
    }

    /// Whether the rule applies to a request for `target`.
    public func matches(_ target: DomainTarget) -> Bool {
        target.host == host && (port == nil || port == target.effectivePort)
    }

    public var description: String {
        "\(host):\(port.map(String.init) ?? ""):\(address.map { $0.contains(":") ? "[\($0)]" : $0 } ?? ""):\(connectPort.map(String.init) ?? "")"
    }
}
