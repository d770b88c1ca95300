import Foundation
import TestSupport
import Testing

@Suite("swcred aasa check")
struct AASACheckCommandTests {
    static let app = "ABCDE12345.com.example.app"
    static let approving = "{\"webcredentials\": {\"apps\": [\"\(app)\"]}}"

    static func write(
        _ text: String, in directory: TemporaryDirectory, name: String = "apple-app-site-association"
    ) throws
        -> String
    {
        let path = directory.path(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func json(_ result: SwcredProcess.Result) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any])
    }

    @Test("a valid file exits 0 and lists its apps")
    func validFile() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.write(Self.approving, in: directory)
        let result = try SwcredProcess.run(["aasa", "check", path, "--app", Self.app])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("valid"))
        #expect(result.stdout.contains("\(Self.app): approved"))
        let json = try Self.json(try SwcredProcess.run(["aasa", "check", path, "--json"]))
        #expect(json["valid"] as? Bool == true)
        #expect(json["webcredentials_apps"] as? [String] == [Self.app])
        #expect((json["errors"] as? [Any])?.isEmpty == true)
    }

    @Test("an Android app listed in an AASA file is marked invalid, with a warning pointing to assetlinks.json")
    func androidAppInAASA() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.write(
            #"{"webcredentials": {"apps": ["android:com.example.app", "\#(Self.app)"]}}"#, in: directory)
        let result = try SwcredProcess.run(["aasa", "check", path])
        #expect(result.status == 0)
        #expect(result.stdout.contains("webcredentials apps: android:com.example.app (invalid), \(Self.app)"))
        #expect(result.stdout.contains("warning: [app-id-invalid]"))
        #expect(result.stdout.contains("assetlinks.json"))
    }

    @Test("an invalid file exits 2 with the diagnostic's code in JSON")
    func invalidFile() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.write("\u{FEFF}" + Self.approving, in: directory)
        let result = try SwcredProcess.run(["aasa", "check", path, "--json"])
        #expect(result.status == 2)
        let json = try Self.json(result)
        #expect(json["valid"] as? Bool == false)
        let errors = try #require(json["errors"] as? [[String: String]])
        #expect(errors.first?["code"] == "bom")
        #expect(errors.first?["message"]?.contains("byte-order mark") == true)
        #expect(result.stderr.isEmpty, "with --json the error is in the JSON only: \(result.stderr)")
    }

    @Test("an invalid file's error is printed once: on stdout, with a summary on stderr that does not repeat it")
    func errorPrintedOnce() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.write("\u{FEFF}" + Self.approving, in: directory)
        let result = try SwcredProcess.run(["aasa", "check", path])
        #expect(result.status == 2)
        let both = result.stdout + result.stderr
        #expect(both.components(separatedBy: "byte-order mark").count == 2, "once: \(both)")
        #expect(result.stderr.contains("not a usable AASA file"), "\(result.stderr)")
    }

    @Test("a Unicode look-alike app ID approves nobody, with a warning naming the character")
    func unicodeLookAlike() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.write(
            #"{"webcredentials": {"apps": ["ABCDE1234\#u{017F}.com.example.app"]}}"#, in: directory)
        let result = try SwcredProcess.run(["aasa", "check", path, "--app", "ABCDE1234S.com.example.app"])
        #expect(result.status == 4, "\(result.stdout)")
        #expect(
            result.stdout.contains("app-id-not-ascii") && result.stdout.contains("U+017F LATIN SMALL LETTER LONG S"))
        #expect(result.stdout.contains("webcredentials apps: (none)"), "\(result.stdout)")
    }

    @Test("applinks lines: invalid IDs flagged, an entry with no app and counts in good English")
    func applinksLines() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.write(
            #"{"webcredentials": {"apps": ["DEVELOPMENT_TEAM.PRODUCT_BUNDLE_IDENTIFIER"], "apps": ["ABCDE12345.com.example.app"]}, "applinks": {"apps": [], "details": [{"appIDs": ["DEVELOPMENT_TEAM.PRODUCT_BUNDLE_IDENTIFIER"], "components": [{"/": "/a"}]}, {"components": [{"/": "/b"}, {"/": "/c"}]}, {"appID": "ABCDE12345.com.example.app", "paths": ["/d"]}]}}"#,
            in: directory)
        let result = try SwcredProcess.run(["aasa", "check", path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("applinks: DEVELOPMENT_TEAM.PRODUCT_BUNDLE_IDENTIFIER (invalid): 1 component\n"))
        #expect(result.stdout.contains("applinks: (no app): 2 components\n"), "\(result.stdout)")
        #expect(result.stdout.contains("applinks: ABCDE12345.com.example.app: 1 path (legacy format)\n"))
        #expect(result.stdout.contains("[duplicate-key]"), "\(result.stdout)")
        #expect(result.stdout.contains("webcredentials apps: ABCDE12345.com.example.app\n"), "the last apps wins")
    }

    @Test("a valid file that does not list --app exits 4 and says why")
    func notApproved() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.write("{\"webcredentials\": {\"apps\": [\"TEAM000001.com.example.app\"]}}", in: directory)
        let result = try SwcredProcess.run(["aasa", "check", path, "--app", Self.app])
        #expect(result.status == 4)
        #expect(result.stdout.contains("prefix-mismatch"))
        #expect(result.stderr.contains("does not approve \(Self.app)"))
    }

    @Test(
        "bad arguments exit 2 with a message naming the problem",
        arguments: [
            (["aasa", "check", "example.com", "--app", "abcde12345.com.example.app"], "upper-case"),
            (["aasa", "check", "http://example.com"], "HTTPS only"),
            (["aasa", "check", "example.com/path"], "no such file"),
            (["aasa", "check", "example.com", "--connect-to", "example.com:443"], "HOST:PORT:ADDR:PORT2"),
            (["aasa", "check", "example.com", "--connect-to", "example.com:443:127.0.0.1:99999"], "1...65535"),
            (["aasa", "check", "example.com", "--ca-file", "/nonexistent.pem"], "cannot read trust roots"),
            (["aasa", "check", "com"], "no dot"),
            (["aasa", "check"], "Missing expected argument"),
        ])
    func badArguments(arguments: [String], message: String) throws {
        let result = try SwcredProcess.run(arguments)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    @Test("fetching while --offline is refused with exit 10")
    func offline() throws {
        let result = try SwcredProcess.run(["aasa", "check", "example.com", "--offline"])
        #expect(result.status == 10)
        #expect(result.stderr.contains("--offline"))
    }

    @Test("a host is fetched over real TLS through --connect-to and --ca-file")
    func fetchesHost() async throws {
        let ca = try TestCertificateAuthority()
        let directory = try TemporaryDirectory()
        let caFile = try ca.writePEM(into: directory)
        let server = try await TestHTTPSServer.start(
            identity: try ca.issue(for: ["example.com"]),
            routes: ["/apple-app-site-association": .json(Self.approving, contentType: "text/plain")])
        let base = ["--ca-file", caFile, "--connect-to", server.connectTo("example.com")]
        let host = try SwcredProcess.run(["aasa", "check", "example.com", "--app", Self.app, "--json"] + base)
        #expect(host.status == 0, "\(host.stderr)")
        let json = try Self.json(host)
        let warnings = try #require(json["warnings"] as? [[String: String]])
        #expect(warnings.map { $0["code"] } == ["legacy-path", "content-type"])
        let url = try SwcredProcess.run(["aasa", "check", "https://example.com/", "--app", Self.app] + base)
        #expect(url.status == 0, "\(url.stderr)")
        #expect(server.requests.allSatisfy { $0.host == "example.com" })
        try await server.stop()
    }

    @Test("TLS failures exit 10 and name the problem")
    func tlsFailure() async throws {
        let server = try await TestHTTPSServer.start(
            identity: try TestCertificateAuthority.selfSigned(for: ["example.com"]),
            routes: ["/.well-known/apple-app-site-association": .json(Self.approving)])
        let result = try SwcredProcess.run(
            ["aasa", "check", "example.com", "--connect-to", server.connectTo("example.com")])
        #expect(result.status == 10)
        #expect(result.stderr.contains("self-signed"), "\(result.stderr)")
        #expect(server.requests.isEmpty)
        try await server.stop()
    }

    @Test("a 404 on both paths is an invalid file (2), and not approved (4) with --app")
    func notFound() async throws {
        let ca = try TestCertificateAuthority()
        let directory = try TemporaryDirectory()
        let caFile = try ca.writePEM(into: directory)
        let server = try await TestHTTPSServer.start(identity: try ca.issue(for: ["example.com"]), routes: [:])
        let base = [
            "aasa", "check", "example.com", "--ca-file", caFile, "--connect-to", server.connectTo("example.com"),
        ]
        let plain = try SwcredProcess.run(base)
        #expect(plain.status == 2)
        #expect(plain.stdout.contains("not-found"))
        let withApp = try SwcredProcess.run(base + ["--app", Self.app])
        #expect(withApp.status == 4)
        try await server.stop()
    }
}
