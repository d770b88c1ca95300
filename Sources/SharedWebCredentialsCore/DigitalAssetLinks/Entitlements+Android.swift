/// The domains an Android app declares (the analogue of its manifest's `asset_statements`),
/// kept as `get_login_creds:` entries beside Apple's entitlement entries.
extension Entitlements {
    /// Reads an Android app's domains, each `HOST` or `HOST:PORT`; the first bad one throws with
    /// the rule it broke. A Digital Asset Links list speaks for its own host only, so there are
    /// no wildcards and no modes.
    public init(androidDomains domains: [String]) throws {
        var strings: [String] = []
        for domain in domains {
            func invalid(_ rule: String) -> SharedWebCredentialsError {
                SharedWebCredentialsError(.invalidInput, "invalid Android app domain \"\(domain)\": \(rule)")
            }
            if domain.contains("://") { throw invalid("remove the scheme: give the host alone, such as example.com") }
            if domain.hasPrefix("*.") || domain.contains("*") {
                throw invalid("no wildcards: a site's assetlinks.json speaks for its own host only; list each host")
            }
            if domain.contains("?") || domain.contains("/") {
                throw invalid("give the host (and a port, if any) alone, with no path or query")
            }
            if let colon = domain.firstIndex(of: ":"), !domain.hasPrefix("["),
                !domain[domain.index(after: colon)...].allSatisfy(\.isNumber)
            {
                throw invalid("give the host alone (--domain example.com), not an entitlement entry")
            }
            strings.append("\(AssociatedDomainEntry.Service.getLoginCreds.rawValue):\(try DomainTarget(domain))")
        }
        try self.init(strings: strings)
    }

    /// Throws `invalidInput` unless the entries suit `app`: an Apple app has no `get_login_creds:`
    /// entry; an Android app has only those, and at least one signing-certificate fingerprint.
    public func validate(for app: ApplicationIdentifier) throws {
        switch app.platform {
        case .apple:
            if let entry = entries.first(where: { $0.service == .getLoginCreds }) {
                throw SharedWebCredentialsError(
                    .invalidInput,
                    "\(entry) is an Android app's domain; \(app) is an Apple app, give it webcredentials: entries")
            }
        case .android:
            if let entry = entries.first(where: { $0.service != .getLoginCreds }) {
                throw SharedWebCredentialsError(
                    .invalidInput,
                    "\(entry) is an Apple entitlement entry; \(app) is an Android app: give its domains as --domain example.com"
                )
            }
            if app.signingCertificates.isEmpty {
                throw SharedWebCredentialsError(
                    .invalidInput,
                    "\(app) needs the SHA-256 fingerprint of its signing certificate: add --cert-sha256 AA:BB:...")
            }
        }
    }
}
