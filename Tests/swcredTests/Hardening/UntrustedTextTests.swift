import Foundation
import TestSupport
import Testing

/// Text from outside (an AASA file, an account name) never reaches the terminal raw, and never
/// forges a line of `request`'s tab-separated output (issue 11, finding 4).
@Suite("Untrusted text on standard output and standard error")
struct UntrustedTextTests {
    static let app = GatedFixture.app
    /// A member name that clears the screen and retitles the window, then a colon is missing, so
    /// the parser's error quotes it.
    static let hostileAASA = #"{"\u001b[2J\u001b]0;owned\u0007\u202eevil" 1}"#
    static let escapeByte = UInt8(0x1B)

    static func expectNoRawControl(_ text: String, _ what: String) {
        #expect(!text.utf8.contains(escapeByte), "\(what) holds a raw ESC: \(text.debugDescription)")
        #expect(!text.utf8.contains(0x07), "\(what) holds a raw BEL")
        #expect(!text.unicodeScalars.contains("\u{202E}"), "\(what) holds a raw RIGHT-TO-LEFT OVERRIDE")
    }

    @Test("aasa check of a file with escape sequences prints them escaped, once")
    func aasaCheckEscapes() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("apple-app-site-association")
        try Data(Self.hostileAASA.utf8).write(to: URL(fileURLWithPath: path))
        let result = try SwcredProcess.run(["aasa", "check", path])
        #expect(result.status == 2)
        Self.expectNoRawControl(result.stdout, "stdout")
        Self.expectNoRawControl(result.stderr, "stderr")
        #expect(result.stdout.contains(#"\u{1b}[2J\u{1b}]0;owned\u{7}\u{202e}evil"#), "\(result.stdout)")
    }

    @Test("verify, then show and app show, print a site's hostile error escaped, and store it escaped")
    func verifyAndShowEscape() async throws {
        let directory = try TemporaryDirectory()
        let vault = directory.path("vault.sqlite")
        let environment = [
            "SWCRED_VAULT": vault, "SWCRED_PASSPHRASE": "test passphrase: violet kernel umbrella frost 93",
        ]
        func run(_ arguments: [String]) throws -> SwcredProcess.Result {
            try SwcredProcess.run(arguments, environment: environment)
        }
        #expect(try run(["init", "--kdf-opslimit", "1", "--kdf-memlimit", "8192"]).status == 0)
        #expect(try run(["app", "add", Self.app, "--domain", "webcredentials:example.com"]).status == 0)
        let ca = try TestCertificateAuthority()
        let caFile = try ca.writePEM(into: directory)
        let server = try await TestHTTPSServer.start(identity: try ca.issue(for: ["example.com"])) { _ in
            .json(Self.hostileAASA)
        }
        let verify = try run(["verify", Self.app, "--ca-file", caFile, "--connect-to", server.connectTo("example.com")])
        try await server.stop()
        #expect(verify.status == 4, "\(verify.stderr)")
        for (name, text) in [("verify stdout", verify.stdout), ("verify stderr", verify.stderr)] {
            Self.expectNoRawControl(text, name)
        }
        #expect(verify.stdout.contains(#"\u{1b}[2J"#))
        for arguments in [["show"], ["app", "show", Self.app]] {
            let shown = try run(arguments)
            #expect(shown.status == 0, "\(shown.stderr)")
            Self.expectNoRawControl(shown.stdout, arguments.joined(separator: " "))
            #expect(shown.stdout.contains(#"\u{1b}]0;owned\u{7}"#), "\(shown.stdout)")
        }
        let json = try run(["show", "--json"])
        let rows = try #require(try JSONSerialization.jsonObject(with: json.stdoutData) as? [[String: Any]])
        let stored = try #require(rows.first?["error"] as? String)
        #expect(!stored.unicodeScalars.contains("\u{1B}"), "last_error is stored escaped: \(stored.debugDescription)")
    }

    @Test("an account with a newline and tabs cannot forge a line of request's output")
    func forgedLine() async throws {
        try await GatedFixture.with { fixture in
            let account = "alice\nevil.example\tmallory\tFORGED\u{1b}[2J"
            let password = "pass\\word\twith tab"
            try fixture.expect(
                [
                    "add", "--app", Self.app, "--domain", "shop.example", "--account", account, "--password-stdin",
                    "--yes",
                ],
                status: 0, stdin: password, network: true)
            let released = try fixture.expect(
                ["request", "--app", Self.app, "--domain", "shop.example", "--all"], status: 0, network: true)
            let lines = released.stdout.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.count == 2 && lines[1].isEmpty, "exactly one line: \(released.stdout.debugDescription)")
            let fields = lines[0].split(separator: "\t", omittingEmptySubsequences: false)
            #expect(fields.count == 3)
            #expect(fields.first == "shop.example")
            #expect(fields.dropFirst().first == #"alice\nevil.example\tmallory\tFORGED\x1b[2J"#)
            #expect(fields.last == #"pass\\word\twith tab"#)
            Self.expectNoRawControl(released.stdout, "request stdout")
            // JSON needs no escaping of its own and gives the exact text back.
            let json = try fixture.expect(
                ["request", "--app", Self.app, "--domain", "shop.example", "--all", "--json"], status: 0, network: true)
            let rows = try #require(try JSONSerialization.jsonObject(with: json.stdoutData) as? [[String: Any]])
            #expect(rows.first?["account"] as? String == account)
            #expect(rows.first?["password"] as? String == password)
        }
    }
}
