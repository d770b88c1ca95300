import Foundation
import TestSupport
import Testing

/// `swcred aasa match`, `site check` and multi-service `verify`, end to end: the built binary
/// against a real HTTPS server on loopback.
@Suite("swcred aasa match, site check and verify of every service")
struct UniversalLinkCommandTests {
    static let app = "ABCDE12345.com.example.app"
    static let site = """
        {"webcredentials": {"apps": ["\(app)"]},
         "applinks": {
           "substitutionVariables": {"food": ["taco", "burrito"]},
           "details": [{
             "appIDs": ["\(app)"],
             "components": [
               {"#": "no_universal_links", "exclude": true, "comment": "opt out"},
               {"/": "/coupon/1*", "exclude": true},
               {"/": "/coupon/*"},
               {"/": "/$(food)/*", "?": {"cheese": "?*"}, "comment": "tacos with cheese"},
               {"/": "/$(nope)"}
             ]}]},
         "appclips": {"apps": ["\(app).Clip"]}}
        """

    let directory: TemporaryDirectory
    let ca: TestCertificateAuthority
    let caFile: String

    init() throws {
        directory = try TemporaryDirectory()
        ca = try TestCertificateAuthority()
        caFile = try ca.writePEM(into: directory)
    }

    func withServer<T>(
        routes: [String: TestRoute], _ body: ([String]) async throws -> T
    ) async throws -> T {
        let server = try await TestHTTPSServer.start(identity: try ca.issue(for: ["example.com"]), routes: routes)
        let network = ["--ca-file", caFile, "--connect-to", server.connectTo("example.com")]
        do {
            let result = try await body(network)
            try await server.stop()
            return result
        } catch {
            try? await server.stop()
            throw error
        }
    }

    static func json(_ result: SwcredProcess.Result) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any], "\(result.stdout)")
    }

    @Test("aasa match fetches the URL's host and names the deciding pattern; exit 0 opens, 5 does not")
    func matchOverHTTPS() async throws {
        try await withServer(routes: [LoopbackPaths.wellKnown: .json(Self.site)]) { network in
            let opens = try SwcredProcess.run(
                ["aasa", "match", "https://example.com/taco/1?cheese=cotija", "--app", Self.app, "--json"] + network)
            #expect(opens.status == 0, "\(opens.stderr)")
            let json = try Self.json(opens)
            #expect(json["opens"] as? Bool == true)
            #expect(json["reason"] as? String == "matched")
            #expect(json["source"] as? String == "https://example.com/.well-known/apple-app-site-association")
            let decided = try #require(json["decided_by"] as? [String: Any])
            #expect(decided["details_index"] as? Int == 0)
            #expect(decided["pattern_index"] as? Int == 3)
            #expect(decided["form"] as? String == "components")
            #expect(decided["pattern"] as? String == #"{"/": "/$(food)/*", "?": {"cheese": "?*"}}"#)
            #expect(decided["comment"] as? String == "tacos with cheese")
            #expect(decided["exclude"] as? Bool == false)
            #expect(json["claimed_earlier_by"] is NSNull)
            let warnings = try #require(json["warnings"] as? [[String: Any]])
            #expect(warnings.map { $0["code"] as? String } == ["applinks-undefined-variable"])

            let excluded = try SwcredProcess.run(
                ["aasa", "match", "https://example.com/coupon/1OFF", "--app", Self.app] + network)
            #expect(excluded.status == 5)
            #expect(excluded.stdout.contains("does not open"))
            #expect(
                excluded.stdout.contains(#"applinks.details[0].components[1] {"/": "/coupon/1*", "exclude": true}"#))
            #expect(excluded.stderr.contains("does not open https://example.com/coupon/1OFF"))

            let noCheese = try SwcredProcess.run(
                ["aasa", "match", "https://example.com/taco/1", "--app", Self.app, "--json"] + network)
            #expect(noCheese.status == 5)
            #expect(try Self.json(noCheese)["reason"] as? String == "no-match")
            #expect(try Self.json(noCheese)["decided_by"] is NSNull)

            let other = try SwcredProcess.run(
                ["aasa", "match", "https://example.com/coupon/2", "--app", "ZZZZZ99999.com.example.other", "--json"]
                    + network)
            #expect(other.status == 5)
            #expect(try Self.json(other)["reason"] as? String == "app-not-listed")
        }
    }

    @Test("aasa match reads --file, and bad input exits 2 with the problem named")
    func matchFileAndBadInput() throws {
        let file = directory.path("aasa.json")
        try Data(Self.site.utf8).write(to: URL(fileURLWithPath: file))
        let fragment = try SwcredProcess.run(
            ["aasa", "match", "https://example.com/coupon/2#no_universal_links", "--app", Self.app, "--file", file])
        #expect(fragment.status == 5)
        #expect(fragment.stdout.contains("(opt out)"))
        #expect(
            try SwcredProcess.run(["aasa", "match", "https://example.com/coupon/2", "--app", Self.app, "--file", file])
                .status == 0)
        let broken = directory.path("broken.json")
        try Data("{\"applinks\": {},}".utf8).write(to: URL(fileURLWithPath: broken))
        let cases: [([String], String)] = [
            (["aasa", "match", "ftp://example.com/", "--app", Self.app, "--file", file], "not ftp"),
            (["aasa", "match", "https://example.com/\u{1B}[2J", "--app", Self.app, "--file", file], "U+001B"),
            (
                ["aasa", "match", "https://example.com/", "--app", "nope", "--file", file],
                "invalid application identifier"
            ),
            (
                ["aasa", "match", "https://example.com/", "--app", Self.app, "--file", directory.path("missing")],
                "cannot read"
            ),
            (["aasa", "match", "https://example.com/", "--app", Self.app, "--file", broken], "trailing comma"),
        ]
        for (arguments, message) in cases {
            let result = try SwcredProcess.run(arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stderr.contains(message), "\(result.stderr)")
            #expect(!result.stderr.contains("\u{1B}"))
        }
    }

    @Test("aasa match exits 10 when the host cannot be reached")
    func matchUnreachable() async throws {
        let server = try await TestHTTPSServer.start(
            identity: try TestCertificateAuthority.selfSigned(for: ["example.com"]), routes: [:])
        let result = try SwcredProcess.run(
            [
                "aasa", "match", "https://example.com/", "--app", Self.app, "--connect-to",
                server.connectTo("example.com"),
            ])
        #expect(result.status == 10)
        try await server.stop()
    }

    @Test("aasa check reports pattern problems as warnings")
    func checkPatterns() throws {
        let file = directory.path("aasa.json")
        try Data(Self.site.utf8).write(to: URL(fileURLWithPath: file))
        let result = try SwcredProcess.run(["aasa", "check", file, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let warnings = try #require(try Self.json(result)["warnings"] as? [[String: Any]])
        #expect(warnings.contains { $0["code"] as? String == "applinks-undefined-variable" })
    }

    @Test("site check reports every service and a valid Smart App Banner; exit 0")
    func siteCheck() async throws {
        let page = """
            <!doctype html><html><head><title>Tacos</title>
            <meta name="apple-itunes-app" content="app-id=1234567890, app-argument=https://example.com/taco/1?cheese=yes&amp;x=1, app-clip-bundle-id=com.example.app.Clip, app-clip-display=card">
            </head><body></body></html>
            """
        let routes: [String: TestRoute] = [
            LoopbackPaths.wellKnown: .json(Self.site),
            "/": .respond(status: 200, headers: [("Content-Type", "text/html")], body: Array(page.utf8)),
        ]
        try await withServer(routes: routes) { network in
            let result = try SwcredProcess.run(["site", "check", "example.com", "--json"] + network)
            #expect(result.status == 0, "\(result.stderr)")
            let json = try Self.json(result)
            #expect(json["host"] as? String == "example.com")
            let aasa = try #require(json["aasa"] as? [String: Any])
            #expect(aasa["valid"] as? Bool == true)
            let services = try #require(aasa["services"] as? [String: [String]])
            #expect(services["webcredentials"] == [Self.app])
            #expect(services["applinks"] == [Self.app])
            #expect(services["appclips"] == ["\(Self.app).Clip"])
            #expect(services["activitycontinuation"] == [])
            let banner = try #require(json["smart_app_banner"] as? [String: Any])
            #expect(banner["present"] as? Bool == true)
            #expect(banner["app_id"] as? String == "1234567890")
            #expect(banner["app_argument"] as? String == "https://example.com/taco/1?cheese=yes&x=1")
            #expect(banner["app_clip_bundle_id"] as? String == "com.example.app.Clip")
            #expect(banner["app_clip_display"] as? String == "card")
            #expect((banner["errors"] as? [Any])?.isEmpty == true)
            let text = try SwcredProcess.run(["site", "check", "example.com"] + network)
            #expect(text.stdout.contains("Smart App Banner present"))
            #expect(text.stdout.contains("appclips: \(Self.app).Clip"))
        }
    }

    @Test("site check: a bad banner exits 2, a page without one is fine, a redirect is named")
    func siteCheckProblems() async throws {
        let bad =
            #"<head><meta name="apple-itunes-app" content="app-id=com.example.app, app-clip-bundle-id=com.example.other.Clip"></head>"#
        let routes: [String: TestRoute] = [
            LoopbackPaths.wellKnown: .json(Self.site),
            "/": .respond(status: 200, headers: [], body: Array(bad.utf8)),
        ]
        try await withServer(routes: routes) { network in
            let result = try SwcredProcess.run(["site", "check", "example.com", "--json"] + network)
            #expect(result.status == 2)
            let banner = try #require(try Self.json(result)["smart_app_banner"] as? [String: Any])
            let codes = (banner["errors"] as? [[String: Any]])?.compactMap { $0["code"] as? String }
            #expect(codes == ["banner-app-id-not-numeric", "banner-app-clip-not-listed"])
            #expect(result.stderr.contains("com.example.app"))
        }
        try await withServer(routes: [LoopbackPaths.wellKnown: .json(Self.site), "/": .json("<html></html>")]) {
            network in
            let result = try SwcredProcess.run(["site", "check", "example.com", "--json"] + network)
            #expect(result.status == 0, "\(result.stderr)")
            #expect((try Self.json(result)["smart_app_banner"] as? [String: Any])?["present"] as? Bool == false)
        }
        try await withServer(
            routes: [
                LoopbackPaths.wellKnown: .json(Self.site),
                "/": .redirect(status: 301, location: "https://www.example.com/"),
            ]
        ) { network in
            let result = try SwcredProcess.run(["site", "check", "example.com"] + network)
            #expect(result.status == 2)
            #expect(result.stdout.contains("redirecting to https://www.example.com/"))
        }
    }

    @Test(
        "site check: a home page answering 500 or above could not be asked (exit 10); 499 is the site's answer (exit 2)"
    )
    func siteCheckPageStatus() async throws {
        for (status, exit) in [(500, Int32(10)), (503, 10), (499, 2), (404, 2)] {
            let routes: [String: TestRoute] = [
                LoopbackPaths.wellKnown: .json(Self.site), "/": .respond(status: status, headers: [], body: []),
            ]
            try await withServer(routes: routes) { network in
                let result = try SwcredProcess.run(["site", "check", "example.com", "--json"] + network)
                #expect(result.status == exit, "HTTP \(status): \(result.stderr)")
                let banner = try #require(try Self.json(result)["smart_app_banner"] as? [String: Any])
                let codes = (banner["errors"] as? [[String: Any]])?.compactMap { $0["code"] as? String }
                #expect(codes == ["page-http-\(status)"], "HTTP \(status)")
            }
        }
    }

    @Test("site check asks for the home page as HTML and the AASA file as JSON, each naming swcred and what it checks")
    func siteCheckRequestHeaders() async throws {
        let server = try await TestHTTPSServer.start(
            identity: try ca.issue(for: ["example.com"]),
            routes: [
                LoopbackPaths.wellKnown: .json(Self.site),
                "/": .respond(status: 200, headers: [("Content-Type", "text/html")], body: Array("<html></html>".utf8)),
            ])
        let result = try SwcredProcess.run(
            ["site", "check", "example.com", "--ca-file", caFile, "--connect-to", server.connectTo("example.com")])
        try await server.stop()
        #expect(result.status == 0, "\(result.stderr)")
        let page = try #require(server.requests.first { $0.path == "/" })
        #expect(page.accept == "text/html")
        #expect(page.userAgent == "swcred (site check)")
        let file = try #require(server.requests.first { $0.path == LoopbackPaths.wellKnown })
        #expect(file.accept == "application/json")
        #expect(file.userAgent == "swcred (apple-app-site-association check)")
    }

    @Test("site check reads at most 1 MiB of the page and says so")
    func siteCheckCap() async throws {
        try await withServer(routes: [LoopbackPaths.wellKnown: .json(Self.site), "/": .streamForever]) { network in
            let result = try SwcredProcess.run(["site", "check", "example.com", "--json"] + network)
            #expect(result.status == 0, "\(result.stderr)")
            let banner = try #require(try Self.json(result)["smart_app_banner"] as? [String: Any])
            #expect((banner["warnings"] as? [[String: Any]])?.first?["code"] as? String == "page-truncated")
        }
    }

    @Test("verify and show cover applinks, appclips and activitycontinuation; only webcredentials sets the exit status")
    func verifyEveryService() async throws {
        let vault = directory.path("vault.sqlite")
        let environment = ["SWCRED_PASSPHRASE": "test passphrase: violet kernel umbrella frost 93"]
        func run(_ arguments: [String]) throws -> SwcredProcess.Result {
            try SwcredProcess.run(arguments + ["--vault", vault], environment: environment)
        }
        #expect(try run(["init", "--kdf-opslimit", "1", "--kdf-memlimit", "8192"]).status == 0)
        #expect(
            try run([
                "app", "add", Self.app, "--domain", "webcredentials:example.com", "--domain", "applinks:example.com",
                "--domain", "appclips:example.com", "--domain", "activitycontinuation:example.com",
            ]).status == 0)
        try await withServer(routes: [LoopbackPaths.wellKnown: .json(Self.site)]) { network in
            let verified = try run(["verify", Self.app, "--json"] + network)
            #expect(verified.status == 0, "\(verified.stderr)")
            let rows = try #require(try JSONSerialization.jsonObject(with: verified.stdoutData) as? [[String: Any]])
            var verdicts: [String: String] = [:]
            for row in rows { verdicts[row["service"] as? String ?? ""] = row["verdict"] as? String }
            #expect(
                verdicts == [
                    "webcredentials": "approved", "applinks": "approved", "appclips": "denied",
                    "activitycontinuation": "denied",
                ])
            let text = try run(["verify", Self.app] + network)
            #expect(text.stderr.contains("swcred: appclips:example.com: error: [appclips-app-not-listed]"))
        }
        let show = try run(["show", "--json"])
        let stored = try #require(try JSONSerialization.jsonObject(with: show.stdoutData) as? [[String: Any]])
        #expect(Set(stored.compactMap { $0["service"] as? String }).count == 4)
        let denied = stored.first { $0["service"] as? String == "activitycontinuation" }
        #expect((denied?["error"] as? String)?.contains("activitycontinuation.apps") == true)
        // Only webcredentials gates: an approved applinks verdict alone does not.
        #expect(try run(["app", "add", Self.app, "--domain", "applinks:example.com"]).status == 0)
        #expect(try run(["request", "--app", Self.app, "--domain", "example.com", "--offline"]).status == 3)
    }
}

/// The AASA paths, as the test server routes them.
enum LoopbackPaths {
    static let wellKnown = "/.well-known/apple-app-site-association"
}
