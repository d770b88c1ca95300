import Foundation
import TestSupport
import Testing

@Suite("swcred app, verify and show on a real vault")
struct AssociationCommandTests {
    static let fastKDF = ["--kdf-opslimit", "1", "--kdf-memlimit", "8192"]
    static let passphrase = ["SWCRED_PASSPHRASE": "association commands test passphrase"]
    static let app = "ABCDE12345.com.example.app"

    let directory: TemporaryDirectory
    let vault: String

    init() throws {
        directory = try TemporaryDirectory()
        vault = directory.path("vault.sqlite")
        let created = try SwcredProcess.run(["init", "--vault", vault] + Self.fastKDF, environment: Self.passphrase)
        #expect(created.status == 0, "\(created.stderr)")
    }

    func run(_ arguments: [String]) throws -> SwcredProcess.Result {
        try SwcredProcess.run(arguments + ["--vault", vault], environment: Self.passphrase)
    }

    @Test("apps are added from --domain or an .entitlements file, listed, shown and removed")
    func appLifecycle() throws {
        let added = try run([
            "app", "add", Self.app, "--domain", "webcredentials:*.Example.com", "--domain", "applinks:example.com",
        ])
        #expect(added.status == 0, "\(added.stderr)")
        let plist = directory.path("App.entitlements")
        try Data(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>com.apple.developer.associated-domains</key>
            <array><string>webcredentials:login.example.org</string></array></dict></plist>
            """.utf8
        ).write(to: URL(fileURLWithPath: plist))
        #expect(try run(["app", "add", "ZZZZZ99999.org.example", "--entitlements", plist]).status == 0)
        let list = try run(["app", "list", "--json"])
        let apps = try #require(try JSONSerialization.jsonObject(with: list.stdoutData) as? [[String: Any]])
        #expect(apps.map { $0["app"] as? String } == [Self.app, "ZZZZZ99999.org.example"])
        #expect(apps[0]["entitlements"] as? [String] == ["webcredentials:*.example.com", "applinks:example.com"])
        let show = try run(["app", "show", Self.app])
        #expect(show.stdout.contains("webcredentials:*.example.com"))
        #expect(try run(["app", "remove", Self.app]).status == 0)
        #expect(try run(["app", "remove", Self.app]).status == 3)
        #expect(try run(["app", "show", Self.app]).status == 3)
    }

    @Test(
        "bad app input exits 2",
        arguments: [
            (["app", "add", "bad-id", "--domain", "webcredentials:example.com"], "invalid application identifier"),
            (
                ["app", "add", "ABCDE12345.com.example.app", "--domain", "webcredentials:https://example.com"],
                "remove the scheme"
            ),
            (["app", "add", "ABCDE12345.com.example.app"], "either --entitlements"),
            (
                ["app", "add", "ABCDE12345.com.example.app", "--entitlements", "/nonexistent"],
                "cannot read entitlements"
            ),
        ])
    func badInput(arguments: [String], message: String) throws {
        let result = try run(arguments)
        #expect(result.status == 2)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    @Test("verify fetches over TLS, stores verdicts, and show prints them; exit codes follow the verdicts")
    func verifyAndShow() async throws {
        let ca = try TestCertificateAuthority()
        let caFile = try ca.writePEM(into: directory)
        let server = try await TestHTTPSServer.start(identity: try ca.issue(for: ["example.com", "example.org"])) {
            request in
            request.host == "example.com" ? .aasa(approving: [Self.app]) : .aasa(approving: [])
        }
        let network = [
            "--ca-file", caFile, "--connect-to", server.connectTo("example.com"), "--connect-to",
            server.connectTo("example.org"),
        ]
        #expect(
            try run([
                "app", "add", Self.app, "--domain", "webcredentials:*.example.com", "--domain",
                "webcredentials:example.org",
            ]).status == 0)
        let one = try run(["verify", Self.app, "--domain", "login.example.com", "--json"] + network)
        #expect(one.status == 0, "\(one.stderr)")
        let rows = try #require(try JSONSerialization.jsonObject(with: one.stdoutData) as? [[String: Any]])
        #expect(rows.count == 1)
        #expect(rows[0]["domain"] as? String == "*.example.com")
        #expect(rows[0]["verdict"] as? String == "approved")
        #expect(rows[0]["service"] as? String == "webcredentials")
        #expect(rows[0]["error"] is NSNull)
        let all = try run(["verify", Self.app] + network)
        #expect(all.status == 4)
        // Issue 30: the refusal is said once, on standard error with its code, after the table:
        // not also in a closing error line, nor again among the verdicts on standard output.
        let reasonLines = all.stderr.split(separator: "\n").filter {
            $0.hasPrefix("swcred: webcredentials:example.org: error: [")
        }
        #expect(!reasonLines.isEmpty, "\(all.stderr)")
        for line in reasonLines {
            let message = String(line.split(separator: "] ", maxSplits: 1).last ?? line)
            #expect(all.stderr.components(separatedBy: message).count == 2, "\(message) is printed twice")
        }
        #expect(!all.stderr.contains("swcred: error:"), "no closing line saying it again: \(all.stderr)")
        #expect(!all.stdout.contains("error: ["), "no reason lines among the verdicts: \(all.stdout)")
        let allJSON = try run(["verify", Self.app, "--json"] + network)
        #expect(allJSON.status == 4)
        #expect(allJSON.stderr.contains("example.org does not approve \(Self.app): "), "\(allJSON.stderr)")
        let show = try run(["show", "--json"])
        let stored = try #require(try JSONSerialization.jsonObject(with: show.stdoutData) as? [[String: Any]])
        #expect(stored.map { $0["verdict"] as? String } == ["approved", "denied"])
        let table = try run(["show"])
        #expect(table.stdout.contains("SERVICE") && table.stdout.contains("denied"))
        #expect(try run(["verify", Self.app, "--offline"]).status == 10)
        let uncovered = try run(["verify", Self.app, "--domain", "other.net"] + network)
        #expect(uncovered.status == 3)
        #expect(
            uncovered.stderr.contains("other.net is not covered by any entitlement entry of \(Self.app)"),
            "the domain asked for is named, not the app's whole entitlement: \(uncovered.stderr)")
        #expect(try run(["verify", "ZZZZZ99999.org.example"] + network).status == 3)
        try await server.stop()
    }

    @Test("verify exits 10 when the site cannot be reached")
    func verifyUnreachable() async throws {
        let server = try await TestHTTPSServer.start(
            identity: try TestCertificateAuthority.selfSigned(for: ["example.com"]), routes: [:])
        #expect(try run(["app", "add", Self.app, "--domain", "webcredentials:example.com"]).status == 0)
        let result = try run(["verify", Self.app, "--connect-to", server.connectTo("example.com")])
        #expect(result.status == 10)
        #expect(result.stdout.contains("self-signed"), "the verdict's last error, in the table")
        #expect(result.stderr.hasPrefix("swcred: webcredentials:example.com: error: ["), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "the reason once: \(result.stderr)")
        #expect(result.stderr.contains("self-signed"))
        try await server.stop()
    }

    @Test("an entitlements file with Xcode build settings: other services' entries are skipped with a warning")
    func buildSettingsInEntitlements() throws {
        let plist = directory.path("App.entitlements")
        func write(_ entries: [String]) throws {
            let strings = entries.map { "<string>\($0)</string>" }.joined()
            try Data(
                """
                <?xml version="1.0" encoding="UTF-8"?>
                <plist version="1.0"><dict><key>com.apple.developer.associated-domains</key>
                <array>\(strings)</array></dict></plist>
                """.utf8
            ).write(to: URL(fileURLWithPath: plist))
        }
        try write(["applinks:$(APP_LINKS_DOMAIN)", "webcredentials:example.com"])
        let added = try run(["app", "add", Self.app, "--entitlements", plist])
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stderr.contains("skipped \"applinks:$(APP_LINKS_DOMAIN)\""), "\(added.stderr)")
        #expect(added.stdout.contains("with 1 entry"))

        try write(["webcredentials:$(APP_LINKS_DOMAIN)"])
        let refused = try run(["app", "add", Self.app, "--entitlements", plist])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("unresolved Xcode build setting $(APP_LINKS_DOMAIN)"), "\(refused.stderr)")
        #expect(refused.stderr.contains("--domain \"webcredentials:<value of APP_LINKS_DOMAIN>\""))
        #expect(!refused.stderr.contains("app_links_domain"))
    }
}
