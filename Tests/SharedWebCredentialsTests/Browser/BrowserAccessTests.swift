import Foundation
import GRDB
import SharedWebCredentialsData
import TestSupport
import Testing

@testable import SharedWebCredentials

/// The third caller's rules: which page gets which credentials, what a save may do, and the
/// associations the owner approved, sealed like every row that grants access.
@Suite("Browsers: associations and what a page gets")
struct BrowserAccessTests {
    let directory: TemporaryDirectory
    let vault: Vault
    let key = [UInt8](repeating: 7, count: 32)

    init() throws {
        directory = try TemporaryDirectory()
        vault = try VaultTestSupport.makeVault(in: directory)
    }

    private func save(_ server: String, port: Int? = nil, _ account: String, _ password: String) throws {
        try vault.credentials.upsert(
            server: server, port: port, account: account, password: SecureBytes(utf8: password))
    }

    @Test("a page's site: https, or http where allowed; no user information; ports kept apart")
    func sites() throws {
        #expect(
            BrowserAccess.site(of: "https://Shop.Example/login?x=1", allowsHTTP: false)?.description == "shop.example")
        #expect(BrowserAccess.site(of: "https://shop.example:443/", allowsHTTP: false)?.description == "shop.example")
        #expect(
            BrowserAccess.site(of: "https://shop.example:8443/", allowsHTTP: false)?.description == "shop.example:8443")
        #expect(BrowserAccess.site(of: "https://user:pw@shop.example/", allowsHTTP: true) == nil)
        #expect(BrowserAccess.site(of: "https://user@shop.example/", allowsHTTP: true) == nil)
        #expect(BrowserAccess.site(of: "http://shop.example/", allowsHTTP: false) == nil)
        #expect(BrowserAccess.site(of: "http://shop.example/", allowsHTTP: true)?.port == 80)
        #expect(BrowserAccess.site(of: "ftp://shop.example/", allowsHTTP: true) == nil)
        #expect(BrowserAccess.site(of: "javascript:alert(1)", allowsHTTP: true) == nil)
        #expect(BrowserAccess.site(of: "https:///nohost", allowsHTTP: true) == nil)
        #expect(BrowserAccess.site(of: "not a url", allowsHTTP: true) == nil)
    }

    @Test("a page gets its own host's credentials only: not a parent, a sibling, a look-alike or another port")
    func ownHostOnly() async throws {
        try save("shop.example", "alice", "Pw-shop")
        try save("example", "parent", "Pw-parent")
        try save("login.shop.example", "child", "Pw-child")
        try save("shop.example.evil.test", "evil", "Pw-evil")
        try save("shop.example", port: 8443, "port", "Pw-port")
        let association = try vault.browsers.add(id: "Firefox", identificationKey: key)
        let access = BrowserAccess(vault: vault)
        #expect(
            try await access.logins(for: association, url: "https://shop.example/login").map(\.account) == ["alice"])
        #expect(
            try await access.logins(for: association, url: "https://shop.example:8443/").map(\.account) == ["port"])
        #expect(
            try await access.logins(for: association, url: "https://shop.example.evil.test/").map(\.account) == [
                "evil"
            ])
        #expect(try await access.logins(for: association, url: "https://alice@shop.example/").isEmpty)
        #expect(try await access.logins(for: association, url: "http://shop.example/").isEmpty)
        let releases = try vault.audit.entries().filter { $0.event.operation == .request }.map(\.event)
        #expect(releases.first?.actor.name == "browser:Firefox")
        #expect(releases.first?.released == [AuditCredential(domain: "shop.example", account: "alice")])
    }

    @Test("sites that share a sign-in (Apple's groups) share their credentials with a page")
    func sharedGroups() async throws {
        #expect(SharedCredentialGroups.domains(sharingCredentialsWith: "3docean.net").contains("envato.com"))
        try save("envato.com", "shared", "Pw-shared")
        let association = try vault.browsers.add(id: "Firefox", identificationKey: key)
        let found = try await BrowserAccess(vault: vault).logins(for: association, url: "https://3docean.net/")
        #expect(found.map(\.account) == ["shared"])
    }

    @Test("a save adds or updates the page's credential, honours never-save, and is audited as the browser")
    func saves() async throws {
        let association = try vault.browsers.add(id: "Firefox", identificationKey: key)
        let access = BrowserAccess(vault: vault)
        #expect(
            try await access.save(
                for: association, url: "https://shop.example/signup", account: "bob",
                password: SecureBytes(utf8: "Pw-1"))
                == .added)
        #expect(
            try await access.save(
                for: association, url: "https://shop.example/", account: "bob", password: SecureBytes(utf8: "Pw-2"))
                == .updated)
        #expect(
            try vault.credentials.find(server: "shop.example", account: "bob").first?.password.exposedString() == "Pw-2"
        )
        try vault.neverSave.mark("never.example")
        let refused = await failure {
            _ = try await access.save(
                for: association, url: "https://never.example/", account: "x", password: SecureBytes(utf8: "Pw"))
        }
        #expect(refused?.code == .neverSave)
        let wrongPage = await failure {
            _ = try await access.save(
                for: association, url: "https://u:p@shop.example/", account: "x", password: SecureBytes(utf8: "Pw"))
        }
        #expect(wrongPage?.code == .invalidInput)
        let tooLong = await failure {
            _ = try await access.save(
                for: association, url: "https://shop.example/", account: String(repeating: "a", count: 20_000),
                password: SecureBytes(utf8: "Pw"))
        }
        #expect(tooLong?.code == .invalidInput)
        #expect(try vault.credentials.find(server: "never.example").isEmpty)
        let saves = try vault.audit.entries().filter { $0.event.actor.name == "browser:Firefox" }.map(\.event.operation)
        #expect(saves == [.add, .update])
    }

    @Test("a save whose audit entry cannot be written saves nothing, from a browser as from an app")
    func saveAndEntryAreOneTransaction() async throws {
        let association = try vault.browsers.add(id: "Firefox", identificationKey: key)
        let app = try ApplicationIdentifier("ABCDE12345.com.example.app")
        try vault.apps.register(app, entitlements: Entitlements(strings: ["webcredentials:shop.example"]), at: Date())
        try VaultTestSupport.approve(app, for: ["webcredentials:shop.example"], in: vault)
        try Attacker(path: vault.path).execute("UPDATE vault_meta SET audit_head = zeroblob(72)")
        let browser = await failure {
            _ = try await BrowserAccess(vault: vault).save(
                for: association, url: "https://shop.example/", account: "bob", password: SecureBytes(utf8: "Pw-b"))
        }
        #expect(browser?.code == .integrityFailure, "\(String(describing: browser))")
        let fromApp = await failure {
            _ = try await SharedWebCredentials(app: app, vault: vault, verifier: nil).add(
                domain: DomainTarget("shop.example"), account: "carol", password: SecureBytes(utf8: "Pw-c"),
                confirm: { _ in true })
        }
        #expect(fromApp?.code == .integrityFailure, "\(String(describing: fromApp))")
        #expect(try vault.credentials.find(server: "shop.example").isEmpty, "neither save without its entry")
    }

    @Test("associations: names checked, one per name, listed, revoked, each change audited")
    func associations() async throws {
        try vault.browsers.add(id: "Firefox", identificationKey: key, allowsHTTP: true, consent: .ask)
        #expect(failure { try vault.browsers.add(id: "Firefox", identificationKey: key) }?.code == .invalidInput)
        #expect(failure { try vault.browsers.add(id: "", identificationKey: key) }?.code == .invalidInput)
        #expect(failure { try vault.browsers.add(id: "bad\u{7}name", identificationKey: key) }?.code == .invalidInput)
        #expect(failure { try vault.browsers.add(id: " padded", identificationKey: key) }?.code == .invalidInput)
        #expect(failure { try vault.browsers.add(id: "short", identificationKey: [1, 2]) }?.code == .invalidInput)
        let found = try #require(try await vault.browsers.find(id: "Firefox", identifiedBy: key))
        #expect(
            found.allowsHTTP && found.consent == .ask && found.fingerprint == BrowserAssociation.fingerprint(of: key))
        #expect(try vault.browsers.list().map(\.id) == ["Firefox"])
        #expect(try vault.browsers.revoke(id: "Firefox"))
        #expect(try !vault.browsers.revoke(id: "Firefox"))
        #expect(try await vault.browsers.find(id: "Firefox", identifiedBy: key) == nil)
        #expect(
            try vault.audit.entries().map(\.event.operation).suffix(2) == [.browserAssociate, .browserRevoke])
        #expect(BrowserAssociation.fingerprint(of: key).split(separator: " ").count == 8)
        #expect(BrowserAssociation.defaultName(for: key).hasPrefix("browser-"))
    }

    @Test("an association edited in the file, or put back after its revocation, associates nothing")
    func tamperedAndPutBack() async throws {
        try vault.browsers.add(id: "Firefox", identificationKey: key)
        let row = try Attacker(path: vault.path).rows("SELECT * FROM browser_associations")[0]
        try Attacker(path: vault.path).execute("UPDATE browser_associations SET allow_http = 1")
        #expect(
            await failure { _ = try await vault.browsers.find(id: "Firefox", identifiedBy: key) }?.code
                == .integrityFailure)
        #expect(try vault.browsers.revoke(id: "Firefox"), "an altered row can still be revoked")
        try Attacker(path: vault.path).execute(
            "INSERT INTO browser_associations VALUES (?, ?, ?, ?, ?, ?, ?)",
            arguments: [
                row["id"], row["key_hash"], row["fingerprint"], row["allow_http"], row["consent"], row["created_at"],
                row["mac"],
            ])
        let putBack = await failure { _ = try await vault.browsers.find(id: "Firefox", identifiedBy: key) }
        #expect(putBack?.code == .integrityFailure, "\(String(describing: putBack))")
        #expect(try vault.integrityReport().grantRowsPutBack == 1)
    }

    @Test("the database hash names this vault only, and stays with its key")
    func databaseHash() throws {
        let hash = try vault.browsers.databaseHash()
        #expect(hash.count == 64 && hash.allSatisfy(\.isHexDigit))
        #expect(try vault.browsers.databaseHash() == hash)
        let otherDirectory = try TemporaryDirectory()
        let other = try VaultTestSupport.makeVault(in: otherDirectory)
        #expect(try other.browsers.databaseHash() != hash)
    }

    /// Moves the write-ahead log's pages into the vault's file and empties the log.
    private func checkpoint() throws {
        try VaultTestSupport.rawDatabase(vault.path).writeWithoutTransaction {
            try $0.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        }
    }

    /// Whether the vault's file (or its write-ahead log) holds `bytes` anywhere.
    private func fileHolds(_ bytes: [UInt8]) throws -> Bool {
        try [vault.path, vault.path + "-wal"].contains { path in
            guard let data = FileManager.default.contents(atPath: path) else { return false }
            return data.range(of: Data(bytes)) != nil
        }
    }

    @Test("the file holds a keyed hash of a browser's key, never the key: a wrong key, or a name alone, finds nothing")
    func keyStoredAsKeyedHash() async throws {
        let key = (0..<32).map { UInt8($0 * 7 + 3) }
        try vault.browsers.add(id: "Firefox", identificationKey: key)
        #expect(try !fileHolds(key), "the identification key is in the vault's file")
        let row = try Attacker(path: vault.path).rows("SELECT key_hash, fingerprint FROM browser_associations")[0]
        #expect((row["key_hash"] as Data?)?.count == 32)
        #expect(row["fingerprint"] as String? == BrowserAssociation.fingerprint(of: key))
        #expect(try await vault.browsers.find(id: "Firefox", identifiedBy: key)?.id == "Firefox")
        #expect(try await vault.browsers.find(id: "Firefox", identifiedBy: [UInt8](repeating: 1, count: 32)) == nil)
        #expect(try await vault.browsers.find(id: "Chromium", identifiedBy: key) == nil)
    }

    @Test("rekey and passwd --rekey revoke every browser, audited, as they revoke app tokens")
    func keyRotationRevokesBrowsers() async throws {
        try vault.browsers.add(id: "Firefox", identificationKey: key)
        try vault.browsers.add(id: "Chromium", identificationKey: [UInt8](repeating: 8, count: 32))
        #expect(try vault.rotateKey().revokedBrowsers == 2)
        #expect(try vault.browsers.list().isEmpty)
        try vault.browsers.add(id: "Firefox", identificationKey: key)
        try vault.changePassphrase(to: SecureBytes(utf8: "another passphrase: amber violin 27"), rotatingKey: true)
        #expect(try vault.browsers.list().isEmpty)
        let revoked = try vault.audit.entries().map(\.event).filter { $0.operation == .browserRevoke }.map {
            $0.detail ?? ""
        }
        #expect(
            revoked == [
                "browser Chromium; revoked by the vault key's rotation",
                "browser Firefox; revoked by the vault key's rotation",
                "browser Firefox; revoked by `swcred passwd --rekey`",
            ])
    }

    @Test("an association stored before keys were hashed is ended at the first unlock, audited, and its key wiped")
    func clearKeyAssociationEndedAtUpgrade() async throws {
        // The vault as migration 0010 left it: one browser, its key in the clear.
        let old = try #require(EmbeddedMigrations.all.first { $0.identifier == "0010_browser_associations" })
        let key = (0..<32).map { UInt8($0 * 5 + 1) }
        let attacker = Attacker(path: vault.path)
        try attacker.execute("DROP TABLE browser_associations_ended")
        try attacker.execute("DROP TABLE browser_associations")
        try attacker.execute(old.sql)
        try attacker.execute(
            "INSERT INTO browser_associations VALUES ('Old Firefox', ?, 0, 'none', 0, zeroblob(32))",
            arguments: [Data(key)])
        try attacker.execute("DELETE FROM grdb_migrations WHERE identifier = '0011_browser_key_hashes'")
        try checkpoint()
        #expect(try fileHolds(key))

        let reopened = try VaultTestSupport.open(vault.path)
        #expect(try reopened.browsers.list().isEmpty)
        #expect(try attacker.rows("SELECT id FROM browser_associations_ended").isEmpty)
        let ended = try reopened.audit.entries().map(\.event).filter { $0.operation == .browserRevoke }
        #expect(
            ended.map(\.detail) == [
                "browser Old Firefox; ended by the upgrade that stopped storing browsers' keys in the clear: associate it again"
            ])
        // Deleted with secure_delete on: the page is zeroed, as a checkpoint shows.
        try checkpoint()
        #expect(try !fileHolds(key), "the key stored in the clear is still in the file")
        #expect(try reopened.integrityReport().grantRowsPutBack == 0)
        _ = try VaultTestSupport.open(vault.path)
        #expect(try reopened.audit.entries().filter { $0.event.operation == .browserRevoke }.count == 1)
    }
}
