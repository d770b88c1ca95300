import Foundation
import SharedWebCredentialsData

/// One entry of Apple's `password-rules.json`: the rules a site publishes or is known to enforce.
public struct PasswordRulesQuirk: Sendable, Equatable {
    /// The domain the entry is listed under.
    public var domain: String
    /// The rules exactly as listed.
    public var rulesText: String
    /// Whether the entry applies only to `domain` itself, not its subdomains.
    public var exactDomainMatchOnly: Bool
}

/// The password-rules quirks from apple/password-manager-resources, embedded in the binary.
///
/// A host matches the entry for itself, or else the entry for its nearest parent domain that does not
/// say `exact-domain-match-only`.
public enum PasswordRulesQuirks {
    /// Every entry, keyed by lower-case domain.
    public static let all: [String: PasswordRulesQuirk] = load(EmbeddedPasswordRulesData.json)

    /// The embedded `password-rules.json`, byte for byte as committed.
    public static var embeddedJSON: String { EmbeddedPasswordRulesData.json }

    /// The entry that applies to `host`, or `nil` when none does.
    ///
    /// - Throws: `SharedWebCredentialsError(.invalidInput)` when `host` is not a plain DNS host name.
    public static func quirk(for host: String) throws -> PasswordRulesQuirk? {
        let normalized = try normalize(host)
        if let exact = all[normalized] { return exact }
        var labels = normalized.split(separator: ".")
        while labels.count > 2 {
            labels.removeFirst()
            if let entry = all[labels.joined(separator: ".")], !entry.exactDomainMatchOnly { return entry }
        }
        return nil
    }

    /// Lower-cases `host` and checks it is a DNS name of at least two labels in ASCII.
    static func normalize(_ host: String) throws -> String {
        let lowered = host.lowercased()
        func fail(_ reason: String) -> SharedWebCredentialsError {
            SharedWebCredentialsError(.invalidInput, "Invalid host \"\(host)\": \(reason).")
        }
        guard lowered.unicodeScalars.allSatisfy(\.isASCII) else {
            throw fail("give an internationalised name in its ASCII (xn--) form")
        }
        guard lowered.count <= 253 else { throw fail("longer than 253 characters") }
        let labels = lowered.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2 else { throw fail("a host needs at least one dot, like example.com") }
        for label in labels {
            guard !label.isEmpty else { throw fail("empty label (leading, trailing or double dot)") }
            guard label.count <= 63 else { throw fail("a label is longer than 63 characters") }
            guard label.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else {
                throw fail("only letters, digits, '-' and '.' are allowed (no scheme, port or path)")
            }
            guard label.first != "-" && label.last != "-" else { throw fail("a label starts or ends with '-'") }
        }
        return lowered
    }

    private static func load(_ json: String) -> [String: PasswordRulesQuirk] {
        guard
            let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)),
            let entries = object as? [String: [String: Any]]
        else { preconditionFailure("the embedded password-rules.json is not a JSON object of objects") }
        var result: [String: PasswordRulesQuirk] = [:]
        for (domain, fields) in entries {
            guard let rules = fields["password-rules"] as? String else { continue }
            let exact = fields["exact-domain-match-only"] as? Bool ?? false
            result[domain.lowercased()] = PasswordRulesQuirk(
                domain: domain, rulesText: rules, exactDomainMatchOnly: exact)
        }
        return result
    }
}
