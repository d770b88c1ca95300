import Foundation
import GRDB
import TestSupport
import Testing

@testable import SharedWebCredentials

/// Android apps in the vault: registered with their fingerprints, authenticated by the row MAC,
/// and gated like Apple apps.
@Suite("Android apps in the vault", .serialized)
struct AndroidAppRegistryTests {
    typealias F = AssetLinksFixtures
    let directory: TemporaryDirectory
    let vault: Vault
    let attacker: Attacker

    init() throws {
        directory = try TemporaryDirectory()
        vault = try VaultTestSupport.makeVault(in: directory)
        attacker = Attacker(path: vault.path)
    }

    @Test("an Android app is stored with its canonical fingerprints and read back signed by them")
    func registerAndRead() throws {
        let lower = try ApplicationIdentifier("android:com.example.shop")
            .signed(by: [try CertificateFingerprint(F.fingerprint.lowercased())])
        try vault.apps.register(lower, entitlements: try Entitlements(androidDomains: ["example.com"]), at: Date())
        let registered = try vault.apps.require(try ApplicationIdentifier("android:com.example.shop"))
        #expect(registered.identifier.signingCertificates.map(\.description) == [F.fingerprint])
        #expect(registered.entitlements.entries.map(\.description) == ["get_login_creds:example.com"])
        let stored = try attacker.rows("SELECT certificate_fingerprints FROM apps")
        #expect(stored.map { $0[0] as String } == ["[\"\(F.fingerprint)\"]"])
    }

    @Test("re-registering with other fingerprints drops every verdict: they judged the old certificates")
    func changedFingerprintsDropVerdicts() throws {
        let domains = try Entitlements(androidDomains: ["example.com", "other.example"])
        try vault.apps.register(F.app, entitlements: domains, at: Date())
        for domain in ["example.com", "other.example"] {
            try vault.associations.save(
                AssociationRecord(
                    service: .getLoginCreds, app: F.app, domain: domain, verdict: .approved, checkedAt: Date(),
                    nextCheck: Date() + 3_600, lastError: nil, retryCount: 0, documentDigest: nil,
                    approvedAt: Date()))
        }
        try vault.apps.register(F.app, entitlements: domains, at: Date())
        #expect(try vault.associations.all().count == 2, "the same registration again keeps the verdicts")
        let both = try ApplicationIdentifier("android:com.example.shop").signed(by: [
            try CertificateFingerprint(F.fingerprint), try CertificateFingerprint(F.otherFingerprint),
        ])
        try vault.apps.register(both, entitlements: domains, at: Date())
        #expect(try vault.associations.all().isEmpty)
    }

    @Test("an Apple app is stored without fingerprints, exactly as before")
    func appleRowUnchanged() throws {
        try vault.apps.register(
            LoopbackSite.app, entitlements: try Entitlements(strings: ["webcredentials:example.com"]), at: Date())
        let row = try #require(try attacker.rows("SELECT certificate_fingerprints FROM apps").first)
        #expect((row[0] as DatabaseValue).isNull)
        #expect(try vault.apps.require(LoopbackSite.app).identifier.signingCertificates.isEmpty)
    }

    @Test("registration refuses an Android app without a fingerprint and entries of the other kind")
    func registrationRefusals() throws {
        let unsigned = try ApplicationIdentifier("android:com.example.shop")
        let androidDomains = try Entitlements(androidDomains: ["example.com"])
        #expect(
            failure { try vault.apps.register(unsigned, entitlements: androidDomains, at: Date()) }?.code
                == .invalidInput)
        #expect(
            failure {
                try vault.apps.register(
                    F.app, entitlements: try Entitlements(strings: ["webcredentials:example.com"]), at: Date())
            }?.code == .invalidInput)
        #expect(
            failure { try vault.apps.register(LoopbackSite.app, entitlements: androidDomains, at: Date()) }?.code
                == .invalidInput)
        #expect(try vault.apps.all().isEmpty)
    }

    @Test("editing the file cannot add a fingerprint, remove one, or give an Apple app one: the row MAC covers them")
    func fingerprintsAuthenticated() throws {
        try vault.apps.register(F.app, entitlements: try Entitlements(androidDomains: ["example.com"]), at: Date())
        try vault.apps.register(
            LoopbackSite.app, entitlements: try Entitlements(strings: ["webcredentials:example.com"]), at: Date())
        let original =
            try #require(
                try attacker.rows(
                    "SELECT certificate_fingerprints FROM apps WHERE application_identifier = ?",
                    arguments: [F.app.description]
                ).first)[0] as String
        let forged = [
            "[\"\(F.fingerprint)\",\"\(F.otherFingerprint)\"]",
            "[\"\(F.otherFingerprint)\"]",
            "[]",
        ]
        for value in forged {
            try attacker.execute(
                "UPDATE apps SET certificate_fingerprints = ? WHERE application_identifier = ?",
                arguments: [value, F.app.description])
            #expect(failure { _ = try vault.apps.require(F.app) }?.code == .integrityFailure, "\(value)")
        }
        try attacker.execute(
            "UPDATE apps SET certificate_fingerprints = ? WHERE application_identifier = ?",
            arguments: [original, F.app.description])
        #expect(try vault.apps.require(F.app).identifier.signingCertificates == F.app.signingCertificates)
        // The schema itself forbids fingerprints on an Apple app and their absence on an Android app.
        #expect(throws: DatabaseError.self) {
            try attacker.execute(
                "UPDATE apps SET certificate_fingerprints = '[]' WHERE application_identifier = ?",
                arguments: [LoopbackSite.app.description])
        }
        #expect(throws: DatabaseError.self) {
            try attacker.execute(
                "UPDATE apps SET certificate_fingerprints = NULL WHERE application_identifier = ?",
                arguments: [F.app.description])
        }
    }

    @Test("an Android app and an Apple app share a vault; each passes the gate only for its own approvals")
    func sharedVault() async throws {
        try vault.apps.register(F.app, entitlements: try Entitlements(androidDomains: ["shop.example"]), at: Date())
        try vault.apps.register(
            LoopbackSite.app, entitlements: try Entitlements(strings: ["webcredentials:news.example"]), at: Date())
        try vault.credentials.upsert(server: "shop.example", account: "alice", password: SecureBytes(utf8: "shop-pw"))
        try vault.credentials.upsert(server: "news.example", account: "bob", password: SecureBytes(utf8: "news-pw"))
        let site = try LoopbackSite()
        try await site.with(
            hosts: ["shop.example", "news.example"],
            handler: { request in
                switch (request.host, request.path) {
                case ("shop.example", F.wellKnown): F.list(F.androidStatement())
                case ("news.example", LoopbackSite.wellKnown): .aasa(approving: [LoopbackSite.app.description])
                default: .status(404)
                }
            }
        ) { verifier, _ in
            let android = SharedWebCredentials(
                app: try ApplicationIdentifier("android:com.example.shop"), vault: vault, verifier: verifier)
            let apple = SharedWebCredentials(app: LoopbackSite.app, vault: vault, verifier: verifier)
            #expect(try await android.request(domain: try DomainTarget("shop.example")).map(\.account) == ["alice"])
            #expect(try await apple.request(domain: try DomainTarget("news.example")).map(\.account) == ["bob"])
            // Without a domain, each sees only the credentials of its own approved sites.
            #expect(try await android.request().map(\.account) == ["alice"])
            #expect(try await apple.request().map(\.account) == ["bob"])
            let crossed = await failure { _ = try await android.request(domain: try DomainTarget("news.example")) }
            #expect(crossed?.code == .missingEntitlement)
        }
        let records = try vault.associations.all()
        #expect(
            records.map { "\($0.service.rawValue) \($0.app) \($0.domain) \($0.verdict.rawValue)" } == [
                "webcredentials ABCDE12345.com.example.app news.example approved",
                "get_login_creds android:com.example.shop shop.example approved",
            ])
    }

    @Test(
        "request --include-shared offers another site's credentials only when its list shares them and approves the app"
    )
    func webToWebSharing() async throws {
        try vault.apps.register(
            F.app,
            entitlements: try Entitlements(androidDomains: ["shop.example", "accounts.example", "blog.example"]),
            at: Date())
        try vault.credentials.upsert(server: "accounts.example", account: "alice", password: SecureBytes(utf8: "a-pw"))
        try vault.credentials.upsert(server: "blog.example", account: "bob", password: SecureBytes(utf8: "b-pw"))
        let warnings = WarningLog(for: vault)
        let site = try LoopbackSite()
        let sharing = F.webStatement(site: "https://shop.example")
        try await site.with(
            hosts: ["shop.example", "accounts.example", "blog.example"],
            handler: { request in
                guard request.path == F.wellKnown else { return .status(404) }
                switch request.host {
                case "shop.example": return F.list(F.androidStatement())
                // Approves the app and shares its credentials with shop.example.
                case "accounts.example": return F.list(F.androidStatement(), sharing)
                // Shares with shop.example but does not approve the app: nothing is offered.
                case "blog.example": return F.list(sharing)
                default: return .status(404)
                }
            }
        ) { verifier, _ in
            let android = SharedWebCredentials(app: F.app, vault: vault, verifier: verifier)
            let shop = try DomainTarget("shop.example")
            let alone = await failure { _ = try await android.request(domain: shop) }
            #expect(alone?.code == .itemNotFound, "without --include-shared, only shop.example's own")
            #expect(warnings.all.isEmpty)
            let shared = try await android.request(domain: shop, includeShared: true)
            #expect(shared.map { "\($0.server) \($0.account)" } == ["accounts.example alice"])
            #expect(warnings.all.count == 1)
            #expect(warnings.all.first?.contains("accounts.example") == true)
            #expect(warnings.all.first?.contains("shares them with https://shop.example") == true)
            // Offline, no list can be read: nothing is shared.
            let offline = SharedWebCredentials(app: F.app, vault: vault, verifier: nil)
            let none = await failure { _ = try await offline.request(domain: shop, includeShared: true) }
            #expect(none?.code == .itemNotFound)
        }
    }
}
