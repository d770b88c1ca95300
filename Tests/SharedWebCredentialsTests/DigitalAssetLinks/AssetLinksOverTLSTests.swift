import Foundation
import SharedWebCredentials
import TestSupport
import Testing

/// Digital Asset Links verification of an Android app against a real HTTPS server on loopback,
/// each case a statement list served as a site would serve it.
@Suite("Digital Asset Links over real TLS", .serialized)
struct AssetLinksOverTLSTests {
    typealias F = AssetLinksFixtures
    static let main = "example.com \(AssetLinksFixtures.wellKnown)"
    let site: LoopbackSite
    init() throws { site = try LoopbackSite() }

    @Test("a statement granting get_login_creds to the package and its fingerprint approves it")
    func approved() async throws {
        let (result, requests) = try await site.verifyAndroid(routes: [Self.main: F.list(F.androidStatement())])
        #expect(result.verdict == .approved, "\(result.reasons)")
        #expect(result.reasons.isEmpty)
        #expect(result.documentDigest?.count == 32)
        #expect(
            requests == [
                TestRequest(
                    method: "GET", path: F.wellKnown, host: "example.com", accept: "application/json",
                    userAgent: "swcred (Digital Asset Links check)")
            ])
    }

    @Test("a statement for another package denies, naming the package listed")
    func anotherPackage() async throws {
        let (result, _) = try await site.verifyAndroid(
            routes: [Self.main: F.list(F.androidStatement(package: "com.example.shop.beta"))])
        #expect(result.verdict == .denied)
        #expect(result.codes == ["app-not-listed"])
        #expect(result.summary?.contains("com.example.shop.beta") == true)
    }

    @Test("the right package with the wrong fingerprint denies and shows both fingerprints")
    func wrongFingerprint() async throws {
        let (result, _) = try await site.verifyAndroid(
            routes: [Self.main: F.list(F.androidStatement(fingerprints: [F.otherFingerprint]))])
        #expect(result.verdict == .denied)
        #expect(result.codes == ["fingerprint-mismatch"])
        #expect(result.summary?.contains(F.otherFingerprint) == true)
        #expect(result.summary?.contains(F.fingerprint) == true)
    }

    @Test("a lower-case fingerprint names the same certificate: approved, with a warning")
    func lowerCaseFingerprint() async throws {
        let (result, _) = try await site.verifyAndroid(
            routes: [Self.main: F.list(F.androidStatement(fingerprints: [F.fingerprint.lowercased()]))])
        #expect(result.verdict == .approved)
        #expect(result.codes == ["fingerprint-lowercase"])
    }

    @Test("handle_all_urls alone approves nothing, with a hint")
    func handleAllURLsOnly() async throws {
        let (result, _) = try await site.verifyAndroid(
            routes: [Self.main: F.list(F.androidStatement(relations: [F.handleAllURLs]))])
        #expect(result.verdict == .denied)
        #expect(result.codes == ["handle-all-urls-only"])
        #expect(result.summary?.contains(F.getLoginCreds) == true)
    }

    @Test("a get_login_creds statement for a web target only approves no app")
    func webTargetOnly() async throws {
        let (result, _) = try await site.verifyAndroid(
            routes: [Self.main: F.list(F.webStatement(site: "https://shop.example.com"))])
        #expect(result.verdict == .denied)
        #expect(result.codes == ["web-target-only"])
    }

    @Test("redirects are refused, not followed", arguments: [301, 302])
    func redirects(status: Int) async throws {
        let (result, requests) = try await site.verifyAndroid(
            routes: [
                Self.main: .redirect(status: status, location: "https://example.com/moved.json"),
                "example.com /moved.json": F.list(F.androidStatement()),
            ])
        #expect(result.verdict == .denied)
        #expect(result.codes == ["redirect"])
        #expect(result.summary?.contains("\(status)") == true)
        #expect(requests.map(\.path) == [F.wellKnown])
    }

    @Test("404 denies, and no other path is tried")
    func notFound() async throws {
        let (result, requests) = try await site.verifyAndroid(routes: [:])
        #expect(result.verdict == .denied)
        #expect(result.codes == ["not-found"])
        #expect(requests.map(\.path) == [F.wellKnown])
    }

    @Test("500 leaves the association unverified")
    func serverError() async throws {
        let (result, _) = try await site.verifyAndroid(routes: [Self.main: .status(503)])
        #expect(result.verdict == .unverified)
        #expect(result.codes == ["http-503"])
    }

    @Test("a list served as text/html is not read", arguments: ["text/html", "text/plain", "application/javascript"])
    func wrongContentType(contentType: String) async throws {
        let statements = "[" + F.androidStatement() + "]"
        let (result, _) = try await site.verifyAndroid(routes: [Self.main: .json(statements, contentType: contentType)])
        #expect(result.verdict == .denied)
        #expect(result.codes == ["content-type"])
        #expect(result.summary?.contains(contentType) == true)
    }

    @Test("a list served without a Content-Type is not read")
    func missingContentType() async throws {
        let body = Array(("[" + F.androidStatement() + "]").utf8)
        let (result, _) = try await site.verifyAndroid(routes: [
            Self.main: .respond(status: 200, headers: [], body: body)
        ])
        #expect(result.verdict == .denied)
        #expect(result.codes == ["content-type"])
    }

    @Test("application/json with a charset parameter is read")
    func contentTypeWithCharset() async throws {
        let statements = "[" + F.androidStatement() + "]"
        let (result, _) = try await site.verifyAndroid(
            routes: [Self.main: .json(statements, contentType: "application/json; charset=utf-8")])
        #expect(result.verdict == .approved)
    }

    @Test(
        "a list that is not a JSON array of statements denies with the syntax error",
        arguments: [
            ("[" + AssetLinksFixtures.androidStatement() + ",]", "trailing-comma"),
            ("{\"relation\": []}", "top-level-not-array"),
            ("[{relation: []}]", "invalid-json"),
            ("\u{FEFF}[]", "bom"),
        ])
    func badJSON(body: String, code: String) async throws {
        let (result, _) = try await site.verifyAndroid(routes: [Self.main: .json(body)])
        #expect(result.verdict == .denied)
        #expect(result.codes.first == code)
    }

    @Test("an empty list approves nothing, and says so")
    func emptyList() async throws {
        let (result, _) = try await site.verifyAndroid(routes: [Self.main: .json("[]")])
        #expect(result.verdict == .denied)
        #expect(result.codes == ["app-not-listed", "empty-list"])
    }

    @Test("an include approves through one level")
    func includeOneLevel() async throws {
        let (result, requests) = try await site.verifyAndroid(
            routes: [
                Self.main: F.list(F.include("https://example.com/shared/statements.json")),
                "example.com /shared/statements.json": F.list(F.androidStatement()),
            ])
        #expect(result.verdict == .approved, "\(result.reasons)")
        #expect(requests.map(\.path) == [F.wellKnown, "/shared/statements.json"])
    }

    @Test("an include approves through two levels, across hosts")
    func includeTwoLevels() async throws {
        let (result, requests) = try await site.verifyAndroid(
            hosts: ["example.com", "static.example.net"],
            routes: [
                Self.main: F.list(F.include("https://static.example.net/all.json")),
                "static.example.net /all.json": F.list(F.include("https://static.example.net/android.json")),
                "static.example.net /android.json": F.list(F.androidStatement()),
            ])
        #expect(result.verdict == .approved, "\(result.reasons)")
        #expect(
            requests.map { "\($0.host) \($0.path)" } == [
                "example.com \(F.wellKnown)", "static.example.net /all.json", "static.example.net /android.json",
            ])
    }

    @Test("an include loop is reported and ends; the statements read still count")
    func includeLoop() async throws {
        let (result, requests) = try await site.verifyAndroid(
            routes: [
                Self.main: F.list(F.include("https://example.com/a.json")),
                "example.com /a.json": F.list(F.include("https://example.com/b.json"), F.androidStatement()),
                "example.com /b.json": F.list(F.include("https://example.com/a.json")),
            ])
        #expect(result.verdict == .approved, "\(result.reasons)")
        #expect(result.codes == ["include-loop"])
        #expect(requests.map(\.path) == [F.wellKnown, "/a.json", "/b.json"])
    }

    @Test("a list including itself is a loop")
    func selfInclude() async throws {
        let (result, requests) = try await site.verifyAndroid(
            routes: [Self.main: F.list(F.include("https://example.com\(F.wellKnown)"))])
        #expect(result.verdict == .denied)
        #expect(result.codes == ["app-not-listed", "include-loop"])
        #expect(requests.count == 1)
    }

    @Test("an http: include is refused and not fetched")
    func httpInclude() async throws {
        let (result, requests) = try await site.verifyAndroid(
            routes: [Self.main: F.list(F.include("http://example.com/statements.json"))])
        #expect(result.verdict == .denied)
        #expect(result.codes == ["app-not-listed", "include-not-https"])
        #expect(requests.map(\.path) == [F.wellKnown])
    }

    @Test("an include that fails contributes nothing, and the rest of the list still counts")
    func includeFails() async throws {
        let (result, _) = try await site.verifyAndroid(
            routes: [
                Self.main: F.list(
                    F.include("https://example.com/missing.json"), F.include("https://example.com/page.html"),
                    F.include("https://example.com/broken.json"), F.androidStatement()),
                "example.com /page.html": .json("[]", contentType: "text/html"),
                "example.com /broken.json": .json("[{"),
            ])
        #expect(result.verdict == .approved)
        #expect(result.codes == ["include-failed", "include-failed", "include-failed"])
        #expect(result.reasons[0].message.contains("[not-found]"))
        #expect(result.reasons[1].message.contains("[content-type]"))
        #expect(result.reasons[2].message.contains("[invalid-json]"))
    }

    @Test("an include that returns 404 approves nothing by itself")
    func includeNotFound() async throws {
        let (result, _) = try await site.verifyAndroid(
            routes: [Self.main: F.list(F.include("https://example.com/missing.json"))])
        #expect(result.verdict == .denied)
        #expect(result.codes == ["app-not-listed", "include-failed"])
    }

    @Test("at most 10 files are read per verification; the rest is reported")
    func includeBudget() async throws {
        var routes: [String: TestRoute] = [Self.main: F.list(F.include("https://example.com/1.json"))]
        for index in 1...11 {
            routes["example.com /\(index).json"] = F.list(F.include("https://example.com/\(index + 1).json"))
        }
        routes["example.com /12.json"] = F.list(F.androidStatement())
        let (result, requests) = try await site.verifyAndroid(routes: routes)
        #expect(result.verdict == .denied)
        #expect(result.codes == ["app-not-listed", "include-budget"])
        #expect(requests.count == AssetLinksFetcher.maximumFiles)
    }

    @Test("a list over 128 KiB is refused")
    func overSizeCap() async throws {
        let body = "[" + F.androidStatement() + "]" + String(repeating: " ", count: 131_072)
        let (result, _) = try await site.verifyAndroid(routes: [Self.main: .json(body)])
        #expect(result.verdict == .denied)
        #expect(result.codes == ["too-large"])
    }

    @Test("a list of exactly 128 KiB is read")
    func atSizeCap() async throws {
        let json = "[" + F.androidStatement() + "]"
        let body = json + String(repeating: " ", count: 131_072 - json.utf8.count)
        let (result, _) = try await site.verifyAndroid(routes: [Self.main: .json(body)])
        #expect(result.verdict == .approved)
    }

    @Test("a server that never answers times out within the configured limit")
    func neverAnswers() async throws {
        let clock = ContinuousClock()
        let start = clock.now
        let (result, _) = try await site.verifyAndroid(totalTimeout: .seconds(2), routes: [Self.main: .neverAnswer])
        let elapsed = clock.now - start
        #expect(result.verdict == .unverified)
        #expect(result.codes == ["timeout"])
        #expect(elapsed >= .seconds(2) && elapsed < .seconds(20))
    }

    @Test("a certificate for another host is a TLS failure")
    func wrongHost() async throws {
        let (result, requests) = try await site.verifyAndroid(
            identity: try site.ca.issue(for: ["other.example.net"]), routes: [Self.main: F.list(F.androidStatement())])
        #expect(result.verdict == .unverified)
        #expect(result.codes == ["tls-wrong-host"])
        #expect(requests.isEmpty)
    }

    @Test("a self-signed certificate is a TLS failure that says so")
    func selfSigned() async throws {
        let (result, requests) = try await site.verifyAndroid(
            identity: try TestCertificateAuthority.selfSigned(for: ["example.com"]),
            routes: [Self.main: F.list(F.androidStatement())])
        #expect(result.verdict == .unverified)
        #expect(result.codes == ["tls"])
        #expect(result.summary?.contains("self-signed") == true)
        #expect(requests.isEmpty)
    }

    @Test("an expired certificate is a TLS failure that says so")
    func expired() async throws {
        let identity = try site.ca.issue(
            for: ["example.com"], validFrom: Date() - 10 * 86_400, validUntil: Date() - 86_400)
        let (result, requests) = try await site.verifyAndroid(
            identity: identity, routes: [Self.main: F.list(F.androidStatement())])
        #expect(result.verdict == .unverified)
        #expect(result.summary?.contains("expired") == true)
        #expect(requests.isEmpty)
    }

    @Test("a CA that is not trusted is a TLS failure")
    func untrustedRoot() async throws {
        let (result, requests) = try await site.verifyAndroid(
            trustCA: false, routes: [Self.main: F.list(F.androidStatement())])
        #expect(result.verdict == .unverified)
        #expect(result.summary?.contains("not a trusted root") == true)
        #expect(requests.isEmpty)
    }

    @Test("an include whose server fails TLS contributes nothing")
    func includeTLSFailure() async throws {
        // The certificate covers example.com only, so the include's host fails the name check.
        let (result, _) = try await site.verifyAndroid(
            hosts: ["example.com", "static.example.net"], identity: try site.ca.issue(for: ["example.com"]),
            routes: [
                Self.main: F.list(F.include("https://static.example.net/android.json")),
                "static.example.net /android.json": F.list(F.androidStatement()),
            ])
        #expect(result.verdict == .denied)
        #expect(result.codes == ["app-not-listed", "include-failed"])
        #expect(result.reasons[1].message.contains("[tls-wrong-host]"))
    }

    @Test("Cache-Control max-age is carried to the re-check policy, which bounds it")
    func maximumAge() async throws {
        let body = Array(("[" + F.androidStatement() + "]").utf8)
        func served(_ cacheControl: String) -> TestRoute {
            .respond(
                status: 200, headers: [("Content-Type", "application/json"), ("Cache-Control", cacheControl)],
                body: body)
        }
        let policy = RecheckPolicy()
        let now = Date()
        for (header, expected) in [
            ("public, max-age=7200", 7_200.0), ("max-age=60", 3_600), ("max-age=999999999", 5 * 86_400),
            ("no-store", 3_600),
        ] as [(String, TimeInterval)] {
            let (result, _) = try await site.verifyAndroid(routes: [Self.main: served(header)])
            #expect(result.verdict == .approved)
            let record = policy.apply(result, to: nil, at: now)
            #expect(record.nextCheck.timeIntervalSince(now) == expected, "\(header)")
        }
        let (plain, _) = try await site.verifyAndroid(routes: [Self.main: F.list(F.androidStatement())])
        #expect(plain.maximumAge == nil)
        #expect(policy.apply(plain, to: nil, at: now).nextCheck.timeIntervalSince(now) == 5 * 86_400)
    }

    @Test("an Apple app's entry is still judged by its AASA file in the same run")
    func mixedRun() async throws {
        try await site.with(
            hosts: ["example.com"],
            handler: { request in
                request.path == F.wellKnown
                    ? F.list(F.androidStatement()) : .aasa(approving: [LoopbackSite.app.description])
            }
        ) { verifier, _ in
            let results = await verifier.verify([
                (LoopbackSite.app, try AssociatedDomainEntry("webcredentials:example.com")),
                (F.app, try AssociatedDomainEntry("get_login_creds:example.com")),
            ])
            #expect(results.map(\.verdict) == [.approved, .approved])
            // Neither file approves the other kind of app.
            let crossed = await verifier.verify([
                (F.app, try AssociatedDomainEntry("webcredentials:example.com")),
                (LoopbackSite.app, try AssociatedDomainEntry("get_login_creds:example.com")),
            ])
            #expect(crossed.map(\.verdict) == [.denied, .denied])
        }
    }
}
