import Foundation
import TestSupport
import Testing

@testable import SharedWebCredentials

/// The facade over a real vault file and a real HTTPS server on loopback: `shop.example` lists
/// the app in its AASA file, `other.example` lists somebody else, `163.com` (a host with a
/// password-rules quirk) lists the app.
@Suite("Gated operations: request, add, update, delete, generate")
struct GatedOperationsTests {
    static let app = try! ApplicationIdentifier("ABCDE12345.com.example.app")
    static let otherApp = try! ApplicationIdentifier("ZZZZZ99999.com.example.other")
    static let shop = try! DomainTarget("shop.example")
    static let other = try! DomainTarget("other.example")
    static let quirkHost = try! DomainTarget("163.com")
    static let hosts = ["shop.example", "other.example", "163.com", "unlisted.example", "3docean.net", "envato.com"]

    let site: LoopbackSite
    let directory: TemporaryDirectory
    let vault: Vault

    init() throws {
        site = try LoopbackSite()
        directory = try TemporaryDirectory()
        vault = try VaultTestSupport.makeVault(in: directory)
        try vault.apps.register(
            Self.app,
            entitlements: Entitlements(strings: [
                "webcredentials:shop.example", "webcredentials:other.example", "webcredentials:163.com",
                "webcredentials:3docean.net", "webcredentials:envato.com", "applinks:unlisted.example",
            ]),
            at: Date())
        try vault.apps.register(
            Self.otherApp, entitlements: Entitlements(strings: ["webcredentials:other.example"]), at: Date())
    }

    /// Runs `body` with the sites up and a facade for `app`.
    func withFacade<T>(
        for app: ApplicationIdentifier = Self.app, _ body: (SharedWebCredentials) async throws -> T
    ) async throws -> T {
        try await site.with(
            hosts: Self.hosts,
            handler: { request in
                guard request.path == LoopbackSite.wellKnown else { return .status(404) }
                switch request.host {
                case "shop.example", "163.com", "3docean.net", "envato.com":
                    return .aasa(approving: [Self.app.description])
                case "other.example": return .aasa(approving: [Self.otherApp.description])
                default: return .status(404)
                }
            }
        ) { verifier, _ in
            try await body(SharedWebCredentials(app: app, vault: vault, verifier: verifier))
        }
    }

    private static func always(_ change: CredentialChange) -> Bool { true }

    @Test("add, request, update, same password is a no-op, delete, delete again")
    func fullLifecycle() async throws {
        try await withFacade { facade in
            var asked: [CredentialChange.Kind] = []
            let confirm: (CredentialChange) -> Bool = { change in
                asked.append(change.kind)
                return true
            }
            #expect(
                try await facade.add(
                    domain: Self.shop, account: "alice", password: SecureBytes(utf8: "first-Pass1"), confirm: confirm)
                    == .added)
            var found = try await facade.request(domain: Self.shop)
            #expect(found.map(\.account) == ["alice"])
            #expect(found.first?.password.exposedString() == "first-Pass1")

            #expect(
                try await facade.add(
                    domain: Self.shop, account: "alice", password: SecureBytes(utf8: "second-Pass2"), confirm: confirm)
                    == .updated)
            #expect(
                try await facade.add(
                    domain: Self.shop, account: "alice", password: SecureBytes(utf8: "second-Pass2"), confirm: confirm)
                    == .unchanged)
            found = try await facade.request(domain: Self.shop, account: "alice")
            #expect(found.first?.password.exposedString() == "second-Pass2")

            #expect(try await facade.delete(domain: Self.shop, account: "alice", confirm: confirm) == .deleted)
            #expect(try await facade.delete(domain: Self.shop, account: "alice", confirm: confirm) == .nothingToDelete)
            #expect(asked == [.add, .update, .delete], "no-ops ask nobody")
            #expect(
                await VaultTestSupport.errorCode { _ = try await facade.request(domain: Self.shop) } == .itemNotFound)
        }
    }

    @Test("a declined change changes nothing")
    func declined() async throws {
        try await withFacade { facade in
            let code = await VaultTestSupport.errorCode {
                try await facade.add(
                    domain: Self.shop, account: "bob", password: SecureBytes(utf8: "pw-Decline1"),
                    confirm: { _ in false })
            }
            #expect(code == .declined)
            let saved = try vault.credentials.count()
            #expect(saved == 0)
        }
    }

    @Test("an unregistered app fails the gate with missing entitlement")
    func unregisteredApp() async throws {
        let stranger = try ApplicationIdentifier("QQQQQ11111.com.example.stranger")
        try await withFacade(for: stranger) { facade in
            #expect(
                await VaultTestSupport.errorCode { _ = try await facade.request(domain: Self.shop) }
                    == .missingEntitlement)
        }
    }

    @Test("a domain outside the entitlement fails with Apple's message, before any fetch")
    func domainOutsideEntitlement() async throws {
        try await withFacade { facade in
            let outside = try DomainTarget("unlisted.example")
            do {
                _ = try await facade.generatePassword(for: outside)
                Issue.record("expected missing entitlement")
            } catch let error as SharedWebCredentialsError {
                #expect(error.code == .missingEntitlement)
                #expect(error.message.contains("unlisted.example not found in com.apple.developer.associated-domains"))
            }
        }
    }

    @Test("a site that lists another app refuses this one with Apple's message")
    func siteRefuses() async throws {
        try await withFacade { facade in
            do {
                try await facade.add(
                    domain: Self.other, account: "carol", password: SecureBytes(utf8: "pw-Refused1"),
                    confirm: Self.always)
                Issue.record("expected not approved")
            } catch let error as SharedWebCredentialsError {
                #expect(error.code == .notApproved)
                #expect(error.message.hasPrefix("\"other.example\" failed to approve \"ABCDE12345.com.example.app\""))
            }
            #expect(try vault.credentials.count() == 0)
        }
    }

    @Test("request without a domain searches only the app's approved domains")
    func requestWithoutDomain() async throws {
        try vault.credentials.upsert(server: "shop.example", account: "alice", password: SecureBytes(utf8: "shop-Pw1"))
        try vault.credentials.upsert(
            server: "other.example", account: "alice", password: SecureBytes(utf8: "other-Pw1"))
        try vault.credentials.upsert(server: "elsewhere.example", account: "x", password: SecureBytes(utf8: "else-Pw1"))
        try await withFacade { facade in
            let found = try await facade.request()
            #expect(found.map(\.server) == ["shop.example"])
        }
        try await withFacade(for: Self.otherApp) { facade in
            let found = try await facade.request()
            #expect(found.map(\.server) == ["other.example"], "the other app sees only its own approved domain")
            #expect(
                await VaultTestSupport.errorCode { _ = try await facade.request(domain: Self.shop) }
                    == .missingEntitlement)
        }
    }

    @Test("a never-save marker makes add fail with Item already exists for this server")
    func neverSave() async throws {
        try vault.neverSave.mark("shop.example")
        try await withFacade { facade in
            do {
                try await facade.add(
                    domain: Self.shop, account: "dave", password: SecureBytes(utf8: "pw-Never1"), confirm: Self.always)
                Issue.record("expected never-save")
            } catch let error as SharedWebCredentialsError {
                #expect(error.code == .neverSave)
                #expect(error.message.hasPrefix("Item already exists for this server"))
            }
        }
    }

    @Test("empty account or password is invalid input")
    func emptyInputs() async throws {
        try await withFacade { facade in
            #expect(
                await VaultTestSupport.errorCode {
                    try await facade.add(
                        domain: Self.shop, account: "", password: SecureBytes(utf8: "x-Pw1"), confirm: Self.always)
                } == .invalidInput)
            #expect(
                await VaultTestSupport.errorCode {
                    try await facade.add(
                        domain: Self.shop, account: "eve", password: SecureBytes(utf8: ""), confirm: Self.always)
                } == .invalidInput)
        }
    }

    @Test("generate applies the domain's password-rules quirk, else Safari's strong style")
    func generateForDomain() async throws {
        try await withFacade { facade in
            let strong = try await facade.generatePassword(for: Self.shop)
            #expect(strong.style == .strong)
            let quirk = try #require(try PasswordRulesQuirks.quirk(for: "163.com"))
            let rules = PasswordRulesParser.parse(quirk.rulesText).rules
            let constrained = try await facade.generatePassword(for: Self.quirkHost)
            let maximum = try #require(rules.maxLength)
            #expect(constrained.password.count <= maximum)
            #expect(constrained.password.count >= rules.minLength ?? 0)
        }
    }

    @Test("offline with no stored verdict is a network failure; a stored approval serves offline")
    func offline() async throws {
        let offlineFacade = SharedWebCredentials(app: Self.app, vault: vault, verifier: nil)
        #expect(
            await VaultTestSupport.errorCode { _ = try await offlineFacade.generatePassword(for: Self.shop) }
                == .networkFailure)
        try await withFacade { facade in _ = try await facade.generatePassword(for: Self.shop) }
        #expect(try await offlineFacade.generatePassword(for: Self.shop).style == .strong)
    }

    @Test(
        "offline, an approval past its re-check time but not yet stale still serves, in as many reads as a fresh one"
    )
    func offlineDueApproval() async throws {
        let offlineFacade = SharedWebCredentials(app: Self.app, vault: vault, verifier: nil)
        try VaultTestSupport.approve(Self.app, for: ["webcredentials:shop.example"], in: vault)
        _ = try await offlineFacade.add(
            domain: Self.shop, account: "alice", password: SecureBytes(utf8: "offline-Pass1"), confirm: { _ in true })
        func readsOfRequest() async throws -> Int {
            let before = vault.transactionCounts.reads
            #expect(try await offlineFacade.request(domain: Self.shop).map(\.account) == ["alice"])
            return vault.transactionCounts.reads - before
        }
        let fresh = try await readsOfRequest()
        let sixDaysAgo = Date() - 6 * 86_400
        try VaultTestSupport.store(
            Self.app, for: ["webcredentials:shop.example"], verdict: .approved, checkedAt: sixDaysAgo,
            approvedAt: sixDaysAgo, in: vault)
        #expect(try await readsOfRequest() == fresh, "no site to ask: the due approval decides in the same read")
        let stale = Date() - 31 * 86_400
        try VaultTestSupport.store(
            Self.app, for: ["webcredentials:shop.example"], verdict: .approved, checkedAt: stale, approvedAt: stale,
            in: vault)
        #expect(
            await VaultTestSupport.errorCode { _ = try await offlineFacade.request(domain: Self.shop) }
                == .notApproved, "an approval 31 days old no longer serves")
    }

    @Test("shared sign-in domains are searched only with includeShared, and only when approved")
    func sharedCredentials() async throws {
        #expect(SharedCredentialGroups.domains(sharingCredentialsWith: "3docean.net").contains("envato.com"))
        try vault.credentials.upsert(server: "envato.com", account: "frank", password: SecureBytes(utf8: "Envato-Pw1"))
        try vault.credentials.upsert(server: "3docean.net", account: "gina", password: SecureBytes(utf8: "Docean-Pw1"))
        let docean = try DomainTarget("3docean.net")
        try await withFacade { facade in
            #expect(try await facade.request(domain: docean).map(\.account) == ["gina"], "never merged silently")
            let merged = try await facade.request(domain: docean, includeShared: true)
            #expect(merged.map(\.server) == ["3docean.net", "envato.com"])
        }
        try await withFacade(for: Self.otherApp) { facade in
            #expect(
                await VaultTestSupport.errorCode { _ = try await facade.request(domain: docean, includeShared: true) }
                    == .missingEntitlement)
        }
        try vault.apps.register(
            Self.app, entitlements: Entitlements(strings: ["webcredentials:3docean.net"]), at: Date())
        try await withFacade { facade in
            let limited = try await facade.request(domain: docean, includeShared: true)
            #expect(limited.map(\.server) == ["3docean.net"], "a shared domain outside the entitlement is left out")
        }
    }
}
