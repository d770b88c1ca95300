import Foundation
import Logging
import SharedWebCredentials
import SwcredAPI
import SwcredBrowser
import Synchronization

/// The vault's side of the browser bridge in `swcred serve --browser`: the third caller, beside
/// apps and the owner. What a browser may do is decided here and in ``BrowserAccess``, never in
/// the protocol code:
///
/// - a browser becomes a client only when the owner approves its association in
///   `swcred consent` (with the fingerprint of its identification key, and a name);
/// - every request checks the association again against the vault's sealed rows, by the name
///   and the identification key its session proved (a revocation takes effect at once, and a
///   browser approved later under the same name is another browser);
/// - an association made with consent `ask` asks the owner before the first release for each
///   site (passwords and one-time codes alike), and the owner may have the answer remembered for
///   that site until the service stops;
/// - what is remembered for a browser (the owner's answers, the entries it was shown) belongs to
///   that one association (``BrowserAssociation/identity``), never to a name;
/// - its database work runs on the storage engine's threads, never on Swift's cooperative
///   threads, so that a slow disk under a browser's request stalls no other request.
final class ServiceBrowserBridge: BrowserVaultBridge {
    private let holder: VaultHolder
    private let consent: ConsentBroker
    private let logger: Logger
    /// Remembered answers of the owner: "association identity\nsite" → approved, the site with its
    /// scheme (``CredentialSite/description``), so an answer for https is not one for http.
    private let remembered = Mutex<[String: Bool]>([:])
    /// The entries a browser was shown: "association identity\nentry id" → the credential, for
    /// `get-totp` and updates.
    private let shown = Mutex<[String: EntryKey]>([:])
    /// How many shown entries are kept (the oldest go first).
    private static let shownLimit = 4096

    private struct EntryKey: Sendable {
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

    /// Runs `body` on the storage engine's threads, where its reads, writes and audit entries run
    /// in place, as an app's gated request does: the bridge's synchronous database calls never
    /// wait on one of Swift's cooperative threads.
    private func onEngineThreads<T>(_ vault: Vault, _ body: () async throws -> T) async throws -> T {
        try await vault.storage.threads.inPlace(body)
    }

    func databaseHash() async throws -> String {
        let vault = try vault()
        return try await onEngineThreads(vault) { try vault.browsers.databaseHash() }
    }

    func associate(publicKey: String, identificationKey: String, peer: BrowserPeerProcess?) async throws -> String {
        let vault = try vault()
        guard let key = Data(base64Encoded: identificationKey).map(Array.init), key.count == 32 else {
            throw BrowserVaultError.denied
        }
        let suggested = BrowserAssociation.defaultName(for: key)
        let (decision, details) = await consent.askWithDetails(
            ConsentBroker.Pending(
                id: "", app: "browser", operation: .browserAssociate, domain: "", account: nil,
                fingerprint: BrowserAssociation.fingerprint(of: key), suggestedName: suggested,
                peer: peer.map(Self.consentPeer)))
        try await recordConsent(decision, vault: vault, browser: "browser", operation: "associate", site: nil)
        guard case .approved = decision else { throw BrowserVaultError.denied }
        let name = details.name ?? suggested
        do {
            _ = try await onEngineThreads(vault) {
                try vault.browsers.add(
                    id: name, identificationKey: key,
                    requestedBy: peer.map { $0.executable ?? "pid \($0.pid) (executable not readable)" })
            }
        } catch let error as SharedWebCredentialsError where error.code == .invalidInput {
            logger.notice("browser association not stored", metadata: ["reason": "\(error.message)"])
            throw BrowserVaultError.denied
        }
        logger.notice("browser associated", metadata: ["browser": "\(name)"])
        return name
    }

    /// The peer as the consent request shows it to the owner.
    private static func consentPeer(_ peer: BrowserPeerProcess) -> Components.Schemas.ConsentPeer {
        Components.Schemas.ConsentPeer(
            pid: peer.pid, executable: peer.executable, commandLine: peer.commandLine,
            parents: peer.ancestors.map { .init(pid: $0.pid, executable: $0.executable) })
    }

    func isAssociated(id: String, identificationKey: String) async throws -> Bool {
        try await association(BrowserSessionAssociation(id: id, identificationKey: identificationKey), in: vault())
            != nil
    }

    func logins(
        association session: BrowserSessionAssociation, url: String, submitURL: String?, httpAuth: Bool
    ) async throws -> [BrowserLogin] {
        let vault = try vault()
        let association = try await require(session, in: vault)
        guard let site = BrowserAccess.site(of: url, allowsHTTP: association.allowsHTTP) else { return [] }
        if association.consent == .ask {
            try await requireConsent(for: association, site: site.description, vault: vault)
        }
        return try await onEngineThreads(vault) {
            let access = BrowserAccess(vault: vault)
            let credentials = try await access.logins(for: association, url: url)
            return try zip(credentials, access.entryIDs(of: credentials)).map { credential, uuid in
                remember(
                    EntryKey(site: credential.site, account: credential.account), as: uuid, shownTo: association)
                return BrowserLogin(
                    login: credential.account, name: credential.label ?? credential.server,
                    password: credential.password.exposedString(), uuid: uuid,
                    hasTOTP: credential.details.otpAuth != nil)
            }
        }
    }

    func setLogin(association session: BrowserSessionAssociation, _ change: SetLoginRequest) async throws {
        let vault = try vault()
        let association = try await require(session, in: vault)
        if let uuid = change.uuid {
            // An update names an entry this browser was shown on this page's site.
            guard let entry = shownEntry(uuid, to: association),
                let site = BrowserAccess.site(of: change.url, allowsHTTP: association.allowsHTTP),
                site == entry.site
            else { throw BrowserVaultError.unknownEntry }
        }
        do {
            _ = try await onEngineThreads(vault) {
                try await BrowserAccess(vault: vault).save(
                    for: association, url: change.url, account: change.login,
                    password: SecureBytes(utf8: change.password))
            }
        } catch let error as SharedWebCredentialsError
            where error.code == .neverSave || error.code == .invalidInput
        {
            logger.info(
                "browser save refused", metadata: ["browser": "\(association.id)", "code": "\(error.code.rawValue)"])
            throw BrowserVaultError.denied
        }
    }

    func generatePassword(association session: BrowserSessionAssociation, url: String?) async throws -> String {
        _ = try await require(session, in: vault())
        return try BrowserAccess.generatePassword(for: url)
    }

    /// A one-time code is a release, as a password is: it waits for the owner under consent `ask`,
    /// and its `request` entry is written before the code is given.
    func totp(association session: BrowserSessionAssociation, uuid: String) async throws -> String {
        let vault = try vault()
        let association = try await require(session, in: vault)
        guard let entry = shownEntry(uuid, to: association) else { throw BrowserVaultError.unknownEntry }
        if association.consent == .ask {
            try await requireConsent(for: association, site: entry.site.description, vault: vault)
        }
        return try await onEngineThreads(vault) {
            guard
                let credential = try vault.credentials.find(
                    server: entry.site.host, port: entry.site.port, scheme: entry.site.scheme, account: entry.account
                ).first,
                let uri = credential.details.otpAuth, let generator = try? TOTP(uri: uri)
            else { throw BrowserVaultError.unknownEntry }
            let release = AuditEvent(
                actor: association.actor, operation: .request, domain: entry.site.name,
                released: [AuditCredential(credential)], detail: "one-time code")
            _ = try await vault.audit.append(release)
            return generator.code(at: Date())
        }
    }

    func lock(association session: BrowserSessionAssociation) async throws {
        let vault = try vault()
        let association = try await require(session, in: vault)
        // A lock happens even when its entry cannot be written, as the owner's does.
        let lock = AuditEvent(actor: association.actor, operation: .lock, detail: "lock-database from the browser")
        _ = try? await vault.audit.append(lock)
        holder.lock()
        logger.notice("vault locked by a browser", metadata: ["browser": "\(association.id)"])
    }

    // MARK: Rules

    /// The association `session` proved, as the vault holds it now: stored under its name for
    /// exactly the identification key the session proved; nil when there is none.
    private func association(
        _ session: BrowserSessionAssociation, in vault: Vault
    ) async throws
        -> BrowserAssociation?
    {
        guard let key = Data(base64Encoded: session.identificationKey).map(Array.init) else { return nil }
        return try await vault.browsers.find(id: session.id, identifiedBy: key)
    }

    /// ``association(_:in:)``, or ``BrowserVaultError/notAssociated`` when there is none.
    private func require(_ session: BrowserSessionAssociation, in vault: Vault) async throws -> BrowserAssociation {
        guard let association = try await association(session, in: vault) else {
            throw BrowserVaultError.notAssociated
        }
        return association
    }

    /// Asks the owner before a release to `site` (or uses a remembered answer); throws
    /// ``BrowserVaultError/denied`` on a decline or no answer.
    private func requireConsent(for association: BrowserAssociation, site: String, vault: Vault) async throws {
        let key = association.identity + "\n" + site
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

    private func remember(_ entry: EntryKey, as uuid: String, shownTo association: BrowserAssociation) {
        shown.withLock { shown in
            if shown.count >= Self.shownLimit { shown.removeAll() }
            shown[association.identity + "\n" + uuid] = entry
        }
    }

    /// The entry `uuid` if it was shown to `association` (no other browser's).
    private func shownEntry(_ uuid: String, to association: BrowserAssociation) -> EntryKey? {
        shown.withLock { $0[association.identity + "\n" + uuid] }
    }
}
