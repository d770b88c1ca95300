import Foundation
import Logging
import SharedWebCredentials
import SwcredBrowser
import TestSupport
import Testing

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

    init() throws {
        directory = try TemporaryDirectory()
        vault = try Vault.create(at: directory.path("vault.sqlite"), protection: .rawKey(SecureBytes.random(count: 32)))
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
        let declined = Task { [bridge, key] in try await bridge.associate(publicKey: key, identificationKey: key) }
        let asked = try await answerNext(approve: false)
        #expect(asked.operation == .browserAssociate && asked.fingerprint?.split(separator: " ").count == 8)
        await #expect(throws: BrowserVaultError.denied) { _ = try await declined.value }
        #expect(try vault.browsers.list().isEmpty)

        async let named: String = bridge.associate(publicKey: key, identificationKey: key)
        _ = try await answerNext(approve: true, name: "Work Firefox")
        #expect(try await named == "Work Firefox")
        #expect(try await bridge.isAssociated(id: "Work Firefox", identificationKey: key))
        let otherKey = Data(repeating: 8, count: 32).base64EncodedString()
        #expect(try await !bridge.isAssociated(id: "Work Firefox", identificationKey: otherKey))
        #expect(try await !bridge.isAssociated(id: "nobody", identificationKey: key))

        async let offered: String = bridge.associate(publicKey: key, identificationKey: otherKey)
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
            association: "Firefox", url: "https://shop.example/login", submitURL: nil, httpAuth: false)
        #expect(
            logins.map(\.login) == ["alice"] && logins.first?.password == "Pw-alice" && logins.first?.hasTOTP == true)
        let code = try await bridge.totp(association: "Firefox", uuid: try #require(logins.first?.uuid))
        #expect(code.count == 6 && code.allSatisfy(\.isNumber))
        await #expect(throws: BrowserVaultError.unknownEntry) {
            _ = try await bridge.totp(association: "Firefox", uuid: String(repeating: "0", count: 32))
        }

        try await bridge.setLogin(
            association: "Firefox",
            SetLoginRequest(
                url: "https://shop.example/signup", login: "bob", password: "Pw-bob", uuid: nil))
        #expect(
            try vault.credentials.find(server: "shop.example", account: "bob").first?.password.exposedString()
                == "Pw-bob")
        // An update must name an entry this browser was shown on the page's own site.
        await #expect(throws: BrowserVaultError.unknownEntry) {
            try await bridge.setLogin(
                association: "Firefox",
                SetLoginRequest(url: "https://other.example/", login: "alice", password: "x", uuid: logins[0].uuid))
        }
        try vault.neverSave.mark("never.example")
        await #expect(throws: BrowserVaultError.denied) {
            try await bridge.setLogin(
                association: "Firefox",
                SetLoginRequest(url: "https://never.example/", login: "x", password: "y", uuid: nil))
        }

        try vault.browsers.revoke(id: "Firefox")
        await #expect(throws: BrowserVaultError.notAssociated) {
            _ = try await bridge.logins(
                association: "Firefox", url: "https://shop.example/", submitURL: nil, httpAuth: false)
        }
        await #expect(throws: BrowserVaultError.notAssociated) {
            _ = try await bridge.generatePassword(association: "Firefox", url: nil)
        }
    }

    @Test("consent ask: the owner approves or declines each site, and may have it remembered")
    func consentAsk() async throws {
        try vault.browsers.add(id: "Firefox", identificationKey: [UInt8](repeating: 9, count: 32), consent: .ask)
        try vault.credentials.upsert(server: "shop.example", account: "alice", password: SecureBytes(utf8: "Pw"))
        async let first = bridge.logins(
            association: "Firefox", url: "https://shop.example/", submitURL: nil, httpAuth: false)
        let asked = try await answerNext(approve: true, remember: true)
        #expect(asked.app == "browser:Firefox" && asked.operation == .release && asked.domain == "https://shop.example")
        #expect(try await first.count == 1)
        // Remembered for this site: no second question.
        #expect(
            try await bridge.logins(
                association: "Firefox", url: "https://shop.example/a", submitURL: nil, httpAuth: false
            )
            .count == 1)
        let other = Task { [bridge] in
            try await bridge.logins(
                association: "Firefox", url: "https://other.example/", submitURL: nil, httpAuth: false)
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
            association: "Firefox", url: "https://plain.test/", submitURL: nil, httpAuth: false)
        #expect(try await answerNext(approve: true, remember: true).domain == "https://plain.test")
        #expect(try await https.map(\.password) == ["Pw-https"])
        let pages = ["http://plain.test:443/", "https://plain.test:8443/", "http://plain.test:8443/"]
        for page in pages {
            async let logins = bridge.logins(association: "Firefox", url: page, submitURL: nil, httpAuth: false)
            let asked = try await answerNext(approve: true, remember: true)
            #expect(asked.domain == String(page.dropLast()), "the question names the page's scheme and port")
            #expect(try await logins.isEmpty, "\(page) gets no other site's credential")
            try await bridge.setLogin(
                association: "Firefox", SetLoginRequest(url: page, login: "alice", password: "Pw-\(page)", uuid: nil))
        }
        #expect(try vault.credentials.all().count == 4)
        #expect(try vault.credentials.find(server: "plain.test").first?.password.exposedString() == "Pw-https")
        var uuids: Set<String> = []
        for page in ["https://plain.test/"] + pages {
            let logins = try await bridge.logins(association: "Firefox", url: page, submitURL: nil, httpAuth: false)
            #expect(logins.map(\.password) == [page == "https://plain.test/" ? "Pw-https" : "Pw-\(page)"])
            uuids.formUnion(logins.map(\.uuid))
        }
        #expect(uuids.count == 4)
        // An update names an entry shown on the same scheme and port only.
        let shownForHTTPS = try await bridge.logins(
            association: "Firefox", url: "https://plain.test:8443/", submitURL: nil, httpAuth: false)
        await #expect(throws: BrowserVaultError.unknownEntry) {
            try await bridge.setLogin(
                association: "Firefox",
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
        try await bridge.lock(association: "Firefox")
        #expect(holder.isLocked)
        await #expect(throws: BrowserVaultError.locked) { _ = try await bridge.databaseHash() }
        await #expect(throws: BrowserVaultError.locked) {
            _ = try await bridge.logins(
                association: "Firefox", url: "https://shop.example/", submitURL: nil, httpAuth: false)
        }
    }
}
