import Foundation
import TestSupport
import Testing

/// `swcred dal check`, the analogue of `aasa check`, end to end.
@Suite("swcred dal check", .serialized)
struct DALCheckCommandTests {
    static let app = GatedFixture.androidApp
    static let fingerprint = GatedFixture.androidFingerprint
    static let approving = """
        [{"relation": ["delegate_permission/common.handle_all_urls", "delegate_permission/common.get_login_creds"],
          "target": {"namespace": "android_app", "package_name": "com.example.shop",
                     "sha256_cert_fingerprints": ["\(GatedFixture.androidFingerprint)"]}},
         {"relation": ["delegate_permission/common.get_login_creds"],
          "target": {"namespace": "web", "site": "https://accounts.example.com"}},
         {"relation": ["delegate_permission/common.get_login_creds"],
          "target": {"namespace": "ios_app", "appid": "ABCDE12345.com.example.app"}},
         {"include": "https://example.com/more.json"}]
        """

    /// Writes `text` as assetlinks.json in `directory`, with the `aasa check` tests' helper.
    static func write(_ text: String, in directory: TemporaryDirectory) throws -> String {
        try AASACheckCommandTests.write(text, in: directory, name: "assetlinks.json")
    }

    @Test("a file: its statements, a skipped statement's warning, its includes listed, and the app approved")
    func validFile() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.write(Self.approving, in: directory)
        let text = try SwcredProcess.run(["dal", "check", path, "--app", Self.app, "--cert-sha256", Self.fingerprint])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("\(path): valid"))
        #expect(text.stdout.contains("android_app com.example.shop [\(Self.fingerprint)]"))
        #expect(text.stdout.contains("web https://accounts.example.com: delegate_permission/common.get_login_creds"))
        #expect(text.stdout.contains("warning: [namespace-unknown]"))
        #expect(text.stdout.contains("include (not fetched from a file): https://example.com/more.json"))
        #expect(text.stdout.contains("\(Self.app): approved"))

        let json = try AASACheckCommandTests.json(try SwcredProcess.run(["dal", "check", path, "--json"]))
        #expect(json["valid"] as? Bool == true)
        let statements = try #require(json["statements"] as? [[String: Any]])
        #expect(statements.map { $0["namespace"] as? String } == ["android_app", "web"])
        #expect(statements.first?["sha256_cert_fingerprints"] as? [String] == [Self.fingerprint])
        #expect(json["includes_not_fetched"] as? [String] == ["https://example.com/more.json"])
        #expect((json["warnings"] as? [[String: String]])?.map { $0["code"] } == ["namespace-unknown"])
        #expect(json["approved"] is NSNull)
    }

    @Test("another fingerprint is not approved: exit 4, the reason once")
    func notApproved() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.write(Self.approving, in: directory)
        let other = String(repeating: "AB:", count: 31) + "AB"
        let result = try SwcredProcess.run(["dal", "check", path, "--app", Self.app, "--cert-sha256", other])
        #expect(result.status == 4)
        #expect(result.stdout.contains("error: [fingerprint-mismatch]"))
        #expect(result.stdout.contains("\(Self.app): not approved"))
        let json = try AASACheckCommandTests.json(
            try SwcredProcess.run(["dal", "check", path, "--app", Self.app, "--cert-sha256", other, "--json"]))
        #expect(json["approved"] as? Bool == false)
        #expect((json["errors"] as? [[String: String]])?.first?["code"] == "fingerprint-mismatch")
    }

    @Test("an unusable list exits 2 with the diagnostic's code")
    func invalidFile() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.write("{\"relation\": []}", in: directory)
        let result = try SwcredProcess.run(["dal", "check", path, "--json"])
        #expect(result.status == 2)
        #expect(
            (try AASACheckCommandTests.json(result)["errors"] as? [[String: String]])?.first?["code"]
                == "top-level-not-array")
        let text = try SwcredProcess.run(["dal", "check", path])
        #expect(text.status == 2)
        #expect(text.stderr.contains("not a usable Digital Asset Links statement list"))
    }

    @Test("bad arguments exit 2 and say why")
    func badArguments() throws {
        let cases: [([String], String)] = [
            (["dal", "check", "http://example.com"], "HTTPS only"),
            (
                [
                    "dal", "check", "example.com", "--app", "ABCDE12345.com.example.app", "--cert-sha256",
                    Self.fingerprint,
                ], "Apple app"
            ),
            (["dal", "check", "example.com", "--app", Self.app], "--cert-sha256"),
            (["dal", "check", "example.com", "--cert-sha256", Self.fingerprint], "--app"),
            (["dal", "check", "no/such/file.json"], "no such file"),
        ]
        for (arguments, message) in cases {
            let result = try SwcredProcess.run(arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
    }

    @Test("a host is fetched over real TLS with its includes; a URL is fetched as given")
    func fetchesHost() async throws {
        let ca = try TestCertificateAuthority()
        let directory = try TemporaryDirectory()
        let caFile = try ca.writePEM(into: directory)
        let server = try await TestHTTPSServer.start(
            identity: try ca.issue(for: ["example.com"]),
            routes: [
                "/.well-known/assetlinks.json": .json(Self.approving),
                "/more.json": .json("[{\"include\": \"https://example.com/.well-known/assetlinks.json\"}]"),
            ])
        let base = ["--ca-file", caFile, "--connect-to", server.connectTo("example.com")]
        let host = try SwcredProcess.run(
            ["dal", "check", "example.com", "--app", Self.app, "--cert-sha256", Self.fingerprint, "--json"] + base)
        #expect(host.status == 0, "\(host.stderr)")
        let json = try AASACheckCommandTests.json(host)
        #expect(
            json["files"] as? [String] == [
                "https://example.com/.well-known/assetlinks.json", "https://example.com/more.json",
            ])
        #expect((json["warnings"] as? [[String: String]])?.map { $0["code"] } == ["namespace-unknown", "include-loop"])
        #expect(json["approved"] as? Bool == true)
        let url = try SwcredProcess.run(["dal", "check", "https://example.com/more.json"] + base)
        #expect(url.status == 0, "\(url.stderr)")
        #expect(
            url.stdout.contains(
                "files read: https://example.com/more.json, https://example.com/.well-known/assetlinks.json"))
        try await server.stop()
    }

    @Test("TLS failures exit 10 and name the problem; a 404 is an unusable list (2)")
    func failures() async throws {
        let server = try await TestHTTPSServer.start(
            identity: try TestCertificateAuthority.selfSigned(for: ["example.com"]),
            routes: ["/.well-known/assetlinks.json": .json(Self.approving)])
        let tls = try SwcredProcess.run([
            "dal", "check", "example.com", "--connect-to", server.connectTo("example.com"),
        ])
        #expect(tls.status == 10)
        #expect(tls.stderr.contains("self-signed"), "\(tls.stderr)")
        try await server.stop()

        let ca = try TestCertificateAuthority()
        let directory = try TemporaryDirectory()
        let caFile = try ca.writePEM(into: directory)
        let empty = try await TestHTTPSServer.start(identity: try ca.issue(for: ["example.com"]), routes: [:])
        let missing = try SwcredProcess.run([
            "dal", "check", "example.com", "--ca-file", caFile, "--connect-to", empty.connectTo("example.com"),
        ])
        #expect(missing.status == 2)
        #expect(missing.stdout.contains("error: [not-found]"))
        try await empty.stop()
    }
}
