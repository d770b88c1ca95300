import Foundation
import PropertyBased
import TestSupport
import Testing

@testable import SharedWebCredentials

/// The page-to-site rule as properties over generated pages (``GeneratedPage``): schemes in any
/// case, user information, look-alike and malformed hosts, and every kind of port. A failure prints
/// the page and the seed; `.fixedSeed("…")` on the test repeats it.
@Suite("Browsers: the page-to-site rule over generated pages")
struct PageSitePropertyTests {
    @Test("a page's site is its own scheme, host and port, or none: never https for http, another host or port")
    func siteOfPage() async {
        await propertyCheck(count: 400, input: GeneratedPage.generator) { page in
            let site = BrowserAccess.site(of: page.url, allowsHTTP: page.allowsHTTP)
            guard let site else {
                // Liveness: a well-formed page of a site gets it (else a rule that refuses
                // everything would pass).
                #expect(page.expectedSite == nil, "\(page) got no site")
                return
            }
            let expected = page.expectedSite
            #expect(expected != nil, "\(page) got \(site)")
            #expect(site.scheme.rawValue == expected?.scheme, "\(page) got \(site)")
            #expect(site.host == expected?.host, "\(page) got \(site)")
            #expect(site.port == expected?.port, "\(page) got \(site)")
        }
    }

    /// A vault with one credential per site a generated page may name: each host, both schemes,
    /// the default port, the other scheme's default and 8443. Its account names its site, and its
    /// password is `Pw ` and that name.
    static func vaultWithEverySite() throws -> (TemporaryDirectory, Vault, Set<CredentialSite>) {
        let directory = try TemporaryDirectory()
        let vault = try VaultTestSupport.makeVault(in: directory)
        var sites = Set<CredentialSite>()
        for host in Set(GeneratedPage.siteHosts.values) {
            for scheme in CredentialScheme.allCases {
                for port in [nil, 80, 443, 8443] {
                    sites.insert(CredentialSite(scheme: scheme, host: host, port: port))
                }
            }
        }
        try vault.credentials.batch { batch in
            for site in sites {
                try batch.upsert(
                    server: site.host, port: site.port, scheme: site.scheme, account: site.description,
                    password: SecureBytes(utf8: "Pw " + site.description))
            }
        }
        return (directory, vault, sites)
    }

    @Test("what a page gets from a vault holding every site's credential is that site's credential alone")
    func credentialsOfPage() async throws {
        let (directory, vault, saved) = try Self.vaultWithEverySite()
        defer { withExtendedLifetime(directory) {} }
        let key = [UInt8](repeating: 7, count: 32)
        let httpsOnly = try vault.browsers.add(id: "https only", identificationKey: key)
        let withHTTP = try vault.browsers.add(
            id: "with http", identificationKey: [UInt8](repeating: 8, count: 32), allowsHTTP: true)
        let access = BrowserAccess(vault: vault)
        await propertyCheck(count: 150, input: GeneratedPage.generator) { page in
            let association = page.allowsHTTP ? withHTTP : httpsOnly
            let logins = try await access.logins(for: association, url: page.url)
            let site = BrowserAccess.site(of: page.url, allowsHTTP: page.allowsHTTP)
            #expect(logins.map(\.site) == site.flatMap { saved.contains($0) ? [$0] : nil } ?? [], "\(page)")
            #expect(
                logins.map { $0.password.exposedString() } == logins.map { "Pw " + $0.account }
                    && logins.map(\.account) == logins.map(\.site.description), "\(page)")
        }
    }

    @Test("a save from a page changes its own site's credential alone (in a vault holding every site's), or nothing")
    func savesOfPage() async throws {
        let (directory, vault, _) = try Self.vaultWithEverySite()
        defer { withExtendedLifetime(directory) {} }
        let access = BrowserAccess(vault: vault)
        let withHTTP = try vault.browsers.add(
            id: "with http", identificationKey: [UInt8](repeating: 8, count: 32), allowsHTTP: true)
        let httpsOnly = try vault.browsers.add(id: "https only", identificationKey: [UInt8](repeating: 7, count: 32))
        await propertyCheck(count: 150, input: GeneratedPage.generator) { page in
            let before = try vault.credentials.all().map { "\($0.site) \($0.password.exposedString())" }
            let site = BrowserAccess.site(of: page.url, allowsHTTP: page.allowsHTTP)
            do {
                try await access.save(
                    for: page.allowsHTTP ? withHTTP : httpsOnly, url: page.url,
                    account: site?.description ?? "none", password: SecureBytes(utf8: "Pw \(page)"))
                #expect(site != nil, "\(page) saved without a site")
            } catch let error as SharedWebCredentialsError {
                #expect(site == nil && error.code == .invalidInput, "\(page): \(error)")
            }
            let after = try vault.credentials.all().map { "\($0.site) \($0.password.exposedString())" }
            let expected = site.map { site in
                before.filter { !$0.hasPrefix("\(site) ") } + ["\(site) Pw \(page)"]
            }
            #expect(Set(after) == Set(expected ?? before), "\(page)")
        }
    }

    @Test("one server, port and account under the two schemes: two blind indexes, whatever the port")
    func schemesHaveTheirOwnIndexes() async throws {
        let directory = try TemporaryDirectory()
        let vault = try VaultTestSupport.makeVault(in: directory)
        let input = Generator<(String, Int?), Shrink.None<(String, Int?)>>(run: { random in
            (
                Set(GeneratedPage.siteHosts.values).randomElement(using: &random)!,
                [nil, 80, 443, 8080, 8443, 1, Int.random(in: 1...65535, using: &random)].randomElement(using: &random)!
            )
        })
        await propertyCheck(count: 200, input: input) { host, port in
            let https = try CredentialKey(server: host, port: port, scheme: .https)
            let http = try CredentialKey(server: host, port: port, scheme: .http)
            let (servers, accounts) = try await vault.read { _, keys in
                (
                    keys.serverIndex(https) != keys.serverIndex(http),
                    keys.accountIndex(https, account: "a") != keys.accountIndex(http, account: "a")
                )
            }
            #expect(servers && accounts, "\(host) \(port ?? 0)")
        }
    }
}
