import SharedWebCredentialsCore

/// A WebAuthn relying-party ID: a registrable domain name in lower-case ASCII (IDNA `xn--` form
/// for Unicode labels), never an IP address, `localhost`, a single label or a public suffix.
///
/// The syntax is ``HostName``'s (SPEC.md §2: no scheme, path, port, trailing dot or empty label;
/// labels of at most 63 characters, names of at most 253); on top of it an RP ID must have a
/// registrable part under the ``PublicSuffixList`` (both of its sections: `github.io` is refused
/// as `com` is). Every refusal is a ``WebAuthnError`` named `SecurityError`, as a browser would
/// refuse an RP ID it may not use.
public struct RelyingPartyID: Hashable, Sendable, CustomStringConvertible {
    /// The RP ID in lower-case ASCII, the exact text hashed into authenticator data.
    public let value: String

    /// Validates and normalises an RP ID.
    ///
    /// - Parameters:
    ///   - input: the RP ID as the options give it (`rp.id` or `rpId`); Unicode is converted.
    ///   - publicSuffixes: the list deciding public suffixes (the embedded one by default).
    /// - Throws: ``WebAuthnError`` `SecurityError` (code invalid-input) naming the rule broken.
    public init(_ input: String, publicSuffixes: PublicSuffixList = .embedded) throws(WebAuthnError) {
        func refuse(_ rule: String) -> WebAuthnError {
            WebAuthnError(.security, .invalidInput, "the RP ID \"\(input)\" \(rule)")
        }
        let normalized: (host: String, kind: HostName.Kind)
        do {
            normalized = try HostName.normalize(input, context: "RP ID", allowSingleLabel: true)
        } catch {
            let reason = (error as? SharedWebCredentialsError)?.message ?? "is not a host name"
            throw WebAuthnError(.security, .invalidInput, reason)
        }
        switch normalized.kind {
        case .ipAddress: throw refuse("is an IP address; an RP ID must be a domain name")
        case .localhost, .singleLabel: throw refuse("has one label; an RP ID must be a registrable domain")
        case .domain: break
        }
        if publicSuffixes.isPublicSuffix(normalizedHost: normalized.host) {
            throw refuse("is a public suffix (Public Suffix List): anyone can register under it, so no site owns it")
        }
        value = normalized.host
    }

    public var description: String { value }
}

extension RelyingPartyID {
    /// An RP ID read back from a sealed record: only its syntax is checked (a normalised domain
    /// name), not the Public Suffix List, so that a list update never makes a stored passkey
    /// unreadable. Nil when `value` is not already in normalised form.
    init?(storedValue value: String) {
        guard let normalized = try? HostName.normalize(value, context: "RP ID"), normalized.kind == .domain,
            normalized.host == value
        else { return nil }
        self.value = value
    }
}
