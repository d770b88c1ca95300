import Foundation

/// Host names as the association gate uses them: lower-case ASCII, Unicode names converted with
/// IDNA to their `xn--` form (SPEC.md §2).
public enum HostName {
    /// What kind of host a validated name is.
    public enum Kind: Sendable, Equatable {
        /// A domain name with at least two labels.
        case domain
        /// An IPv4 or IPv6 address literal (allowed only in developer mode).
        case ipAddress
        /// `localhost` (allowed only in developer mode).
        case localhost
        /// A name of one label other than `localhost`, such as an intranet's `wiki`: returned only
        /// when the caller allows it. No entitlement entry or AASA host can name one.
        case singleLabel
    }

    /// Converts a host to lower-case ASCII (IDNA for Unicode labels) and checks SPEC.md §2's rules.
    ///
    /// - Parameters:
    ///   - context: how the caller names the input in error messages (e.g. `domain "x"`).
    ///   - allowSingleLabel: whether a name of one label (an intranet host such as `wiki`) is
    ///     returned as `.singleLabel` instead of refused for having no dot.
    /// - Returns: the ASCII host and its kind. IP and localhost are returned; the caller decides
    ///   whether its mode allows them.
    public static func normalize(
        _ input: String, context: String, allowSingleLabel: Bool = false
    ) throws -> (host: String, kind: Kind) {
        if let host = plainDomain(input) { return (host, .domain) }
        return try normalizeValidating(input, context: context, allowSingleLabel: allowSingleLabel)
    }

    /// The lower-cased host when `input` is a plain domain name, the common case: ASCII letters,
    /// digits, hyphens and dots only, at least two labels of 1 to 63 characters that neither start
    /// nor end with a hyphen, at most 253 characters, a top-level label that is not all digits.
    /// Nil for anything else, which ``normalizeValidating(_:context:allowSingleLabel:)`` decides;
    /// for the names this accepts, that returns the same host as `.domain`. One pass over the
    /// bytes, for the hosts a request names on the service's hot path.
    package static func plainDomain(_ input: String) -> String? {
        var input = input
        return input.withUTF8 { bytes -> String? in
            guard bytes.count <= 253 else { return nil }
            var labels = 0
            var labelLength = 0
            var labelAllDigits = true
            var previous: UInt8 = UInt8(ascii: ".")
            var hasUpperCase = false
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "."):
                    guard labelLength > 0, previous != UInt8(ascii: "-") else { return nil }
                    labels += 1
                    labelLength = 0
                    labelAllDigits = true
                case UInt8(ascii: "-"):
                    guard labelLength > 0 else { return nil }
                    labelLength += 1
                    labelAllDigits = false
                case UInt8(ascii: "0")...UInt8(ascii: "9"):
                    labelLength += 1
                case UInt8(ascii: "a")...UInt8(ascii: "z"):
                    labelLength += 1
                    labelAllDigits = false
                case UInt8(ascii: "A")...UInt8(ascii: "Z"):
                    labelLength += 1
                    labelAllDigits = false
                    hasUpperCase = true
                default:
                    return nil
                }
                guard labelLength <= 63 else { return nil }
                previous = byte
            }
            // The last label: not empty, no trailing hyphen, not all digits (which also rules out
            // an IPv4 address); and at least one dot before it.
            guard labelLength > 0, previous != UInt8(ascii: "-"), !labelAllDigits, labels >= 1 else { return nil }
            guard hasUpperCase else { return String(decoding: bytes, as: UTF8.self) }
            return String(
                decoding: bytes.lazy.map { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) ? $0 | 0x20 : $0 },
                as: UTF8.self)
        }
    }

    /// ``normalize(_:context:allowSingleLabel:)`` for any input, every rule checked in turn, so
    /// that the error names the first rule broken.
    package static func normalizeValidating(
        _ input: String, context: String, allowSingleLabel: Bool = false
    ) throws -> (host: String, kind: Kind) {
        func invalid(_ rule: String) -> SharedWebCredentialsError {
            SharedWebCredentialsError(.invalidInput, "invalid \(context): \(rule)")
        }
        if input.isEmpty { throw invalid("the host is empty") }
        if input.contains("://") { throw invalid("remove the scheme (https://): give the host name only") }
        if input.contains("/") { throw invalid("remove the path or trailing slash: give the host name only") }
        if input.contains(where: { $0.isWhitespace }) { throw invalid("the host contains white space") }
        if input.hasPrefix("[") && input.hasSuffix("]") {
            let inner = String(input.dropFirst().dropLast())
            guard isIPv6(inner) else { throw invalid("\(input) is not a valid IPv6 address") }
            return (inner.lowercased(), .ipAddress)
        }
        if isIPv4(input) || isIPv6(input) { return (input.lowercased(), .ipAddress) }
        if input.hasSuffix(".") { throw invalid("remove the trailing dot") }
        if input.hasPrefix(".") { throw invalid("the host starts with a dot") }
        if input.contains("..") { throw invalid("the host has an empty label (\"..\")") }
        // NFC composition matters only for non-ASCII input; skip its cost otherwise.
        let mapped =
            input.utf8.allSatisfy { $0 < 0x80 }
            ? input.lowercased() : input.precomposedStringWithCanonicalMapping.lowercased()
        // Messages quote each label as the user wrote it, never lower-cased.
        let written = input.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var labels: [String] = []
        for (index, label) in mapped.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            .enumerated()
        {
            let original = index < written.count ? written[index] : label
            labels.append(try asciiLabel(label, as: original, invalid: invalid))
        }
        let host = labels.joined(separator: ".")
        if host == "localhost" { return (host, .localhost) }
        if labels.count < 2, allowSingleLabel, !host.allSatisfy(\.isNumber) { return (host, .singleLabel) }
        if labels.count < 2 {
            throw invalid(
                "\"\(input)\" has no dot: use a full domain name such as example.com (bare TLDs are not allowed)")
        }
        if host.utf8.count > 253 { throw invalid("the host is longer than 253 characters") }
        if labels.last!.allSatisfy(\.isNumber) {
            throw invalid("the top-level label \"\(written.last ?? labels.last!)\" is numeric")
        }
        return (host, .domain)
    }

    /// The ASCII form of one label (`label` already lower-cased); messages quote it as `written`.
    private static func asciiLabel(
        _ label: String, as written: String, invalid: (String) -> SharedWebCredentialsError
    ) throws -> String {
        if label.isEmpty { throw invalid("the host has an empty label") }
        var ascii = label
        if !label.unicodeScalars.allSatisfy(\.isASCII) {
            guard
                label.unicodeScalars.allSatisfy({
                    $0.isASCII
                        ? ($0.isASCIIAlphanumeric || $0 == "-")
                        : $0.properties.isAlphabetic || $0.properties.numericType != nil
                            || $0.properties.generalCategory == .nonspacingMark
                            || $0.properties.generalCategory == .spacingMark
                })
            else { throw invalid("the label \"\(written)\" contains a character not allowed in host names") }
            // "xn--" plus at least one character per scalar: a longer label can never fit in 63,
            // and refusing it here keeps huge labels away from the quadratic Punycode encoder.
            if label.unicodeScalars.count > 59 {
                throw invalid("the label \"\(written)\" is longer than 63 characters in its xn-- form")
            }
            guard let encoded = Punycode.encode(label) else {
                throw invalid("the label \"\(written)\" cannot be encoded")
            }
            ascii = "xn--" + encoded
        }
        guard ascii.unicodeScalars.allSatisfy({ $0.isASCIIAlphanumeric || $0 == "-" }) else {
            throw invalid("the label \"\(written)\" may contain only letters, digits and hyphens")
        }
        if ascii.hasPrefix("-") || ascii.hasSuffix("-") {
            throw invalid("the label \"\(written)\" starts or ends with a hyphen")
        }
        if ascii.utf8.count > 63 { throw invalid("the label \"\(written)\" is longer than 63 characters") }
        return ascii
    }

    /// Whether a string is a dotted-quad IPv4 address.
    package static func isIPv4(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4
            && parts.allSatisfy {
                !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isASCIIDigitCharacter) && UInt8($0) != nil
            }
    }

    /// Whether a string is an IPv6 address literal (checked with `inet_pton`). Only hex digits,
    /// colons and dots reach `inet_pton`: it reads a C string, so `::1` NUL `junk` would pass.
    package static func isIPv6(_ text: String) -> Bool {
        guard text.contains(":"),
            text.unicodeScalars.allSatisfy({ $0.properties.isASCIIHexDigit || $0 == ":" || $0 == "." })
        else { return false }
        var address = in6_addr()
        return inet_pton(AF_INET6, text, &address) == 1
    }
}

extension Character {
    /// Whether the character is exactly one of the ASCII digits 0-9. (A range of `Character`s
    /// would not do: `("0"..."9").contains("1\u{301}")` is true, since a digit followed by a
    /// combining mark sorts between "0" and "9".)
    var isASCIIDigitCharacter: Bool { asciiValue.map { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } ?? false }
}

/// Parses a port number from text, requiring 1...65535.
package func parsePort(_ text: Substring, context: String) throws -> Int {
    guard !text.isEmpty, text.allSatisfy(\.isASCIIDigitCharacter), text.count <= 5, let port = Int(text),
        (1...65535).contains(port)
    else {
        throw SharedWebCredentialsError(.invalidInput, "invalid \(context): the port \"\(text)\" is not in 1...65535")
    }
    return port
}
