import Foundation
import Logging
import SwcredBrowser
import Synchronization
import TestSupport
import Testing

@testable import SharedWebCredentials
@testable import SwcredService

/// The vault's side of the browser bridge in the service, with a real vault and the owner's
/// consent broker: associations exist only when the owner approves them, every request checks
/// the association again, consent `ask` waits for the owner (and may be remembered), and a
/// locked vault answers locked.
@Suite("swcred serve: the browser bridge's vault side")
struct ServiceBrowserBridgeTests {
    let directory: TemporaryDirectory
    let vault: Vault
    let holder: VaultHolder
    let consent = ConsentBroker(timeout: .seconds(60))
    let bridge: ServiceBrowserBridge
    let key = Data(repeating: 9, count: 32).base64EncodedString()
    /// A session of the browser "Firefox" approved with `key`.
    let firefox = BrowserSessionAssociation(
        id: "Firefox", identificationKey: Data(repeating: 9, count: 32).base64EncodedString())
    /// A session of another browser, "Chromium", with its own key.
    let chromium = BrowserSessionAssociation(
        id: "Chromium", identificationKey: Data(repeating: 8, count: 32).base64EncodedString())

    let vaultKey = SecureBytes.random(count: 32)

    init() throws {
        directory = try TemporaryDirectory()
        vault = try Vault.create(at: directory.path("vault.sqlite"), protection: .rawKey(vaultKey))
        holder = VaultHolder(unlocked: vault, configuration: VaultConfiguration())
        bridge = ServiceBrowserBridge(holder: holder, consent: consent, logger: Logger(label: "test"))
    }

    /// Answers the next consent request as the owner would, returning what was asked.
    private func answerNext(
        approve: Bool, name: String? = nil, remember: Bool = false
    ) async throws -> ConsentBroker.Pending {
        let pending = try #require(await consent.next(wait: .seconds(30)))
        #expect(
            consent.answer(
                id: pending.id, approve: approve, answeredBy: "test",
                details: .init(name: name, remember: remember)))
        return pending
    }

    @Test("an association exists once the owner approves and names it; declined, nothing is stored")
    func association() async throws {
        let declined = Task { [bridge, key] in
            try await bridge.associate(publicKey: key, identificationKey: key, peer: nil)
        }
        let asked = try await answerNext(approve: false)
        #expect(asked.operation == .browserAssociate && asked.fingerprint?.split(separator: " ").count == 8)
        await #expect(throws: BrowserVaultError.denied) { _ = try await declined.value }
        #expect(try vault.browsers.list().isEmpty)

        // The program that asked is shown to the owner, and its executable (never its command
        // line) is named in the audit entry.
        let peer = BrowserPeerProcess(
            pid: 4242, executable: "/usr/lib/firefox-esr/firefox-esr", commandLine: "firefox-esr -P work",
            ancestors: [.init(pid: 40, executable: "/usr/bin/bash"), .init(pid: 1, executable: nil)])
        async let named: String = bridge.associate(publicKey: key, identificationKey: key, peer: peer)
        let approved = try await answerNext(approve: true, name: "Work Firefox")
        #expect(
            approved.peer
                == .init(
                    pid: 4242, executable: "/usr/lib/firefox-esr/firefox-esr", commandLine: "firefox-esr -P work",
                    parents: [.init(pid: 40, executable: "/usr/bin/bash"), .init(pid: 1)]))
        #expect(try await named == "Work Firefox")
        let entry = try #require(try vault.audit.entries().map(\.event).last { $0.operation == .browserAssociate })
        #expect(entry.detail?.hasSuffix("; asked by /usr/lib/firefox-esr/firefox-esr") == true, "\(entry.detail ?? "")")
        #expect(entry.detail?.contains("-P work") == false)
        #expect(try await bridge.isAssociated(id: "Work Firefox", identificationKey: key))
        let otherKey = Data(repeating: 8, count: 32).base64EncodedString()
        #expect(try await !bridge.isAssociated(id: "Work Firefox", identificationKey: otherKey))
        #expect(try await !bridge.isAssociated(id: "nobody", identificationKey: key))

        async let offered: String = bridge.associate(publicKey: key, identificationKey: otherKey, peer: nil)
        let request = try await answerNext(approve: true)
        #expect(try await offered == request.suggestedName)
    }

    @Test("logins of the page's own host; a save lands in the vault; a revoked browser gets nothing")
    func loginsAndSaves() async throws {
        try vault.browsers.add(id: "Firefox", identificationKey: [UInt8](repeating: 9, count: 32))
        try vault.credentials.upsert(
            server: "shop.example", account: "alice", password: SecureBytes(utf8: "Pw-alice"),
            details: CredentialDetails(otpAuth: "otpauth://totp/shop:alice?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"))
        try vault.credentials.upsert(server: "example", account: "parent", password: SecureBytes(utf8: "Pw-parent"))
        let logins = try await bridge.logins(
            association: firefox, url: "https://shop.example/login", submitURL: nil, httpAuth: false)
        #expect(
            logins.map(\.login) == ["alice"] && logins.first?.password == "Pw-alice" && logins.first?.hasTOTP == true)
        let code = try await bridge.totp(association: firefox, uuid: try #require(logins.first?.uuid))
        #expect(code.count == 6 && code.allSatisfy(\.isNumber))
        await #expect(throws: BrowserVaultError.unknownEntry) {
            _ = try await bridge.totp(association: firefox, uuid: String(repeating: "0", count: 32))
        }

        try await bridge.setLogin(
            association: firefox,
            SetLoginRequest(
                url: "https://shop.example/signup", login: "bob", password: "Pw-bob", uuid: nil))
        #expect(
            try vault.credentials.find(server: "shop.example", account: "bob").first?.password.exposedString()
                == "Pw-bob")
        // An update must name an entry this browser was shown on the page's own site.
        await #expect(throws: BrowserVaultError.unknownEntry) {
            try await bridge.setLogin(
                association: firefox,
                SetLoginRequest(url: "https://other.example/", login: "alice", password: "x", uuid: logins[0].uuid))
        }
        try vault.neverSave.mark("never.example")
        await #expect(throws: BrowserVaultError.denied) {
            try await bridge.setLogin(
                association: firefox,
                SetLoginRequest(url: "https://never.example/", login: "x", password: "y", uuid: nil))
        }

        try vault.browsers.revoke(id: "Firefox")
        await #expect(throws: BrowserVaultError.notAssociated) {
            _ = try await bridge.logins(
                association: firefox, url: "https://shop.example/", submitURL: nil, httpAuth: false)
        }
        await #expect(throws: BrowserVaultError.notAssociated) {
            _ = try await bridge.generatePassword(association: firefox, url: nil)
        }
    }

    @Test("consent ask: the owner approves or declines each site, and may have it remembered")
    func consentAsk() async throws {
        try vault.browsers.add(id: "Firefox", identificationKey: [UInt8](repeating: 9, count: 32), consent: .ask)
        try vault.credentials.upsert(server: "shop.example", account: "alice", password: SecureBytes(utf8: "Pw"))
        async let first = bridge.logins(
            association: firefox, url: "https://shop.example/", submitURL: nil, httpAuth: false)
        let asked = try await answerNext(approve: true, remember: true)
        #expect(asked.app == "browser:Firefox" && asked.operation == .release && asked.domain == "https://shop.example")
        #expect(try await first.count == 1)
        // Remembered for this site: no second question.
        #expect(
            try await bridge.logins(
                association: firefox, url: "https://shop.example/a", submitURL: nil, httpAuth: false
            )
            .count == 1)
        let other = Task { [bridge, firefox] in
            try await bridge.logins(
                association: firefox, url: "https://other.example/", submitURL: nil, httpAuth: false)
        }
        _ = try await answerNext(approve: false)
        await #expect(throws: BrowserVaultError.denied) { _ = try await other.value }
        let answers = try vault.audit.entries().map(\.event.operation).filter {
            $0 == .consentApprove || $0 == .consentDecline
        }
        #expect(answers == [.consentApprove, .consentDecline])
    }

    @Test("http and https of one host, on two ports: four credentials, each page its own, asked for by scheme")
    func schemesAndPorts() async throws {
        try vault.browsers.add(
            id: "Firefox", identificationKey: [UInt8](repeating: 9, count: 32), allowsHTTP: true, consent: .ask)
        try vault.credentials.upsert(server: "plain.test", account: "alice", password: SecureBytes(utf8: "Pw-https"))
        // Approved and remembered for https://plain.test: an http page of that host is asked for again.
        async let https = bridge.logins(
            association: firefox, url: "https://plain.test/", submitURL: nil, httpAuth: false)
        #expect(try await answerNext(approve: true, remember: true).domain == "https://plain.test")
        #expect(try await https.map(\.password) == ["Pw-https"])
        let pages = ["http://plain.test:443/", "https://plain.test:8443/", "http://plain.test:8443/"]
        for page in pages {
            async let logins = bridge.logins(association: firefox, url: page, submitURL: nil, httpAuth: false)
            let asked = try await answerNext(approve: true, remember: true)
            #expect(asked.domain == String(page.dropLast()), "the question names the page's scheme and port")
            #expect(try await logins.isEmpty, "\(page) gets no other site's credential")
            try await bridge.setLogin(
                association: firefox, SetLoginRequest(url: page, login: "alice", password: "Pw-\(page)", uuid: nil))
        }
        #expect(try vault.credentials.all().count == 4)
        #expect(try vault.credentials.find(server: "plain.test").first?.password.exposedString() == "Pw-https")
        var uuids: Set<String> = []
        for page in ["https://plain.test/"] + pages {
            let logins = try await bridge.logins(association: firefox, url: page, submitURL: nil, httpAuth: false)
            #expect(logins.map(\.password) == [page == "https://plain.test/" ? "Pw-https" : "Pw-\(page)"])
            uuids.formUnion(logins.map(\.uuid))
        }
        #expect(uuids.count == 4)
        // An update names an entry shown on the same scheme and port only.
        let shownForHTTPS = try await bridge.logins(
            association: firefox, url: "https://plain.test:8443/", submitURL: nil, httpAuth: false)
        await #expect(throws: BrowserVaultError.unknownEntry) {
            try await bridge.setLogin(
                association: firefox,
                SetLoginRequest(
                    url: "http://plain.test:8443/", login: "alice", password: "x", uuid: shownForHTTPS[0].uuid))
        }
        #expect(
            try vault.credentials.find(server: "plain.test", port: 8443, scheme: .http).first?.password
                .exposedString() == "Pw-http://plain.test:8443/")
    }

    @Test("a locked vault answers locked, and the browser's lock locks it")
    func locked() async throws {
        try vault.browsers.add(id: "Firefox", identificationKey: [UInt8](repeating: 9, count: 32))
        #expect(try await bridge.databaseHash() == (try vault.browsers.databaseHash()))
        try await bridge.lock(association: firefox)
        #expect(holder.isLocked)
        #expect(
            try vault.audit.entries().last.map { [$0.event.actor.name, $0.event.operation.rawValue] } == [
                "browser:Firefox", AuditOperation.lock.rawValue,
            ], "the browser's lock-database is in the log, as the owner's lock is")
        await #expect(throws: BrowserVaultError.locked) { _ = try await bridge.databaseHash() }
        await #expect(throws: BrowserVaultError.locked) {
            _ = try await bridge.logins(
                association: firefox, url: "https://shop.example/", submitURL: nil, httpAuth: false)
        }
    }

    /// Saves one login with a one-time code for `server`.
    private func saveWithCode(_ server: String, _ account: String) throws {
        try vault.credentials.upsert(
            server: server, account: account, password: SecureBytes(utf8: "Pw-\(account)"),
            details: CredentialDetails(otpAuth: "otpauth://totp/x:\(account)?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"))
    }

    /// `session`'s logins for `url`, answering the owner's question when one comes.
    private func logins(
        _ session: BrowserSessionAssociation, _ url: String, approve: Bool = true, remember: Bool = false
    ) async throws -> [BrowserLogin] {
        async let found = bridge.logins(association: session, url: url, submitURL: nil, httpAuth: false)
        let asked = try await answerNext(approve: approve, remember: remember)
        #expect(asked.app == "browser:\(session.id)" && asked.operation == .release)
        return try await found
    }

    @Test(
        "two browsers at once: each is asked for apart, sees only what it was shown, and outlives the other's revocation"
    )
    func twoBrowsers() async throws {
        try vault.browsers.add(id: "Firefox", identificationKey: [UInt8](repeating: 9, count: 32), consent: .ask)
        try vault.browsers.add(id: "Chromium", identificationKey: [UInt8](repeating: 8, count: 32), consent: .ask)
        try saveWithCode("shop.example", "alice")
        try saveWithCode("bank.example", "bob")
        #expect(try await logins(firefox, "https://shop.example/", remember: true).count == 1)
        // Firefox's remembered answer is not Chromium's: Chromium is asked for the same site.
        #expect(try await logins(chromium, "https://shop.example/", remember: true).count == 1)
        let bank = try #require(try await logins(firefox, "https://bank.example/", remember: true).first)
        // The bank's entry was shown to Firefox only: Chromium can neither get its code nor update it.
        await #expect(throws: BrowserVaultError.unknownEntry) {
            _ = try await bridge.totp(association: chromium, uuid: bank.uuid)
        }
        await #expect(throws: BrowserVaultError.unknownEntry) {
            try await bridge.setLogin(
                association: chromium,
                SetLoginRequest(url: "https://bank.example/", login: "bob", password: "Pw-stolen", uuid: bank.uuid))
        }
        #expect(try vault.credentials.find(server: "bank.example").first?.password.exposedString() == "Pw-bob")
        #expect(try await bridge.totp(association: firefox, uuid: bank.uuid).count == 6)
        // A session answers for its own name and key together: neither name with the other's key.
        for crossed in [
            BrowserSessionAssociation(id: "Firefox", identificationKey: chromium.identificationKey),
            BrowserSessionAssociation(id: "Chromium", identificationKey: firefox.identificationKey),
        ] {
            #expect(try await !bridge.isAssociated(id: crossed.id, identificationKey: crossed.identificationKey))
            await #expect(throws: BrowserVaultError.notAssociated, "\(crossed.id) with the other's key") {
                _ = try await bridge.logins(
                    association: crossed, url: "https://shop.example/", submitURL: nil, httpAuth: false)
            }
        }

        try vault.browsers.revoke(id: "Chromium")
        await #expect(throws: BrowserVaultError.notAssociated) {
            _ = try await bridge.logins(
                association: chromium, url: "https://shop.example/", submitURL: nil, httpAuth: false)
        }
        #expect(
            try await bridge.logins(association: firefox, url: "https://shop.example/", submitURL: nil, httpAuth: false)
                .count == 1, "Firefox goes on, on its own remembered answer")
    }

    @Test("a browser revoked while connected stays out when another is approved under its name, which inherits nothing")
    func revokedThenSameName() async throws {
        try vault.browsers.add(id: "Firefox", identificationKey: [UInt8](repeating: 9, count: 32), consent: .ask)
        try saveWithCode("shop.example", "alice")
        let shown = try #require(try await logins(firefox, "https://shop.example/", remember: true).first)
        try vault.browsers.revoke(id: "Firefox")
        try vault.browsers.add(id: "Firefox", identificationKey: [UInt8](repeating: 7, count: 32), consent: .ask)
        await #expect(throws: BrowserVaultError.notAssociated) {
            _ = try await bridge.logins(
                association: firefox, url: "https://shop.example/", submitURL: nil, httpAuth: false)
        }
        await #expect(throws: BrowserVaultError.notAssociated) {
            _ = try await bridge.totp(association: firefox, uuid: shown.uuid)
        }
        #expect(try await !bridge.isAssociated(id: "Firefox", identificationKey: firefox.identificationKey))
        let newcomer = BrowserSessionAssociation(
            id: "Firefox", identificationKey: Data(repeating: 7, count: 32).base64EncodedString())
        // Not shown anything yet, and asked again for the site the old one had remembered.
        await #expect(throws: BrowserVaultError.unknownEntry) {
            _ = try await bridge.totp(association: newcomer, uuid: shown.uuid)
        }
        #expect(try await logins(newcomer, "https://shop.example/").count == 1)
    }

    @Test("a one-time code is a release: asked for under consent ask, and in the audit log")
    func oneTimeCodeIsARelease() async throws {
        try vault.browsers.add(id: "Firefox", identificationKey: [UInt8](repeating: 9, count: 32), consent: .ask)
        try saveWithCode("shop.example", "alice")
        let shown = try #require(try await logins(firefox, "https://shop.example/").first)
        let declined = Task { [bridge, firefox] in try await bridge.totp(association: firefox, uuid: shown.uuid) }
        let asked = try await answerNext(approve: false)
        #expect(asked.operation == .release && asked.domain == "https://shop.example")
        await #expect(throws: BrowserVaultError.denied) { _ = try await declined.value }
        async let code = bridge.totp(association: firefox, uuid: shown.uuid)
        _ = try await answerNext(approve: true)
        #expect(try await code.count == 6)
        let released = try vault.audit.entries().map(\.event).filter {
            $0.actor.name == "browser:Firefox" && $0.operation == .request
        }
        #expect(released.count == 2, "the logins and the one code given, not the declined one")
        #expect(released.last?.released == [AuditCredential(domain: "shop.example", account: "alice")])
    }

    @Test(
        "browser saves waiting for the database hold none of Swift's cooperative threads: an app's read and another browser's request meanwhile are answered at once"
    )
    func slowBrowserDoesNotDelayOthers() async throws {
        try vault.browsers.add(id: "Firefox", identificationKey: [UInt8](repeating: 9, count: 32))
        try vault.browsers.add(id: "Chromium", identificationKey: [UInt8](repeating: 8, count: 32))
        let app = try ApplicationIdentifier("ABCDE12345.com.example.app")
        try vault.apps.register(app, entitlements: Entitlements(strings: ["webcredentials:shop.example"]), at: Date())
        let now = Date()
        try await vault.write(grants: { db, keys, changes in
            try AuthenticatedTable.associations.write(
                AssociationStore.values(
                    of: AssociationRecord(
                        service: .webcredentials, app: app,
                        domain: AssociationStore.domainKey(
                            for: try AssociatedDomainEntry("webcredentials:shop.example")),
                        verdict: .approved, checkedAt: now, nextCheck: now + 86_400, lastError: nil, retryCount: 0,
                        documentDigest: nil, approvedAt: now)), db: db, keys: keys, changes: changes)
        })
        // Another process holds the vault's write lock for two seconds: a slow disk, as the bridge
        // sees it. Reads go on meanwhile; every write waits.
        let other = try Vault.open(at: vault.path, secret: .key(vaultKey))
        let held = Atomic<Bool>(false)
        let writer = Thread {
            try? other.credentials.batch { batch in
                try batch.upsert(server: "hold.example", account: "x", password: SecureBytes(utf8: "Pw"))
                held.store(true, ordering: .releasing)
                Thread.sleep(forTimeInterval: 2)
            }
        }
        writer.start()
        while !held.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(10)) }
        let start = ContinuousClock.now
        // As many saves as there are cooperative threads (at most 3, so that one of the engine's
        // 4 threads stays free for the others).
        let waiting = min(ProcessInfo.processInfo.activeProcessorCount, 3)
        let saves = (0..<waiting).map { index in
            Task { [bridge, firefox] in
                try? await bridge.setLogin(
                    association: firefox,
                    SetLoginRequest(url: "https://shop.example/", login: "b\(index)", password: "Pw", uuid: nil))
            }
        }
        try await Task.sleep(for: .milliseconds(100))
        // An app's read, as `GET /v1/associations` makes it, and another browser's first request.
        let associations = try await BlockingWork.run { [vault] in try vault.associations.all(app: app) }
        #expect(try await bridge.databaseHash().count == 64)
        let elapsed = ContinuousClock.now - start
        #expect(associations.count == 1)
        #expect(elapsed < .seconds(1), "they waited \(elapsed) behind the browser's saves")
        for save in saves { await save.value }
    }
}
