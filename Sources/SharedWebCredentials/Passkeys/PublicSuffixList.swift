import SharedWebCredentialsCore
import SharedWebCredentialsData

/// The Public Suffix List (<https://publicsuffix.org/>): the names under which anyone can register
/// a domain (`com`, `co.uk`, `github.io`), so that no site may claim one as its own.
///
/// Both sections count, ICANN's and the private one (`github.io`, `blogspot.com`), as browsers
/// count them for WebAuthn. The rules follow the list's algorithm: a normal rule names a suffix,
/// `*.` stands for any one label, a `!` rule is an exception to a wildcard, the longest matching
/// rule wins (an exception over all), and a name that no rule matches has its last label as its
/// public suffix (the implicit `*` rule). Rules written in Unicode are compared in their IDNA
/// (`xn--`) form, as ``HostName`` makes hosts.
///
/// The list is the copy of Debian's `publicsuffix` package embedded in the binary (see
/// THIRD-PARTY-NOTICES.md for how to update it), so a machine without the package works the same.
public struct PublicSuffixList: Sendable {
    /// The embedded list, parsed on first use.
    public static let embedded = PublicSuffixList(text: EmbeddedPublicSuffixListData.text)

    private var normal: Set<String> = []
    /// Wildcard rules `*.X`, stored as `X`.
    private var wildcard: Set<String> = []
    /// Exception rules `!X`, stored as `X`.
    private var exception: Set<String> = []

    /// The number of rules read (every section).
    public private(set) var ruleCount = 0
    /// Rules that could not be read as host names (none in a well-formed list); skipped.
    public private(set) var skippedRules: [String] = []

    /// Reads a list in the format of `public_suffix_list.dat`: one rule per line, `//` comments,
    /// blank lines ignored, and only the text before the first white space of a line counts.
    public init(text: String) {
        for line in text.split(whereSeparator: \.isNewline) {
            guard let rule = line.split(whereSeparator: \.isWhitespace).first, !rule.hasPrefix("//") else {
                continue
            }
            add(String(rule))
        }
    }

    private mutating func add(_ rule: String) {
        var name = Substring(rule)
        var kind = 0  // 0 normal, 1 wildcard, 2 exception
        if name.hasPrefix("!") {
            kind = 2
            name = name.dropFirst()
        } else if name.hasPrefix("*.") {
            kind = 1
            name = name.dropFirst(2)
        }
        guard let ascii = Self.asciiName(String(name)) else {
            skippedRules.append(rule)
            return
        }
        switch kind {
        case 1: wildcard.insert(ascii)
        case 2: exception.insert(ascii)
        default: normal.insert(ascii)
        }
        ruleCount += 1
    }

    /// A rule's name in lower-case ASCII, labels converted with IDNA; nil if it is not a host name.
    private static func asciiName(_ name: String) -> String? {
        guard let normalized = try? HostName.normalize(name, context: "public suffix rule", allowSingleLabel: true),
            normalized.kind == .domain || normalized.kind == .singleLabel
        else { return nil }
        return normalized.host
    }

    /// The public suffix of a host given in lower-case ASCII (as ``HostName`` returns it): the
    /// longest suffix the rules make public. Every host has one: its last label at least.
    public func publicSuffix(ofNormalizedHost host: String) -> String {
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        var longest = 1  // the implicit "*" rule
        for count in stride(from: labels.count, through: 1, by: -1) {
            let suffix = labels.suffix(count).joined(separator: ".")
            if exception.contains(suffix) {
                // An exception rule wins over every other rule: its suffix minus its first label.
                return labels.suffix(count - 1).joined(separator: ".")
            }
            if count > longest {
                if normal.contains(suffix) {
                    longest = count
                } else if count >= 2, wildcard.contains(labels.suffix(count - 1).joined(separator: ".")) {
                    longest = count
                }
            }
        }
        return labels.suffix(longest).joined(separator: ".")
    }

    /// Whether a host in lower-case ASCII is itself a public suffix (so no site can own it).
    public func isPublicSuffix(normalizedHost host: String) -> Bool {
        publicSuffix(ofNormalizedHost: host) == host
    }

    /// The registrable domain of a host in lower-case ASCII: its public suffix plus one label.
    /// Nil when the host is a public suffix.
    public func registrableDomain(ofNormalizedHost host: String) -> String? {
        let suffix = publicSuffix(ofNormalizedHost: host)
        guard host != suffix else { return nil }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        let suffixLabels = suffix.split(separator: ".", omittingEmptySubsequences: false).count
        return labels.suffix(suffixLabels + 1).joined(separator: ".")
    }
}
