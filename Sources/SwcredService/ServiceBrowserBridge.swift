import Foundation
import Logging
import SharedWebCredentials
import SwcredBrowser
import Synchronization

/// The vault's side of the browser bridge in `swcred serve --browser`: the third caller, beside
/// apps and the owner. What a browser may do is decided here and in ``BrowserAccess``, never in
/// the protocol code:
///
/// - a browser becomes a client only when the owner approves its association in
///   `swcred consent` (with the fingerprint of its identification key, and a name);
/// - every request checks the association again (a revocation takes effect at once), against
///   the vault's sealed rows;
/// - an association made with consent `ask` asks the owner before the first release for each
///   site, and the owner may have the answer remembered for that site until the service stops.
final class ServiceBrowserBridge: BrowserVaultBridge {
    private let holder: VaultHolder
    private let consent: ConsentBroker
    private let logger: Logger
    /// Remembered answers of the owner: "association\nsite" → approved, the site with its scheme
    /// (``CredentialSite/description``), so an answer for https is not one for http.
    private let remembered = Mutex<[String: Bool]>([:])
    /// The entries a browser was shown, by the id it knows them by, for `get-totp` and updates.
    private let shown = Mutex<[String: EntryKey]>([:])
    /// How many shown entries are kept (the oldest go first).
    private static let shownLimit = 4096

    private struct EntryKey: Sendable {
        let association: String
        let site: CredentialSite
        let account: String
    }

    init(holder: VaultHolder, consent: ConsentBroker, logger: Logger) {
        self.holder = holder
        self.consent = consent
        self.logger = logger
    }

    private func vault() throws -> Vault {
        guard let vault = holder.peekVault() else { throw BrowserVaultError.locked }
        return vault
    }

    func databaseHash() async throws -> String {
        try vault().browsers.databaseHash()
    }

    func associate(publicKey: String, identificationKey: String) async throws -> String {
        let vault = try vault()
        guard let key = Data(base64Encoded: identificationKey).map(Array.init), key.count == 32 else {
            throw BrowserVaultError.denied
        }
        let suggested = BrowserAssociation.defaultName(for: key)
        let (decision, details) = await consent.askWithDetails(
            ConsentBroker.Pending(
                id: "", app: "browser", operation: .browserAssociate, domain: "", account: nil,
                fingerprint: BrowserAssociation.fingerprint(of: key), suggestedName: suggested))
        try await recordConsent(decision, vault: vault, browser: "browser", operation: "associate", site: nil)
        guard case .approved = decision else { throw BrowserVaultError.denied }
        let name = details.name ?? suggested
        do {
            try vault.browsers.add(id: name, identificationKey: key)
        } catch let error as SharedWebCredentialsError where error.code == .invalidInput {
            logger.notice("browser association not stored", metadata: ["reason": "\(error.message)"])
            throw BrowserVaultError.denied
        }
        logger.notice("browser associated", metadata: ["browser": "\(name)"])
        return name
    }

    func isAssociated(id: String, identificationKey: String) async throws -> Bool {
        guard let key = Data(base64Encoded: identificationKey).map(Array.init),
            let association = try await association(id)
        else { return false }
        return association.isIdentified(by: key)
    }

    func logins(association id: String, url: String, submitURL: String?, httpAuth: Bool) async throws -> [BrowserLogin]
    {
        let vault = try vault()
        guard let association = try await association(id) else { throw BrowserVaultError.notAssociated }
        guard let site = BrowserAccess.site(of: url, allowsHTTP: association.allowsHTTP) else { return [] }
        if association.consent == .ask {
            try await requireConsent(for: association, site: site.description, vault: vault)
        }
        let access = BrowserAccess(vault: vault)
        let credentials = try await access.logins(for: association, url: url)
        return try zip(credentials, access.entryIDs(of: credentials)).map { credential, uuid in
            remember(
                EntryKey(association: id, site: credential.site, account: credential.account),
                as: uuid)
            return BrowserLogin(
                login: credential.account, name: credential.label ?? credential.server,
                password: credential.password.exposedString(), uuid: uuid, hasTOTP: credential.details.otpAuth != nil)
        }
    }

    func setLogin(association id: String, _ change: SetLoginRequest) async throws {
        let vault = try vault()
        guard let association = try await association(id) else { throw BrowserVaultError.notAssociated }
        if let uuid = change.uuid {
            // An update names an entry this browser was shown on this page's site.
            guard let entry = shown.withLock({ $0[uuid] }), entry.association == id,
                let site = BrowserAccess.site(of: change.url, allowsHTTP: association.allowsHTTP),
                site == entry.site
            else { throw BrowserVaultError.unknownEntry }
        }
        do {
            try await BrowserAccess(vault: vault).save(
                for: association, url: change.url, account: change.login, password: SecureBytes(utf8: change.password))
        } catch let error as SharedWebCredentialsError
            where error.code == .neverSave || error.code == .invalidInput
        {
            logger.info("browser save refused", metadata: ["browser": "\(id)", "code": "\(error.code.rawValue)"])
            throw BrowserVaultError.denied
        }
    }

    func generatePassword(association id: String, url: String?) async throws -> String {
        _ = try vault()
        guard try await association(id) != nil else { throw BrowserVaultError.notAssociated }
        return try BrowserAccess.generatePassword(for: url)
    }

    func totp(association id: String, uuid: String) async throws -> String {
        let vault = try vault()
        guard try await association(id) != nil else { throw BrowserVaultError.notAssociated }
        guard let entry = shown.withLock({ $0[uuid] }), entry.association == id,
            let credential = try vault.credentials.find(
                server: entry.site.host, port: entry.site.port, scheme: entry.site.scheme, account: entry.account
            ).first,
            let uri = credential.details.otpAuth, let generator = try? TOTP(uri: uri)
        else { throw BrowserVaultError.unknownEntry }
        return generator.code(at: Date())
    }

    func lock(association id: String) async throws {
        guard try await association(id) != nil else { throw BrowserVaultError.notAssociated }
        holder.lock()
        logger.notice("vault locked by a browser", metadata: ["browser": "\(id)"])
    }

    // MARK: Rules

    /// The association named `id` as the vault holds it now, or nil when there is none.
    private func association(_ id: String) async throws -> BrowserAssociation? {
        try await vault().browsers.find(id: id)
    }

    /// Asks the owner before a release to `site` (or uses a remembered answer); throws
    /// ``BrowserVaultError/denied`` on a decline or no answer.
    private func requireConsent(for association: BrowserAssociation, site: String, vault: Vault) async throws {
        let key = association.id + "\n" + site
        if let answer = remembered.withLock({ $0[key] }) {
            guard answer else { throw BrowserVaultError.denied }
            return
        }
        let (decision, details) = await consent.askWithDetails(
            ConsentBroker.Pending(
                id: "", app: association.actor.name, operation: .release, domain: site, account: nil))
        try await recordConsent(
            decision, vault: vault, browser: association.actor.name, operation: "release", site: site)
        let approved: Bool
        switch decision {
        case .approved: approved = true
        case .declined, .timedOut: approved = false
        }
        if details.remember, decision != .timedOut { remembered.withLock { $0[key] = approved } }
        guard approved else { throw BrowserVaultError.denied }
    }

    /// The audit entry of the owner's answer to a browser, before anything happens.
    private func recordConsent(
        _ decision: ConsentBroker.Decision, vault: Vault, browser: String, operation: String, site: String?
    ) async throws {
        let (kind, by): (AuditOperation, String) =
            switch decision {
            case .approved(let by): (.consentApprove, by)
            case .declined(let by): (.consentDecline, by)
            case .timedOut: (.consentTimeout, "nobody (timed out)")
            }
        _ = try await vault.audit.append(
            AuditEvent(
                actor: .owner, operation: kind, domain: site, app: browser, detail: "\(operation); answered by \(by)"))
    }

    private func remember(_ entry: EntryKey, as uuid: String) {
        shown.withLock { shown in
            if shown.count >= Self.shownLimit { shown.removeAll() }
            shown[uuid] = entry
        }
    }
}
