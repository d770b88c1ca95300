import Foundation
import TestSupport
import Testing

/// The gated commands end to end: the built binary, a real vault (a SQLite file, or a PostgreSQL
/// database: every test runs on both), real TLS on loopback.
@Suite("swcred request, add, delete, generate --app: end to end")
struct GatedCommandTests {
    static let app = GatedFixture.app

    @Test(
        "add, request, update, no-op, delete, delete again; passwords never in argv, stderr or the vault file",
        arguments: GatedFixture.Engine.allCases)
    func fullFlow(engine: GatedFixture.Engine) async throws {
        try await GatedFixture.with(store: try engine.store()) { fixture in
            let target = ["--app", Self.app, "--domain", "shop.example"]

            try fixture.expect(["verify", Self.app], status: 4, network: true)  // other.example refuses, down is down
            let generated = try fixture.expect(["generate"] + target + ["--json"], status: 0, network: true)
            let batch = try #require(
                try JSONSerialization.jsonObject(with: generated.stdoutData) as? [[String: Any]])
            #expect(batch.first?["style"] as? String == "strong")
            #expect((batch.first?["password"] as? String)?.count == 20)

            let added = try fixture.expect(
                ["add"] + target + ["--account", "alice@example.com", "--generate", "--yes"], status: 0, network: true)
            let firstPassword = added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(firstPassword.count == 20, "the generated password is printed once for sign-up")
            #expect(added.stderr.contains("added"))

            var released = try fixture.expect(["request"] + target + ["--all"], status: 0, network: true)
            #expect(released.stdout == "shop.example\talice@example.com\t\(firstPassword)\n")

            let secondPassword = "Second-distinctive-Pw-7781"
            let updated = try fixture.expect(
                ["add"] + target + ["--account", "alice@example.com", "--password-stdin", "--yes"], status: 0,
                stdin: secondPassword + "\n", network: true)
            #expect(updated.stderr.contains("updated"))
            let unchanged = try fixture.expect(
                ["add"] + target + ["--account", "alice@example.com", "--password-stdin"], status: 0,
                stdin: secondPassword, network: true)
            #expect(unchanged.stderr.contains("unchanged"), "the same password needs no confirmation")

            released = try fixture.expect(
                ["request"] + target + ["--account", "alice@example.com", "--json"], status: 0, network: true)
            let json = try #require(try JSONSerialization.jsonObject(with: released.stdoutData) as? [[String: Any]])
            #expect(json.count == 1)
            #expect(json.first?["password"] as? String == secondPassword)
            #expect(json.first?["server"] as? String == "shop.example")
            #expect(json.first?["port"] == nil, "port only when not 443")

            let deleted = try fixture.expect(
                ["delete"] + target + ["--account", "alice@example.com", "--yes"], status: 0, network: true)
            #expect(deleted.stderr.contains("deleted"))
            let again = try fixture.expect(
                ["delete"] + target + ["--account", "alice@example.com", "--yes"], status: 0, network: true)
            #expect(again.stderr.contains("nothing-to-delete"))
            let none = try fixture.expect(["request"] + target, status: 5, network: true)
            #expect(none.stderr.contains("no matching items found"))

            for secret in [firstPassword, secondPassword] {
                #expect(!fixture.argumentLists.joined().contains { $0.contains(secret) })
                #expect(!fixture.diagnostics.contains(secret))
            }
            #expect(try fixture.storedBytes().range(of: Data("alice@example.com".utf8)) == nil)
        }
    }

    @Test("each gate failure has its exit code and says why", arguments: GatedFixture.Engine.allCases)
    func gateFailures(engine: GatedFixture.Engine) async throws {
        try await GatedFixture.with(store: try engine.store()) { fixture in
            func request(_ app: String, _ domain: String, offline: Bool = false) throws -> SwcredProcess.Result {
                try fixture.run(
                    ["request", "--app", app, "--domain", domain] + (offline ? ["--offline"] : []), network: true)
            }
            let unregistered = try request("QQQQQ11111.com.example.unknown", "shop.example")
            #expect(unregistered.status == 3)
            #expect(unregistered.stderr.contains("not registered"))

            let outside = try request(Self.app, "elsewhere.example")
            #expect(outside.status == 3)
            #expect(outside.stderr.contains("elsewhere.example not found in com.apple.developer.associated-domains"))

            let refused = try request(Self.app, "other.example")
            #expect(refused.status == 4)
            #expect(refused.stderr.contains("\"other.example\" failed to approve \"\(Self.app)\""))

            let unreachable = try request(Self.app, "down.example")
            #expect(unreachable.status == 10)

            let neverVerified = try fixture.run(
                ["generate", "--app", Self.app, "--domain", "shop.example", "--offline"])
            #expect(neverVerified.status == 10, "offline with no cached verdict")

            try fixture.expect(["verify", Self.app, "--domain", "shop.example"], status: 0, network: true)
            try fixture.expect(["generate", "--app", Self.app, "--domain", "shop.example", "--offline"], status: 0)
            // Back-dating the verdict in the file breaks its MAC, so it counts as missing: offline
            // there is then no usable verdict at all. (An approval that really went stale is exit 4:
            // RecheckPolicyTests, with an injected clock.)
            try backdateVerdicts(in: fixture, days: 31)
            let stale = try fixture.run(["generate", "--app", Self.app, "--domain", "shop.example", "--offline"])
            #expect(stale.status == 10, "a verdict edited in the file is not honoured offline")
            #expect(stale.stderr.contains("failed authentication"), "\(stale.stderr)")
        }
    }

    @Test(
        "request without --domain searches only approved domains; another app never sees them",
        arguments: GatedFixture.Engine.allCases)
    func requestWithoutDomain(engine: GatedFixture.Engine) async throws {
        try await GatedFixture.with(store: try engine.store()) { fixture in
            try fixture.expect(
                [
                    "add", "--app", Self.app, "--domain", "shop.example", "--account", "alice", "--password-stdin",
                    "--yes",
                ],
                status: 0, stdin: "Shop-Pw-123", network: true)
            try fixture.expect(
                [
                    "add", "--app", GatedFixture.otherApp, "--domain", "other.example", "--account", "bob",
                    "--password-stdin", "--yes",
                ], status: 0, stdin: "Other-Pw-456", network: true)

            let mine = try fixture.expect(["request", "--app", Self.app], status: 0, network: true)
            #expect(mine.stdout == "shop.example\talice\tShop-Pw-123\n")
            let theirs = try fixture.expect(["request", "--app", GatedFixture.otherApp], status: 0, network: true)
            #expect(theirs.stdout == "other.example\tbob\tOther-Pw-456\n")
            let crossing = try fixture.run(
                ["request", "--app", GatedFixture.otherApp, "--domain", "shop.example"], network: true)
            #expect(crossing.status == 3)
        }
    }

    @Test("off a terminal, a change without --yes exits 6 and changes nothing", arguments: GatedFixture.Engine.allCases)
    func confirmationRequired(engine: GatedFixture.Engine) async throws {
        try await GatedFixture.with(store: try engine.store()) { fixture in
            let result = try fixture.run(
                ["add", "--app", Self.app, "--domain", "shop.example", "--account", "carol", "--password-stdin"],
                stdin: "Carol-Pw-1", network: true)
            #expect(result.status == 6)
            #expect(result.stderr.contains("confirmation required"))
            try fixture.expect(
                ["request", "--app", Self.app, "--domain", "shop.example"], status: 5, network: true)
        }
    }

    @Test("never-save makes add exit 12 until cleared", arguments: GatedFixture.Engine.allCases)
    func neverSave(engine: GatedFixture.Engine) async throws {
        try await GatedFixture.with(store: try engine.store()) { fixture in
            let add = ["add", "--app", Self.app, "--domain", "shop.example", "--account", "dan", "--generate", "--yes"]
            try fixture.expect(["never-save", "shop.example"], status: 0)
            let refused = try fixture.run(add, network: true)
            #expect(refused.status == 12)
            #expect(refused.stderr.contains("Item already exists for this server"))
            #expect(refused.stdout.isEmpty, "no password is printed for a refused add")
            try fixture.expect(["never-save", "shop.example", "--clear"], status: 0)
            try fixture.expect(add, status: 0, network: true)
        }
    }

    @Test("bad input to the gated commands exits 2 with a clear message", arguments: GatedFixture.Engine.allCases)
    func badInput(engine: GatedFixture.Engine) async throws {
        try await GatedFixture.with(store: try engine.store()) { fixture in
            let cases: [[String]] = [
                ["request", "--app", "not-an-app-id", "--domain", "shop.example"],
                ["request", "--app", Self.app, "--include-shared"],
                ["request", "--app", Self.app, "--domain", "https://shop.example"],
                ["request", "--app", Self.app, "--domain", "shop.example:70000"],
                ["add", "--app", Self.app, "--domain", "shop.example", "--account", "x"],
                [
                    "add", "--app", Self.app, "--domain", "shop.example", "--account", "x", "--generate",
                    "--password-stdin",
                ],
                ["add", "--app", Self.app, "--domain", "shop.example", "--account", "", "--generate"],
                ["add", "--app", Self.app, "--domain", "shop.example", "--account", "x", "--password", "secret"],
            ]
            for arguments in cases {
                let result = try fixture.run(arguments, network: true)
                #expect(result.status == 2, "\(arguments): \(result.stderr)")
                #expect(!result.stderr.isEmpty)
            }
            let empty = try fixture.run(
                ["add", "--app", Self.app, "--domain", "shop.example", "--account", "x", "--password-stdin", "--yes"],
                stdin: "", network: true)
            #expect(empty.status == 2, "an empty password is refused")
        }
    }

    @Test(
        "without a service, request, add, delete and generate --domain need --app, and say so before anything else",
        arguments: GatedFixture.Engine.allCases)
    func appRequiredWithoutService(engine: GatedFixture.Engine) async throws {
        try await GatedFixture.with(store: try engine.store()) { fixture in
            let cases: [([String], String?)] = [
                (["request", "--domain", "shop.example"], nil),
                (["request"], nil),
                (["add", "--domain", "shop.example", "--account", "x", "--password-stdin", "--yes"], "Pw-unread-1"),
                (["add", "--domain", "shop.example", "--account", "x", "--generate", "--yes"], nil),
                (["delete", "--domain", "shop.example", "--account", "x", "--yes"], nil),
                (["generate", "--domain", "shop.example"], nil),
            ]
            for (arguments, stdin) in cases {
                let result = try fixture.run(arguments, stdin: stdin, network: true)
                #expect(result.status == 2, "\(arguments): \(result.stderr)")
                #expect(
                    result.stderr
                        == "swcred: error: --app is required when swcred opens the vault itself: name the app that asks (TEAMID.bundle.id or android:PACKAGE), or go through a service with --server (or SWCRED_SERVER) and the app's token, which names the app.\n",
                    "\(arguments)")
                #expect(result.stdout.isEmpty)
            }
            let lone = try fixture.run(["generate", "--app", Self.app], network: true)
            #expect(lone.status == 2)
            #expect(lone.stderr.contains("--app goes with --domain"), "\(lone.stderr)")
        }
    }

    /// Moves every stored verdict `days` into the past by editing the store, as an attacker would.
    private func backdateVerdicts(in fixture: GatedFixture, days: Int) throws {
        let shift = "'-\(days) days'"
        try fixture.tamper(
            sqlite:
                "UPDATE associations SET checked_at = datetime(checked_at, \(shift)), approved_at = datetime(approved_at, \(shift)), next_check = datetime(next_check, \(shift));",
            postgresql: """
                UPDATE associations SET
                    checked_at = (checked_at::timestamptz - interval \(shift))::text,
                    approved_at = (approved_at::timestamptz - interval \(shift))::text,
                    next_check = (next_check::timestamptz - interval \(shift))::text
                """)
    }
}
