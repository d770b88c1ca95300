/// Which relying parties an app may create and use passkeys for.
///
/// swcred's rule: exactly the domains for which the gate has approved the app, that is a
/// `webcredentials:` entitlement entry the site's AASA file approves (Apple apps), or a Digital
/// Asset Links statement granting `delegate_permission/common.get_login_creds` (Android apps).
/// The RP ID must equal one of those hosts; nothing is derived from them.
///
/// Where Apple's rule differs (as far as Apple documents it):
/// - **Subdomains: Apple is wider.** An app associated with `login.example.com` can use a passkey
///   whose RP ID is the registrable parent `example.com` (WebAuthn's rule for a web origin), and a
///   `*.example.com` entitlement covers every subdomain. swcred asks for the RP ID itself to be
///   approved: the app lists `webcredentials:example.com` and example.com's AASA file approves it.
///   Nothing is inferred from a subdomain or a wildcard.
/// - **Ports: the same in effect.** An RP ID has no port. Pass approved hosts without their port:
///   the caller decides whether an entry approved only on `example.com:8443` approves the host
///   (a string with a port never matches here).
/// - **Developer mode: Apple is wider.** Apple accepts `?mode=developer` entries, IP addresses
///   among them, on development devices; an RP ID here is never an IP address or `localhost`.
public enum RelyingPartyPolicy {
    /// Whether an app may act for `rpID`, given the hosts the gate has approved it for.
    ///
    /// - Parameters:
    ///   - rpID: a validated RP ID.
    ///   - approvedDomains: the app's approved hosts, without port, as the gate reports them; each
    ///     is normalised as an RP ID, and one that is not a valid RP ID approves nothing.
    public static func isAllowed(_ rpID: RelyingPartyID, approvedDomains: some Sequence<String>) -> Bool {
        approvedDomains.contains { approved in
            (try? RelyingPartyID(approved))?.value == rpID.value
        }
    }

    /// Throws `SecurityError` (code not-approved) unless ``isAllowed(_:approvedDomains:)``.
    public static func requireAllowed(
        _ rpID: RelyingPartyID, approvedDomains: some Sequence<String>, app: String
    ) throws(WebAuthnError) {
        guard isAllowed(rpID, approvedDomains: approvedDomains) else {
            throw WebAuthnError(
                .security, .notApproved,
                "the app \(app) is not approved for RP ID \(rpID.value): the app must list webcredentials:\(rpID.value) (or an Android app be granted get_login_creds) and the site must approve it"
            )
        }
    }
}
