import Foundation

/// What an approved browser may do with the vault: the third caller's rules, beside the gate.
///
/// - A page gets the credentials of its own site only: the exact host, its port and its scheme
///   kept apart (`https://host:8443` and `http://host:8443` are two sites, and 443 is no port
///   for https only), and for an https page on the default port the hosts Apple's
///   shared-credential groups say share that site's sign-in; never a parent, a sibling or a
///   look-alike host.
/// - A URL with user information gets nothing; an `http://` page gets nothing unless the owner
///   allowed it for that association, and then only http credentials; any other scheme gets
///   nothing.
/// - A save honours never-save, the field limits and all-or-nothing of every other write, and
///   touches nothing but the credential (no app, token or verdict).
/// - Every release and save is in the audit log as `browser:NAME`.
public struct BrowserAccess: Sendable {
    private let vault: Vault

    /// The rules over `vault`.
    public init(vault: Vault) {
        self.vault = vault
    }

    /// The site of a page the association may be served for, or nil with nothing released: the
    /// URL must be `https://` (or `http://` when `allowsHTTP`), carry no user information, and
    /// name a host swcred accepts (``DomainTarget``). The site keeps the page's scheme: an
    /// `http://` page's site is never an `https://` one, on any port, so no https credential goes
    /// to a page anyone on the path sees, and no http page overwrites one.
    public static func site(of url: String, allowsHTTP: Bool) -> CredentialSite? {
        guard let components = URLComponents(string: url), let schemeName = components.scheme?.lowercased(),
            components.user == nil, components.password == nil, let host = components.host, !host.isEmpty
        else { return nil }
        let scheme: CredentialScheme
        switch schemeName {
        case "https": scheme = .https
        case "http" where allowsHTTP: scheme = .http
        default: return nil
        }
        let port = components.port
        guard let target = try? DomainTarget(port.map { "\(host):\($0)" } ?? host) else { return nil }
        return CredentialSite(scheme: scheme, host: target.host, port: port)
    }

    /// The credentials the page `url` gets, sorted by server and account: those of its own site
    /// and, for an https page on the default port, of the sites sharing its sign-in. Appends a `request` entry as `browser:NAME` naming
    /// what was released (also when nothing was). Empty for a URL ``site(of:allowsHTTP:)`` refuses.
    public func logins(for association: BrowserAssociation, url: String) async throws -> [Credential] {
        guard let site = Self.site(of: url, allowsHTTP: association.allowsHTTP) else { return [] }
        var found = try vault.credentials.find(server: site.host, port: site.port, scheme: site.scheme)
        if site.scheme == .https, site.port == nil {
            for shared in SharedCredentialGroups.domains(sharingCredentialsWith: site.host) {
                found += try vault.credentials.find(server: shared)
            }
        }
        found.sort { ($0.server, $0.port ?? 443, $0.account) < ($1.server, $1.port ?? 443, $1.account) }
        _ = try await vault.audit.append(
            AuditEvent(
                actor: association.actor, operation: .request, domain: site.name,
                released: found.map(AuditCredential.init)))
        return found
    }

    /// Saves a login the browser submitted on the page `url`: a new credential, or a new password
    /// for the account that exists. Throws `.neverSave` for a host the owner marked, `.invalidInput`
    /// for a page that gets nothing (``site(of:allowsHTTP:)``) or a field over the limits, or the
    /// error of the audit entry. The never-save check, the change and its entry are one
    /// transaction: when the entry cannot be written, nothing is saved.
    @discardableResult
    public func save(
        for association: BrowserAssociation, url: String, account: String, password: SecureBytes
    ) async throws -> UpsertOutcome {
        guard let site = Self.site(of: url, allowsHTTP: association.allowsHTTP) else {
            throw SharedWebCredentialsError(
                .invalidInput,
                "the page is not one this browser may save for: an https:// URL without user information (or http:// where the owner allowed it)"
            )
        }
        return try await vault.write(records: { [vault] db, keys, commitment in
            if try NeverSaveStore.contains(db, index: keys.hostIndex(site.host)) {
                throw SharedWebCredentialsError(
                    .neverSave,
                    "\(site.host) is marked \"never save\": nothing was saved (`swcred never-save clear` lifts it)")
            }
            let batch = CredentialBatch(db: db, keys: keys, commitment: commitment, vault: vault)
            let outcome = try batch.upsert(
                server: site.host, port: site.port, scheme: site.scheme, account: account, password: password)
            if outcome != .unchanged {
                try batch.recordAudit(
                    AuditEvent(
                        actor: association.actor, operation: outcome == .added ? .add : .update,
                        domain: site.name, account: account))
            }
            return outcome
        })
    }

    /// A strong password for the page `url`: by the site's password rules when Apple's quirks
    /// know it, else Safari's strong style.
    public static func generatePassword(for url: String?) throws -> String {
        if let url, let site = site(of: url, allowsHTTP: true),
            let quirk = try PasswordRulesQuirks.quirk(for: site.host)
        {
            return try PasswordGenerator(rules: PasswordRulesParser.parse(quirk.rulesText).rules).next().password
        }
        return PasswordGenerator(style: .strong).next().password
    }

    /// The ids a browser knows `credentials` by, in order: 32 hexadecimal digits of a keyed hash
    /// of each one's server, port, account and (for http only, so https ids stay as they were)
    /// scheme, so they say nothing of them and stay stable while the key does. One read of the
    /// keys for all of them.
    public func entryIDs(of credentials: [Credential]) throws -> [String] {
        try vault.read { _, keys in
            credentials.map { credential in
                keys.stateMAC(
                    table: "browser-entry",
                    fields: [
                        Array(credential.server.utf8),
                        withUnsafeBytes(of: Int64(credential.port ?? 443).littleEndian) { Array($0) },
                        Array(credential.account.utf8),
                    ] + (credential.scheme == .https ? [] : [Array(credential.scheme.rawValue.utf8)])
                ).prefix(16).map { String(format: "%02x", $0) }.joined()
            }
        }
    }
}
