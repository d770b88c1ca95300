import Foundation
import TestSupport
import Testing

@testable import SharedWebCredentials

/// "Never for this website" names a host: while the marker stands, no save reaches that host on
/// any port. The app is entitled to the host on many ports and approved for each (stored
/// verdicts, offline), so only the marker stands between it and a save.
@Suite("Never save holds for every port of the host")
struct NeverSaveEveryPortTests {
    static let app = try! ApplicationIdentifier("ABCDE12345.com.example.app")
    static let ports: [Int?] = [nil, 443, 1, 80, 444, 8080, 8443, 65535]

    let directory: TemporaryDirectory
    let vault: Vault
    let facade: SharedWebCredentials

    init() throws {
        directory = try TemporaryDirectory()
        vault = try VaultTestSupport.makeVault(in: directory)
        var strings: [String] = []
        for host in ["shop.example", "other.example"] {
            strings += Self.ports.map { port in "webcredentials:\(host)" + (port.map { ":\($0)" } ?? "") }
        }
        let entitlements = try Entitlements(strings: strings)
        try vault.apps.register(Self.app, entitlements: entitlements, at: Date())
        let now = Date()
        try vault.associations.save(
            entitlements.webcredentialsEntries.map { entry in
                AssociationRecord(
                    service: .webcredentials, app: Self.app, domain: AssociationStore.domainKey(for: entry),
                    verdict: .approved, checkedAt: now, nextCheck: now + 86_400, lastError: nil, retryCount: 0,
                    documentDigest: nil, approvedAt: now)
            })
        facade = SharedWebCredentials(app: Self.app, vault: vault, verifier: nil)
    }

    private func save(_ host: String, port: Int?, account: String) async -> SharedWebCredentialsError.Code? {
        await VaultTestSupport.errorCode {
            try await facade.add(
                domain: DomainTarget(normalizedHost: host, port: port), account: account,
                password: SecureBytes(utf8: "Pw-\(account)-1"),
                confirm: { change in
                    Issue.record("asked to confirm \(change.kind) on a never-save host")
                    return true
                })
        }
    }

    @Test("a marked host refuses saves on every port; nothing is saved and nobody is asked")
    func markedHostRefusesEveryPort() async throws {
        try vault.neverSave.mark("SHOP.example")
        for port in Self.ports {
            let code = await save("shop.example", port: port, account: "port-\(port ?? 0)")
            #expect(code == .neverSave, "port \(port.map(String.init) ?? "none") accepted a save")
        }
        #expect(try vault.credentials.count() == 0)
    }

    @Test("the marker is per host: another host saves on every port, and clearing it lets saves through")
    func markerIsPerHostAndClears() async throws {
        try vault.neverSave.mark("shop.example")
        for port in Self.ports where port != 443 {
            let outcome = try await facade.add(
                domain: DomainTarget(normalizedHost: "other.example", port: port), account: "a",
                password: SecureBytes(utf8: "Pw-other-1"), confirm: { _ in true })
            #expect(outcome == .added)
        }
        #expect(try vault.neverSave.clear("shop.example"))
        for port in Self.ports where port != 443 {
            let outcome = try await facade.add(
                domain: DomainTarget(normalizedHost: "shop.example", port: port), account: "a",
                password: SecureBytes(utf8: "Pw-shop-1"), confirm: { _ in true })
            #expect(outcome == .added)
        }
        #expect(try vault.credentials.count() == 2 * (Self.ports.count - 1))
    }
}
