import Foundation
import SharedWebCredentials
import TestSupport
import Testing

@Suite("verification against a real HTTPS server on loopback")
struct VerificationOverTLSTests {
    let site: LoopbackSite
    init() throws { site = try LoopbackSite() }

    @Test("a file listing the app approves it")
    func approved() async throws {
        let (result, requests) = try await site.verify(
            routes: [LoopbackSite.wellKnown: .aasa(approving: ["ABCDE12345.com.example.app"])])
        #expect(result.verdict == .approved)
        #expect(result.reasons.isEmpty)
        #expect(result.documentDigest?.count == 32)
        #expect(
            requests == [
                TestRequest(
                    method: "GET", path: LoopbackSite.wellKnown, host: "example.com", accept: "application/json",
                    userAgent: "swcred (apple-app-site-association check)")
            ])
    }

    @Test("the prefix is compared case-insensitively, the bundle ID exactly")
    func prefixCaseInsensitive() async throws {
        let (lower, _) = try await site.verify(
            routes: [LoopbackSite.wellKnown: .aasa(approving: ["abcde12345.com.example.app"])])
        #expect(lower.verdict == .approved)
        let (bundle, _) = try await site.verify(
            routes: [LoopbackSite.wellKnown: .aasa(approving: ["ABCDE12345.com.example.App"])])
        #expect(bundle.verdict == .denied)
    }

    @Test("a file without the app denies it and says how to fix it")
    func deniedWhenMissing() async throws {
        let (result, _) = try await site.verify(
            routes: [LoopbackSite.wellKnown: .aasa(approving: ["ZZZZZ99999.com.example.app", "ABCDE12345.com.other"])])
        #expect(result.verdict == .denied)
        #expect(result.codes.contains("app-not-listed"))
        #expect(result.codes.contains("prefix-mismatch"))
        #expect(result.summary?.contains("webcredentials.apps") == true)
    }

    @Test("an app listed only under applinks is denied with a hint")
    func onlyUnderApplinks() async throws {
        let body = """
            {"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [{"/": "/*"}]}]},
             "webcredentials": {"apps": []}}
            """
        let (result, _) = try await site.verify(routes: [LoopbackSite.wellKnown: .json(body)])
        #expect(result.verdict == .denied)
        #expect(result.codes.contains("app-only-under-applinks"))
    }

    @Test("404 on both paths denies, after trying the legacy path")
    func notFoundOnBothPaths() async throws {
        let (result, requests) = try await site.verify(routes: [:])
        #expect(result.verdict == .denied)
        #expect(result.codes == ["not-found"])
        #expect(requests.map(\.path) == [LoopbackSite.wellKnown, LoopbackSite.legacy])
    }

    @Test("403 denies without trying the legacy path")
    func forbidden() async throws {
        let (result, requests) = try await site.verify(routes: [LoopbackSite.wellKnown: .status(403)])
        #expect(result.verdict == .denied)
        #expect(result.codes == ["http-403"])
        #expect(requests.count == 1)
    }

    @Test("the legacy path counts after a 404, with a deprecation warning")
    func legacyPath() async throws {
        let (result, requests) = try await site.verify(
            routes: [LoopbackSite.legacy: .aasa(approving: ["ABCDE12345.com.example.app"])])
        #expect(result.verdict == .approved)
        #expect(result.codes == ["legacy-path"])
        #expect(requests.map(\.path) == [LoopbackSite.wellKnown, LoopbackSite.legacy])
    }

    @Test("redirects are refused and name their target", arguments: [301, 302, 307, 308])
    func redirectsRefused(status: Int) async throws {
        let target = "https://www.example.com/.well-known/apple-app-site-association"
        let (result, requests) = try await site.verify(
            routes: [
                LoopbackSite.wellKnown: .redirect(status: status, location: target),
                LoopbackSite.legacy: .aasa(approving: ["ABCDE12345.com.example.app"]),
            ])
        #expect(result.verdict == .denied)
        #expect(result.codes == ["redirect"])
        #expect(result.summary?.contains(target) == true)
        #expect(result.summary?.contains("apex to www") == true)
        #expect(requests.count == 1)
    }

    @Test("500 to 599 leave the association unverified, as a server error to try again later")
    func serverError() async throws {
        for status in [500, 599] {
            let (result, _) = try await site.verify(routes: [LoopbackSite.wellKnown: .status(status)])
            #expect(result.verdict == .unverified)
            #expect(result.codes == ["http-\(status)"])
            #expect(
                result.summary?.contains("a server error, try again later") == true,
                "\(String(describing: result.summary))")
        }
    }

    @Test("a refused connection leaves the association unverified")
    func connectionRefused() async throws {
        // Port 1 on loopback: nothing listens there. (A just-stopped server's port could be taken
        // by another test's server in the meantime.)
        let fetcher = try AASAFetcher(
            options: NetworkOptions(caFile: site.caFile, connectTo: [try ConnectToRule("example.com:443:127.0.0.1:1")]))
        let result = await Verifier(fetcher: fetcher).verify(
            [(LoopbackSite.app, try AssociatedDomainEntry("webcredentials:example.com"))])[0]
        try await fetcher.shutdown()
        #expect(result.verdict == .unverified)
        #expect(result.codes == ["connect"], "\(result.reasons)")
        #expect(result.summary?.contains("could not connect to example.com") == true)
    }

    @Test("a certificate for another host is a TLS failure that says so")
    func wrongHost() async throws {
        let (result, requests) = try await site.verify(
            identity: try site.ca.issue(for: ["other.example.net"]),
            routes: [LoopbackSite.wellKnown: .aasa(approving: ["ABCDE12345.com.example.app"])])
        #expect(result.verdict == .unverified)
        #expect(result.summary?.contains("wrong host") == true)
        #expect(requests.isEmpty)
    }

    @Test("a self-signed certificate is a TLS failure that says so")
    func selfSigned() async throws {
        let (result, requests) = try await site.verify(
            identity: try TestCertificateAuthority.selfSigned(for: ["example.com"]),
            routes: [LoopbackSite.wellKnown: .aasa(approving: ["ABCDE12345.com.example.app"])])
        #expect(result.verdict == .unverified)
        #expect(result.summary?.contains("self-signed") == true)
        #expect(requests.isEmpty)
    }

    @Test("an expired certificate is a TLS failure that says so")
    func expired() async throws {
        let identity = try site.ca.issue(
            for: ["example.com"], validFrom: Date() - 10 * 86_400, validUntil: Date() - 86_400)
        let (result, requests) = try await site.verify(
            identity: identity, routes: [LoopbackSite.wellKnown: .aasa(approving: ["ABCDE12345.com.example.app"])])
        #expect(result.verdict == .unverified)
        #expect(result.summary?.contains("expired") == true)
        #expect(requests.isEmpty)
    }

    @Test("a CA that is not trusted (no --ca-file) is a TLS failure that says so")
    func untrustedRoot() async throws {
        let (result, requests) = try await site.verify(
            trustCA: false, routes: [LoopbackSite.wellKnown: .aasa(approving: ["ABCDE12345.com.example.app"])])
        #expect(result.verdict == .unverified)
        #expect(result.summary?.contains("not a trusted root") == true)
        #expect(result.summary?.contains("swcred test CA") == true)
        #expect(requests.isEmpty)
    }

    @Test("a body over 128 KiB is refused")
    func tooLarge() async throws {
        let padding = String(repeating: " ", count: 131_072)
        let (result, _) = try await site.verify(
            routes: [
                LoopbackSite.wellKnown: .json(
                    "{\"webcredentials\": {\"apps\": [\"ABCDE12345.com.example.app\"]}}" + padding)
            ])
        #expect(result.verdict == .denied)
        #expect(result.codes == ["too-large"])
    }

    @Test("a file of exactly 128 KiB is accepted")
    func exactlyAtLimit() async throws {
        let json = "{\"webcredentials\": {\"apps\": [\"ABCDE12345.com.example.app\"]}}"
        let body = json + String(repeating: " ", count: 131_072 - json.utf8.count)
        let (result, _) = try await site.verify(routes: [LoopbackSite.wellKnown: .json(body)])
        #expect(result.verdict == .approved)
    }

    @Test("a server streaming forever is cut off at 128 KiB")
    func streamingForever() async throws {
        // The fetch may take up to 60 s, so a "too-large" verdict (rather than "timeout") proves
        // the cap cut it off; the time bound is loose because the suite runs in parallel on a
        // loaded 2-core machine.
        let (result, elapsed) = try await site.timedVerify(totalTimeout: .seconds(60)) { _ in .streamForever }
        #expect(result.verdict == .denied)
        #expect(result.codes == ["too-large"])
        #expect(elapsed < .seconds(30))
    }

    @Test(
        "unusable files deny with a diagnostic",
        arguments: [
            ("{\"webcredentials\": {\"apps\": [\"ABCDE12345.com.example.app\",]}}", "trailing-comma"),
            ("\u{FEFF}{\"webcredentials\": {\"apps\": [\"ABCDE12345.com.example.app\"]}}", "bom"),
            ("[{\"webcredentials\": {\"apps\": [\"ABCDE12345.com.example.app\"]}}]", "top-level-not-object"),
            ("{\"webcredentials\": {\"apps\": \"ABCDE12345.com.example.app\"}}", "apps-not-array"),
            ("{\"webcredentials\": {\"apps\": [\"ABCDE12345.com.example.app\"]} // ok\n}", "comment"),
            ("{webcredentials: {}}", "invalid-json"),
        ])
    func unusableFiles(body: String, code: String) async throws {
        let (result, _) = try await site.verify(routes: [LoopbackSite.wellKnown: .json(body)])
        #expect(result.verdict == .denied)
        #expect(result.codes.first == code)
    }

    @Test("a server that never answers times out within the configured limit")
    func neverAnswers() async throws {
        // 2 s allowed; a server that never answers would otherwise hold the fetch forever. The
        // upper bound is loose because the suite runs in parallel on a loaded 2-core machine.
        let (result, elapsed) = try await site.timedVerify(totalTimeout: .seconds(2)) { _ in .neverAnswer }
        #expect(result.verdict == .unverified)
        #expect(result.codes == ["timeout"])
        #expect(elapsed >= .seconds(2) && elapsed < .seconds(20))
    }

    @Test("a wildcard entry is verified against its parent host")
    func wildcardUsesParent() async throws {
        let (result, requests) = try await site.verify(
            entry: "*.example.com", domain: "login.example.com",
            routes: [LoopbackSite.wellKnown: .aasa(approving: ["ABCDE12345.com.example.app"])])
        #expect(result.verdict == .approved)
        #expect(result.aasaTarget.host == "example.com")
        #expect(requests.map(\.host) == ["example.com"])
    }

    @Test("an exact entry beats a wildcard: its own host's file decides")
    func exactBeatsWildcard() async throws {
        try await site.with(
            hosts: ["example.com", "login.example.com"],
            handler: { request in
                request.host == "login.example.com"
                    ? .aasa(approving: ["ABCDE12345.com.example.app"]) : .aasa(approving: [])
            }
        ) { verifier, server in
            let entitlements = try Entitlements(strings: [
                "webcredentials:*.example.com", "webcredentials:login.example.com",
            ])
            let login = try await verifier.verify(
                app: LoopbackSite.app, entitlements: entitlements, domain: try DomainTarget("login.example.com"))
            #expect(login.verdict == .approved)
            #expect(!login.entry.isWildcard)
            let other = try await verifier.verify(
                app: LoopbackSite.app, entitlements: entitlements, domain: try DomainTarget("shop.example.com"))
            #expect(other.verdict == .denied)
            #expect(other.entry.isWildcard)
            #expect(server.requests.map(\.host) == ["login.example.com", "example.com"])
        }
    }

    @Test("an IDN host is fetched at its punycode name")
    func idnHost() async throws {
        let (result, requests) = try await site.verify(
            entry: "bücher.example", domain: "BÜCHER.example", hosts: ["xn--bcher-kva.example"],
            routes: [LoopbackSite.wellKnown: .aasa(approving: ["ABCDE12345.com.example.app"])])
        #expect(result.verdict == .approved)
        #expect(requests.map(\.host) == ["xn--bcher-kva.example"])
    }

    @Test("a domain not covered by the entitlement is a missing entitlement, without any fetch")
    func notCovered() async throws {
        try await site.with(hosts: ["example.com"], handler: { _ in .aasa(approving: []) }) { verifier, server in
            let entitlements = try Entitlements(strings: ["webcredentials:example.com", "applinks:other.com"])
            await #expect(throws: SharedWebCredentialsError.self) {
                _ = try await verifier.verify(
                    app: LoopbackSite.app, entitlements: entitlements, domain: try DomainTarget("other.com"))
            }
            #expect(server.requests.isEmpty)
        }
    }
}
