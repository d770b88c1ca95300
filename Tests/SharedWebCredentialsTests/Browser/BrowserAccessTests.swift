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

    @Test("a page's site: https, or http where allowed; no user information; ports and schemes kept apart")
    func sites() throws {
        #expect(
            BrowserAccess.site(of: "https://Shop.Example/login?x=1", allowsHTTP: false)?.description
                == "https://shop.example")
        #expect(
            BrowserAccess.site(of: "https://shop.example:443/", allowsHTTP: false)?.description
                == "https://shop.example")
        #expect(
            BrowserAccess.site(of: "https://shop.example:8443/", allowsHTTP: false)?.description
                == "https://shop.example:8443")
        #expect(
            BrowserAccess.site(of: "http://shop.example:80/", allowsHTTP: true)?.description == "http://shop.example")
        #expect(
            BrowserAccess.site(of: "http://shop.example:443/", allowsHTTP: true)?.description
                == "http://shop.example:443")
        #expect(BrowserAccess.site(of: "http://shop.example:443/", allowsHTTP: true)?.name == "http://shop.example:443")
        #expect(BrowserAccess.site(of: "https://shop.example:8443/", allowsHTTP: true)?.name == "shop.example:8443")
        #expect(BrowserAccess.site(of: "https://user:pw@shop.example/", allowsHTTP: true) == nil)
        #expect(BrowserAccess.site(of: "https://user@shop.example/", allowsHTTP: true) == nil)
        #expect(BrowserAccess.site(of: "http://shop.example/", allowsHTTP: false) == nil)
        #expect(BrowserAccess.site(of: "http://shop.example/", allowsHTTP: true)?.scheme == .http)
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

    @Test("an http page never gets or replaces an https credential: not on 443, not on another port")
    func httpNeverReachesHTTPS() async throws {
        try save("plain.test", "alice", "Pw-https")
        try save("plain.test", port: 8443, "alice", "Pw-https-8443")
        let association = try vault.browsers.add(id: "Firefox", identificationKey: key, allowsHTTP: true)
        let access = BrowserAccess(vault: vault)
        for url in ["http://plain.test:443/", "http://plain.test:8443/", "http://plain.test/"] {
            #expect(try await access.logins(for: association, url: url).isEmpty, "\(url)")
        }
        #expect(
            try await access.save(
                for: association, url: "http://plain.test:443/", account: "alice", password: SecureBytes(utf8: "Pw-80"))
                == .added)
        #expect(
            try await access.save(
                for: association, url: "http://plain.test:8443/login", account: "alice",
                password: SecureBytes(utf8: "Pw-http-8443")) == .added)
        let https = try await access.logins(for: association, url: "https://plain.test/")
        #expect(https.map { $0.password.exposedString() } == ["Pw-https"])
        let https8443 = try await access.logins(for: association, url: "https://plain.test:8443/")
        #expect(https8443.map { $0.password.exposedString() } == ["Pw-https-8443"])
        let http443 = try await access.logins(for: association, url: "http://plain.test:443/")
        #expect(http443.map { $0.password.exposedString() } == ["Pw-80"] && http443.first?.scheme == .http)
        #expect(try vault.credentials.find(server: "plain.test", port: 443, scheme: .http).count == 1)
        let domains = try vault.audit.entries().filter { $0.event.operation == .add }.map(\.event.domain)
        #expect(domains == ["http://plain.test:443", "http://plain.test:8443"])
    }

    @Test("one account on two ports and two schemes of one host: four credentials, four entry ids")
    func twoPortsTwoSchemes() async throws {
        let association = try vault.browsers.add(id: "Firefox", identificationKey: key, allowsHTTP: true)
        let access = BrowserAccess(vault: vault)
        let pages = ["https://two.test/", "https://two.test:8443/", "http://two.test/", "http://two.test:8443/"]
        for page in pages {
            #expect(
                try await access.save(for: association, url: page, account: "bob", password: SecureBytes(utf8: page))
                    == .added, "\(page)")
        }
        #expect(try vault.credentials.all().count == 4)
        var found: [Credential] = []
        for page in pages {
            let logins = try await access.logins(for: association, url: page)
            #expect(logins.map { $0.password.exposedString() } == [page])
            found += logins
        }
        let ids = try access.entryIDs(of: found)
        #expect(Set(ids).count == 4)
        // What KeePassXC-Browser knows an entry by: 32 hexadecimal digits (128 bits of a keyed hash).
        #expect(ids.allSatisfy { $0.count == 32 && $0.allSatisfy(\.isHexDigit) }, "\(ids)")
    }

    @Test("an app's lookups over the blind indexes never give an http credential, wildcard or exact")
    func appsReachHTTPSOnly() throws {
        try save("shop.example", "https-alice", "Pw-1")
        try vault.credentials.upsert(
            server: "shop.example", scheme: .http, account: "http-alice", password: SecureBytes(utf8: "Pw-2"))
        try vault.credentials.upsert(
            server: "a.shop.example", scheme: .http, account: "http-sub", password: SecureBytes(utf8: "Pw-3"))
        let entries = try ["webcredentials:shop.example", "webcredentials:*.shop.example"].map {
            try AssociatedDomainEntry($0)
        }
        #expect(try vault.credentials.candidates(coveredBy: entries).map(\.account) == ["https-alice"])
    }

    @Test("an http record put in its https twin's place (the indexes swapped) fails authentication")
    func swappedSchemes() throws {
        try save("plain.test", "alice", "Pw-https")
        try vault.credentials.upsert(
            server: "plain.test", scheme: .http, account: "alice", password: SecureBytes(utf8: "Pw-http"))
        let attacker = Attacker(path: vault.path)
        let rows = try attacker.rows("SELECT id, server_index, account_index FROM credentials")
        #expect(rows.count == 2)
        try attacker.execute(
            "UPDATE credentials SET account_index = zeroblob(32) WHERE id = ?", arguments: [rows[0]["id"]])
        try attacker.execute(
            "UPDATE credentials SET server_index = ?, account_index = ? WHERE id = ?",
            arguments: [rows[0]["server_index"], rows[0]["account_index"], rows[1]["id"]])
        try attacker.execute(
            "UPDATE credentials SET server_index = ?, account_index = ? WHERE id = ?",
            arguments: [rows[1]["server_index"], rows[1]["account_index"], rows[0]["id"]])
        for scheme in CredentialScheme.allCases {
            let error = failure { _ = try vault.credentials.find(server: "plain.test", scheme: scheme) }
            #expect(error?.code == .integrityFailure, "\(scheme)")
        }
    }

    @Test("sites that share a sign-in (Apple's groups) share their credentials with a page")
    func sharedGroups() async throws {
        #expect(SharedCredentialGroups.domains(sharingCredentialsWith: "3docean.net").contains("envato.com"))
        try save("envato.com", "shared", "Pw-shared")
        let association = try vault.browsers.add(id: "Firefox", identificationKey: key)
        let found = try await BrowserAccess(vault: vault).logins(for: association, url: "https://3docean.net/")
        #expect(found.map(\.account) == ["shared"])
        let http = try vault.browsers.add(id: "Plain", identificationKey: key, allowsHTTP: true)
        #expect(
            try await BrowserAccess(vault: vault).logins(for: http, url: "http://3docean.net/").isEmpty,
            "the groups are https sites: an http page gets none of them")
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

    @Test(
        "a save whose entry cannot be numbered (a last entry at 2^63 - 1 behind swcred's back) saves nothing, from a browser as from an app"
    )
    func saveAndEntryFailTogether() async throws {
        let association = try vault.browsers.add(id: "Firefox", identificationKey: key)
        let app = try ApplicationIdentifier("ABCDE12345.com.example.app")
        try vault.apps.register(app, entitlements: Entitlements(strings: ["webcredentials:shop.example"]), at: Date())
        try VaultTestSupport.approve(app, for: ["webcredentials:shop.example"], in: vault)
        // The seal is left intact: only the next entry fails (its number would pass 2^63 - 1), so
        // a change committed apart from its entry would stay.
        try Attacker(path: vault.path).execute(
            """
            INSERT INTO audit_log (seq, at, actor, operation, outcome, error_code, sealed, tag)
            VALUES (9223372036854775807, 0, 'owner', 'lock', 'done', NULL, x'00', zeroblob(32))
            """)
        var browserFailed = false
        do {
            _ = try await BrowserAccess(vault: vault).save(
                for: association, url: "https://shop.example/", account: "bob", password: SecureBytes(utf8: "Pw-b"))
        } catch { browserFailed = true }
        #expect(browserFailed, "the browser's save reports the entry's failure")
        var appFailed = false
        do {
            _ = try await SharedWebCredentials(app: app, vault: vault, verifier: nil).add(
                domain: DomainTarget("shop.example"), account: "carol", password: SecureBytes(utf8: "Pw-c"),
                confirm: { _ in true })
        } catch { appFailed = true }
        #expect(appFailed, "the app's save reports the entry's failure")
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
        try GrantListFixture.rewind(vault, engine: .sqlite, execute: { try attacker.execute($0) })
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
