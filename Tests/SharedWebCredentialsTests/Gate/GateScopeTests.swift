import Foundation
import TestSupport
import Testing

@testable import SharedWebCredentials

/// The gate answers exactly what was asked: a site's verdict counts for that site's port only,
/// and a request for one account releases that account only. Verdicts are stored ones (offline),
/// so the test is about scope, not about fetching.
@Suite("Gate scope: a verdict per port, a release per account")
struct GateScopeTests {
    static let app = try! ApplicationIdentifier("ABCDE12345.com.example.app")

    let directory: TemporaryDirectory
    let vault: Vault
    let facade: SharedWebCredentials

    init() throws {
        directory = try TemporaryDirectory()
        vault = try VaultTestSupport.makeVault(in: directory)
        let entitlements = try Entitlements(strings: [
            "webcredentials:shop.example", "webcredentials:shop.example:8443",
        ])
        try vault.apps.register(Self.app, entitlements: entitlements, at: Date())
        facade = SharedWebCredentials(app: Self.app, vault: vault, verifier: nil)
    }

    private func approve(_ entry: String) throws {
        try VaultTestSupport.approve(Self.app, for: [entry], in: vault)
    }

    @Test("an approval stored for one port does not approve the host's other port")
    func verdictPerPort() async throws {
        try approve("webcredentials:shop.example:8443")
        #expect(try await facade.generatePassword(for: DomainTarget("shop.example:8443")).style == .strong)
        #expect(
            await VaultTestSupport.errorCode {
                _ = try await facade.generatePassword(for: DomainTarget("shop.example"))
            } == .networkFailure,
            "shop.example:443 was never verified")
        #expect(
            await try vault.associations.record(
                app: Self.app, entry: AssociatedDomainEntry("webcredentials:shop.example"))
                == nil)
        try approve("webcredentials:shop.example")
        #expect(try await facade.generatePassword(for: DomainTarget("shop.example")).style == .strong)
    }

    @Test("a request for one account releases only that account")
    func requestOneAccount() async throws {
        try approve("webcredentials:shop.example")
        for account in ["alice", "bob", "carol"] {
            try vault.credentials.upsert(
                server: "shop.example", account: account, password: SecureBytes(utf8: "Pw-\(account)-1"))
        }
        let released = try await facade.request(domain: DomainTarget("shop.example"), account: "bob")
        #expect(released.map(\.account) == ["bob"])
        #expect(released.map { $0.password.exposedString() } == ["Pw-bob-1"])
        #expect(
            try await facade.request(domain: DomainTarget("shop.example")).map(\.account) == ["alice", "bob", "carol"])
        #expect(
            await VaultTestSupport.errorCode {
                _ = try await facade.request(domain: DomainTarget("shop.example"), account: "dave")
            }
                == .itemNotFound)
    }
}
