/// A URL as universal-link matching sees it: its host, and its path, query and fragment in
/// percent-encoded ASCII form (non-ASCII characters and spaces encoded as UTF-8 `%XX`, escapes
/// already present kept as written).
public struct UniversalLinkURL: Sendable, Equatable, CustomStringConvertible {
    /// `https` or `http`, lower-case.
    public let scheme: String
    /// The host (and non-default port) the URL points at; its AASA file decides.
    public let target: DomainTarget
    /// The path, percent-encoded; `/` when the URL has none.
    public let path: String
    /// The query without its `?`, percent-encoded; nil when the URL has no `?`.
    public let query: String?
    /// The fragment without its `#`, percent-encoded; nil when the URL has no `#`.
    public let fragment: String?

    /// Parses an `https://` (or `http://`) URL. Throws `invalidInput` naming the problem: another
    /// scheme, user information, a bad host, or a control character (with its code point).
    public init(_ text: String) throws {
        func invalid(_ problem: String) -> SharedWebCredentialsError {
            SharedWebCredentialsError(.invalidInput, "invalid URL \"\(text)\": \(problem)")
        }
        if let bad = text.unicodeScalars.first(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
            throw invalid(
                "it contains the control character U+\(String(bad.value, radix: 16, uppercase: true).leftPadded(to: 4)); remove it"
            )
        }
        guard let schemeEnd = text.firstRange(of: "://") else {
            throw invalid("give an absolute URL such as https://example.com/path")
        }
        let scheme = text[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "https" || scheme == "http" else {
            throw invalid("universal links are http or https URLs, not \(scheme)")
        }
        self.scheme = scheme
        let afterScheme = text[schemeEnd.upperBound...]
        let authorityEnd = afterScheme.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? afterScheme.endIndex
        let authority = afterScheme[..<authorityEnd]
        if authority.contains("@") { throw invalid("remove the user name and password before the host") }
        target = try DomainTarget(String(authority), allowDeveloperHosts: true)
        var rest = afterScheme[authorityEnd...]
        var fragment: Substring?
        if let hash = rest.firstIndex(of: "#") {
            fragment = rest[rest.index(after: hash)...]
            rest = rest[..<hash]
        }
        var query: Substring?
        if let question = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: question)...]
            rest = rest[..<question]
        }
        path = rest.isEmpty ? "/" : Self.encode(rest)
        self.query = query.map(Self.encode)
        self.fragment = fragment.map(Self.encode)
    }

    /// The URL in its encoded form.
    public var description: String {
        "\(scheme)://\(target)\(path)" + (query.map { "?\($0)" } ?? "") + (fragment.map { "#\($0)" } ?? "")
    }

    /// The query's items, split at `&` and at each item's first `=`, still percent-encoded. An
    /// item without `=` has the empty value.
    public var queryItems: [(name: String, value: String)] {
        guard let query, !query.isEmpty else { return [] }
        return query.split(separator: "&", omittingEmptySubsequences: true).map { item in
            guard let equals = item.firstIndex(of: "=") else { return (String(item), "") }
            return (String(item[..<equals]), String(item[item.index(after: equals)...]))
        }
    }

    /// `text` with every non-ASCII character, space and stray `%` percent-encoded as UTF-8.
    static func encode(_ text: Substring) -> String {
        let bytes = Array(text.utf8)
        var result = ""
        result.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            let isEscape =
                byte == UInt8(ascii: "%") && index + 2 < bytes.count && bytes[index + 1].isHexDigit
                && bytes[index + 2].isHexDigit
            if byte > 0x20 && byte < 0x7F && (byte != UInt8(ascii: "%") || isEscape) {
                result.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                result += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
            index += 1
        }
        return result
    }

    /// `text` with its `%XX` escapes decoded as UTF-8 (invalid sequences become U+FFFD).
    static func decode(_ text: String) -> String {
        let bytes = Array(text.utf8)
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count, let high = bytes[index + 1].hexValue,
                let low = bytes[index + 2].hexValue
            {
                decoded.append(high << 4 | low)
                index += 3
            } else {
                decoded.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: decoded, as: UTF8.self)
    }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool { hexValue != nil }

    fileprivate var hexValue: UInt8? {
        switch self {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): self - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): self - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): self - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: Swift.max(0, width - count)) + self
    }
}
