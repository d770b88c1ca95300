import Foundation
import TestSupport
import Testing

/// The gated operations through `swcred serve`: over HTTP, and with the CLI's `--server` path,
/// whose output and exit codes must equal the direct path's.
@Suite("swcred serve: gated operations over HTTP and through the CLI", .serialized)
struct ServiceGatedTests {
    static let app = GatedFixture.app

    @Test("add, request, update, no-op, delete through the CLI's --server path, as the direct path does")
    func cliThroughService() async throws {
        try await ServiceFixture.with { fixture in
            try fixture.start()
            let token = try fixture.token()
            let target = ["--app", Self.app, "--domain", "shop.example"]
            func run(_ arguments: [String], stdin: String? = nil) throws -> SwcredProcess.Result {
                try fixture.runThroughService(arguments, token: token, stdin: stdin)
            }
            let generated = try run(["generate"] + target + ["--json", "--count", "3"])
            #expect(generated.status == 0, "\(generated.stderr)")
            let batch = try #require(try JSONSerialization.jsonObject(with: generated.stdoutData) as? [[String: Any]])
            #expect(batch.count == 3)
            #expect(batch.first?["style"] as? String == "strong")
            let directGenerated = try fixture.gated.expect(
                ["generate"] + target + ["--json", "--count", "3"], status: 0, network: true)
            // The same JSON text as the direct path: two-space items, entropy with two decimals.
            let shape = { (text: String) in
                text.replacingOccurrences(of: #""password": "[^"]*""#, with: "P", options: .regularExpression)
                    .replacingOccurrences(of: #"[0-9]+\.[0-9]{2}\}"#, with: "E}", options: .regularExpression)
            }
            #expect(
                shape(directGenerated.stdout).split(separator: "\n").dropFirst().first
                    == shape(generated.stdout).split(separator: "\n").dropFirst().first)
            #expect(shape(generated.stdout).contains("  {P, \"style\": \"strong\", \"entropy_bits\": E},"))

            let added = try run(["add"] + target + ["--account", "alice@example.com", "--generate", "--yes"])
            #expect(added.status == 0, "\(added.stderr)")
            let firstPassword = added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(firstPassword.count == 20)
            #expect(added.stderr == "swcred: added: \"alice@example.com\" on shop.example\n")

            var released = try run(["request"] + target + ["--all"])
            #expect(released.status == 0)
            #expect(released.stdout == "shop.example\talice@example.com\t\(firstPassword)\n")
            let direct = try fixture.gated.expect(["request"] + target + ["--all"], status: 0, network: true)
            #expect(direct.stdout == released.stdout, "the direct path prints the same")

            let second = "Second-distinctive-Pw-7781"
            let updated = try run(
                ["add"] + target + ["--account", "alice@example.com", "--password-stdin", "--yes"], stdin: second)
            #expect(updated.status == 0)
            #expect(updated.stderr.contains("updated"))
            let unchanged = try run(
                ["add"] + target + ["--account", "alice@example.com", "--password-stdin", "--yes"], stdin: second)
            #expect(unchanged.stderr.contains("unchanged"))
            // Without --yes, off a terminal: a no-op needs nobody's answer, a real change exits 6
            // and changes nothing, exactly as on the direct path.
            let quietNoOp = try run(
                ["add"] + target + ["--account", "alice@example.com", "--password-stdin"], stdin: second)
            #expect(quietNoOp.status == 0, "\(quietNoOp.stderr)")
            #expect(quietNoOp.stderr.contains("unchanged"))
            let unconfirmed = try run(
                ["add"] + target + ["--account", "alice@example.com", "--password-stdin"], stdin: "Third-Pw-0042")
            #expect(unconfirmed.status == 6)
            #expect(unconfirmed.stderr.contains("confirmation required: update of \"alice@example.com\""))
            let preview = try fixture.call(
                "PUT", "/v1/credentials", token: token,
                json: ["domain": "shop.example", "account": "new@example.com", "password": "Pw-4", "confirmed": false])
            #expect(preview.status == 200)
            #expect((preview.json as? [String: Any])?["outcome"] as? String == "needs-confirmation")
            #expect((preview.json as? [String: Any])?["change"] as? String == "add")
            let nothingToDelete = try run(["delete"] + target + ["--account", "nobody@example.com"])
            #expect(nothingToDelete.status == 0, "\(nothingToDelete.stderr)")
            #expect(nothingToDelete.stderr.contains("nothing-to-delete"))
            released = try run(["request"] + target + ["--account", "alice@example.com", "--json"])
            let json = try #require(try JSONSerialization.jsonObject(with: released.stdoutData) as? [[String: Any]])
            #expect(json.first?["password"] as? String == second)
            #expect(json.first?["port"] == nil)

            let deleted = try run(["delete"] + target + ["--account", "alice@example.com", "--yes"])
            #expect(deleted.status == 0)
            #expect(deleted.stderr.contains("deleted"))
            let again = try run(["delete"] + target + ["--account", "alice@example.com", "--yes"])
            #expect(again.stderr.contains("nothing-to-delete"))
            let none = try run(["request"] + target)
            #expect(none.status == 5)
            let directNone = try fixture.gated.expect(["request"] + target, status: 5, network: true)
            #expect(none.stderr == directNone.stderr)

            let log = try fixture.running.log
            for secret in [firstPassword, second, token, "alice@example.com"] {
                #expect(!log.contains(secret), "the service log never carries \(secret.prefix(8))…")
            }
            #expect(log.contains("peer_pid="))
        }
    }

    /// Issue 30, section 2: the token already says which app calls.
    @Test("through the service --app may be left out (the token's app acts); a given --app must be the token's")
    func appFromTheToken() async throws {
        try await ServiceFixture.with { fixture in
            try fixture.start()
            let token = try fixture.token()
            let tokenFile = try fixture.gated.directory.writePrivateFile("token", token + "\n")
            func run(_ arguments: [String], stdin: String? = nil) throws -> SwcredProcess.Result {
                try fixture.runThroughService(arguments, token: token, stdin: stdin)
            }
            let site = ["--domain", "shop.example"]
            let none = try SwcredProcess.run(
                ["request"] + site + ["--server", fixture.socketPath, "--token-file", tokenFile])
            #expect(none.status == 5, "the issue's command: \(none.stderr)")
            let generated = try run(["generate"] + site + ["--json"])
            #expect(generated.status == 0, "\(generated.stderr)")
            let added = try run(
                ["add"] + site + ["--account", "alice", "--password-stdin", "--yes"], stdin: "Pw-token-app-1")
            #expect(added.status == 0, "\(added.stderr)")
            #expect(added.stderr == "swcred: added: \"alice\" on shop.example\n")
            let released = try run(["request"] + site + ["--all"])
            #expect(released.stdout == "shop.example\talice\tPw-token-app-1\n", "\(released.stderr)")
            #expect(try run(["request", "--all"]).stdout == released.stdout, "no --domain either")
            let deleted = try run(["delete"] + site + ["--account", "alice", "--yes"])
            #expect(deleted.status == 0 && deleted.stderr.contains("deleted"), "\(deleted.stderr)")

            let other = GatedFixture.otherApp
            let mismatches: [([String], String?)] = [
                (["request", "--app", other] + site, nil),
                (["add", "--app", other] + site + ["--account", "bob", "--password-stdin", "--yes"], "Pw-never-1"),
                (["delete", "--app", other] + site + ["--account", "alice", "--yes"], nil),
                (["generate", "--app", other] + site, nil),
            ]
            for (arguments, stdin) in mismatches {
                let result = try run(arguments, stdin: stdin)
                #expect(result.status == 7, "\(arguments): \(result.stderr)")
                #expect(
                    result.stderr.contains(
                        "this app token belongs to \(Self.app), not to \(other): use the token made for \(other)"),
                    "\(arguments): \(result.stderr)")
                #expect(result.stdout.isEmpty, "\(arguments)")
            }
            #expect(try run(["request"] + site).status == 5, "nothing was added for the other app")
        }
    }

    @Test("each gate failure has the CLI's exit code through the service, and its status over HTTP")
    func gateFailures() async throws {
        try await ServiceFixture.with { fixture in
            try fixture.start()
            let token = try fixture.token()
            func request(_ domain: String) throws -> SwcredProcess.Result {
                try fixture.runThroughService(["request", "--app", Self.app, "--domain", domain], token: token)
            }
            let outside = try request("elsewhere.example")
            #expect(outside.status == 3)
            #expect(outside.stderr.contains("elsewhere.example not found in com.apple.developer.associated-domains"))
            #expect(try request("other.example").status == 4)
            #expect(try request("down.example").status == 10)
            #expect(try request("shop.example").status == 5)

            let cases: [(String, Int, String)] = [
                ("elsewhere.example", 403, "missing-entitlement"), ("other.example", 403, "not-approved"),
                ("shop.example", 404, "item-not-found"), ("bad host!", 400, "invalid-input"),
            ]
            for (domain, status, code) in cases {
                let response = try fixture.call(
                    "POST", "/v1/credentials/request", token: token, json: ["domain": domain])
                #expect(response.status == status, "\(domain): \(response.text)")
                #expect(response.errorCode == code)
                #expect((response.json as? [String: Any])?["error"] is [String: Any])
            }
            let down = try fixture.call(
                "POST", "/v1/credentials/request", token: token, json: ["domain": "down.example"])
            #expect(down.status == 502)
            #expect(down.errorCode == "network-failure")

            try fixture.gated.expect(["never-save", "shop.example"], status: 0)
            let never = try fixture.call(
                "PUT", "/v1/credentials", token: token,
                json: ["domain": "shop.example", "account": "bob", "password": "Pw-never-saved-1"])
            #expect(never.status == 409)
            #expect(never.errorCode == "never-save")
            let neverCLI = try fixture.runThroughService(
                [
                    "add", "--app", Self.app, "--domain", "shop.example", "--account", "bob", "--password-stdin",
                    "--yes",
                ],
                token: token, stdin: "Pw-never-saved-1")
            #expect(neverCLI.status == 12)
        }
    }

    @Test(
        "one host on two ports and both schemes: the app's request and update reach shop.example's https credential only"
    )
    func portsAndSchemesApart() async throws {
        try await ServiceFixture.with { fixture in
            try fixture.start()
            let token = try fixture.token(["--allow", "request,add"])
            let sites = [
                "shop.example": "Pw-https-443", "shop.example:8443": "Pw-https-8443",
                "http://shop.example": "Pw-http-80", "http://shop.example:443": "Pw-http-443",
            ]
            for (site, password) in sites {
                try fixture.gated.expect(
                    ["item", "set", site, "--account", "alice", "--password-stdin", "--yes"], status: 0, stdin: password
                )
            }
            func owners(_ site: String) throws -> String? {
                let shown = try fixture.gated.expect(["item", "show", site, "--account", "alice", "--json"], status: 0)
                let item = try JSONSerialization.jsonObject(with: shown.stdoutData) as? [String: Any]
                return item?["password"] as? String
            }
            let released = try fixture.call(
                "POST", "/v1/credentials/request", token: token, json: ["domain": "shop.example"])
            #expect(released.status == 200, "\(released.text)")
            #expect(released.text.contains("Pw-https-443"), "\(released.text)")
            for (site, password) in sites where site != "shop.example" {
                #expect(!released.text.contains(password), "\(site)'s password released for shop.example")
            }
            // The app's entries name shop.example without a port: :8443 is another site, none of its.
            let otherPort = try fixture.call(
                "POST", "/v1/credentials/request", token: token, json: ["domain": "shop.example:8443"])
            #expect(otherPort.status == 403 && otherPort.errorCode == "missing-entitlement", "\(otherPort.text)")
            #expect(!otherPort.text.contains("Pw-"))

            let updated = try fixture.call(
                "PUT", "/v1/credentials", token: token,
                json: ["domain": "shop.example", "account": "alice", "password": "Pw-https-443-new"])
            #expect(updated.status == 200, "\(updated.text)")
            #expect(try owners("shop.example") == "Pw-https-443-new")
            for (site, password) in sites where site != "shop.example" {
                #expect(try owners(site) == password, "the app's update of shop.example changed \(site)")
            }
        }
    }

    @Test("HTTP routes: health without a token, generate rules and styles, associations of the token's app")
    func httpRoutes() async throws {
        try await ServiceFixture.with { fixture in
            try fixture.start()
            let health = try fixture.call("GET", "/v1/health")
            #expect(health.status == 200)
            #expect((health.json as? [String: Any])?["locked"] as? Bool == false)
            #expect((health.json as? [String: Any])?["version"] as? String == "0.1.0")

            let token = try fixture.token()
            let classic = try fixture.call(
                "POST", "/v1/passwords/generate", token: token, json: ["style": "classic", "count": 2])
            let passwords = try #require(classic.json as? [[String: Any]])
            #expect(passwords.count == 2)
            #expect(passwords.allSatisfy { $0["style"] as? String == "classic" && $0["entropy_bits"] is Double })
            let ruled = try fixture.call(
                "POST", "/v1/passwords/generate", token: token,
                json: ["rules": "minlength: 8; maxlength: 8; required: digit;"])
            #expect(((ruled.json as? [[String: Any]])?.first?["password"] as? String)?.count == 8)
            for bad in [["count": 0], ["count": 1001], ["style": "classic", "rules": "minlength: 9;"]]
                as [[String: Any]]
            {
                let refused = try fixture.call("POST", "/v1/passwords/generate", token: token, json: bad)
                #expect(refused.status == 400, "\(bad)")
                #expect(refused.errorCode == "invalid-input")
            }
            // A style the document does not list fails its schema, naming the field.
            let unknownStyle = try fixture.call(
                "POST", "/v1/passwords/generate", token: token, json: ["style": "nope"])
            #expect(unknownStyle.status == 400 && unknownStyle.errorCode == "invalid-json")
            #expect(unknownStyle.text.contains("bad value at \\\"style\\\""))
            _ = try fixture.call("POST", "/v1/credentials/request", token: token, json: ["domain": "shop.example"])
            let associations = try fixture.call("GET", "/v1/associations", token: token)
            let rows = try #require(associations.json as? [[String: Any]])
            #expect(
                rows.contains { $0["domain"] as? String == "shop.example" && $0["verdict"] as? String == "approved" })
            #expect(rows.allSatisfy { $0["app"] as? String == Self.app })
            let unknown = try fixture.call("GET", "/v1/nothing", token: token)
            #expect(unknown.status == 404)
            #expect(unknown.errorCode == "no-route")
        }
    }
}
