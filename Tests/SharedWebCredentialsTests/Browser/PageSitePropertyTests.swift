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

    @Test("what a page gets from a vault holding every site's credential is that site's credential alone")
    func credentialsOfPage() async throws {
        let directory = try TemporaryDirectory()
        let vault = try VaultTestSupport.makeVault(in: directory)
        // One credential per site: each host a page may name, both schemes, the default port, the
        // other scheme's default and 8443. Its account names its site.
        let hosts = Set(GeneratedPage.siteHosts.values).sorted()
        var sites: [CredentialSite] = []
        for host in hosts {
            for scheme in CredentialScheme.allCases {
                for port in [nil, 80, 443, 8443] {
                    sites.append(CredentialSite(scheme: scheme, host: host, port: port))
                }
            }
        }
        try vault.credentials.batch { batch in
            for site in Set(sites) {
                try batch.upsert(
                    server: site.host, port: site.port, scheme: site.scheme, account: site.description,
                    password: SecureBytes(utf8: "Pw " + site.description))
            }
        }
        let saved = Set(sites)
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
