import Foundation
import TestSupport
import Testing

/// Android apps through the same gate, end to end: the built binary, a real vault file, real
/// TLS on loopback, Digital Asset Links lists served as sites serve them.
@Suite("swcred with an Android app: end to end", .serialized)
struct AndroidGatedCommandTests {
    static let app = GatedFixture.androidApp

    /// Registers the Android app for shop.example and other.example.
    static func register(_ fixture: GatedFixture) throws {
        let added = try fixture.expect(
            [
                "app", "add", app, "--cert-sha256", GatedFixture.androidFingerprint.lowercased(), "--domain",
                "shop.example", "--domain", "other.example",
            ], status: 0)
        #expect(added.stdout.contains("registered \(app) with 2 entries"))
    }

    @Test(
        "an Android app requests, adds and generates for an approved site; a site listing only its sibling refuses with exit 4",
        arguments: GatedFixture.Engine.allCases)
    func approvedAndRefused(engine: GatedFixture.Engine) async throws {
        try await GatedFixture.with(store: try engine.store()) { fixture in
            try Self.register(fixture)
            let shown = try fixture.expect(["app", "show", Self.app, "--json"], status: 0)
            let json = try #require(try JSONSerialization.jsonObject(with: shown.stdoutData) as? [String: Any])
            #expect(json["cert_sha256"] as? [String] == [GatedFixture.androidFingerprint], "stored canonical")
            #expect(
                json["entitlements"] as? [String] == ["get_login_creds:shop.example", "get_login_creds:other.example"])

            let target = ["--app", Self.app, "--domain", "shop.example"]
            let generated = try fixture.expect(["generate"] + target, status: 0, network: true)
            #expect(generated.stdout.trimmingCharacters(in: .whitespacesAndNewlines).count == 20)
            try fixture.expect(
                ["add"] + target + ["--account", "alice", "--password-stdin", "--yes"], status: 0,
                stdin: "Android-Shop-Pw-1", network: true)
            let released = try fixture.expect(["request"] + target, status: 0, network: true)
            #expect(released.stdout == "shop.example\talice\tAndroid-Shop-Pw-1\n")

            let sibling = ["--app", Self.app, "--domain", "other.example"]
            for command in [["request"], ["generate"], ["add", "--account", "mallory", "--password-stdin", "--yes"]] {
                let refused = try fixture.run(command + sibling, stdin: "Never-Saved-Pw-2", network: true)
                #expect(refused.status == 4, "\(command): \(refused.stderr)")
                #expect(refused.stderr.contains("\"other.example\" failed to approve \"\(Self.app)\""))
                #expect(refused.stderr.contains(GatedFixture.androidSibling), "names the package the site lists")
            }

            let verdicts = try fixture.expect(["show", "--app", Self.app, "--json"], status: 0)
            let rows = try #require(try JSONSerialization.jsonObject(with: verdicts.stdoutData) as? [[String: Any]])
            #expect(
                rows.map {
                    "\($0["service"] as? String ?? "") \($0["domain"] as? String ?? "") \($0["verdict"] as? String ?? "")"
                } == [
                    "get_login_creds other.example denied", "get_login_creds shop.example approved",
                ])
            let verified = try fixture.run(["verify", Self.app], network: true)
            #expect(verified.status == 4)
            #expect(verified.stderr.contains("swcred: get_login_creds:other.example: error: [app-not-listed]"))

            let deleted = try fixture.expect(
                ["delete"] + target + ["--account", "alice", "--yes"], status: 0, network: true)
            #expect(deleted.stderr.contains("deleted"))
            #expect(!fixture.argumentLists.joined().contains { $0.contains("Android-Shop-Pw-1") })
        }
    }

    @Test(
        "an Apple app and an Android app share one vault without seeing each other's permissions",
        arguments: GatedFixture.Engine.allCases)
    func sharedVault(engine: GatedFixture.Engine) async throws {
        try await GatedFixture.with(store: try engine.store()) { fixture in
            try Self.register(fixture)
            let apple = GatedFixture.app
            try fixture.expect(
                [
                    "add", "--app", apple, "--domain", "shop.example", "--account", "apple-user", "--password-stdin",
                    "--yes",
                ],
                status: 0, stdin: "Apple-Pw-3", network: true)
            // Both apps are approved by shop.example, each in its own file: both see its credentials.
            let android = try fixture.expect(["request", "--app", Self.app], status: 0, network: true)
            #expect(android.stdout == "shop.example\tapple-user\tApple-Pw-3\n")
            // The Apple app's approvals are not the Android app's: other.example approves neither here,
            // and the verdicts are stored apart.
            let shown = try fixture.expect(["show", "--json"], status: 0)
            let rows = try #require(try JSONSerialization.jsonObject(with: shown.stdoutData) as? [[String: Any]])
            let byApp = Dictionary(grouping: rows) { $0["app"] as? String ?? "" }
            #expect(byApp[apple]?.map { $0["service"] as? String } == ["webcredentials"])
            #expect(byApp[Self.app]?.allSatisfy { $0["service"] as? String == "get_login_creds" } == true)
            // other.example approves the Apple app ZZZZZ99999.com.example.other in its AASA file and
            // only the Android sibling in its statement list: the Apple approval is no Android one.
            try fixture.expect(
                [
                    "add", "--app", GatedFixture.otherApp, "--domain", "other.example", "--account", "bob",
                    "--password-stdin", "--yes",
                ], status: 0, stdin: "Other-Pw-4", network: true)
            let refused = try fixture.run(["request", "--app", Self.app, "--domain", "other.example"], network: true)
            #expect(refused.status == 4)
            let mine = try fixture.expect(["request", "--app", Self.app], status: 0, network: true)
            #expect(mine.stdout == "shop.example\tapple-user\tApple-Pw-3\n", "other.example's credentials stay hidden")
            // A domain of the Apple app's entitlement is not among the Android app's domains.
            let crossing = try fixture.run(["request", "--app", Self.app, "--domain", "down.example"], network: true)
            #expect(crossing.status == 3)
        }
    }

    @Test("app add reads the fingerprint from a PEM certificate file", arguments: GatedFixture.Engine.allCases)
    func certificateFile(engine: GatedFixture.Engine) async throws {
        try await GatedFixture.with(store: try engine.store()) { fixture in
            let identity = try TestCertificateAuthority().issue(for: ["signing.example"])
            let pem = try identity.writePEM(into: fixture.directory, name: "signing").certificate
            try fixture.expect(
                [
                    "app", "add", Self.app, "--cert-file", pem, "--cert-sha256", GatedFixture.androidFingerprint,
                    "--domain", "shop.example",
                ], status: 0)
            let shown = try fixture.expect(["app", "show", Self.app, "--json"], status: 0)
            let json = try #require(try JSONSerialization.jsonObject(with: shown.stdoutData) as? [String: Any])
            let fingerprints = try #require(json["cert_sha256"] as? [String])
            #expect(fingerprints.count == 2 && fingerprints[0] == GatedFixture.androidFingerprint)
            #expect(fingerprints[1].count == 95 && fingerprints[1] != GatedFixture.androidFingerprint)
            let refused = try fixture.run([
                "app", "add", Self.app, "--cert-file", pem + ".missing", "--domain", "x.example",
            ])
            #expect(refused.status == 2)
            #expect(refused.stderr.contains("cannot read the certificate file"))
        }
    }

    @Test(
        "app add refuses bad Android input with exit 2 and a precise message", arguments: GatedFixture.Engine.allCases)
    func badInput(engine: GatedFixture.Engine) async throws {
        try await GatedFixture.with(store: try engine.store()) { fixture in
            let cases: [([String], String)] = [
                (
                    [
                        "app", "add", "android:com", "--cert-sha256", GatedFixture.androidFingerprint, "--domain",
                        "shop.example",
                    ], "at least two"
                ),
                (
                    [
                        "app", "add", "android:com.1shop", "--cert-sha256", GatedFixture.androidFingerprint, "--domain",
                        "shop.example",
                    ], "U+0031"
                ),
                (["app", "add", Self.app, "--domain", "shop.example"], "--cert-sha256"),
                (["app", "add", Self.app, "--cert-sha256", "AB:CD", "--domain", "shop.example"], "2 bytes"),
                (
                    [
                        "app", "add", Self.app, "--cert-sha256", GatedFixture.androidFingerprint, "--domain",
                        "*.example",
                    ], "no wildcards"
                ),
                (
                    [
                        "app", "add", Self.app, "--cert-sha256", GatedFixture.androidFingerprint, "--domain",
                        "webcredentials:shop.example",
                    ], "not an entitlement entry"
                ),
                (
                    [
                        "app", "add", GatedFixture.app, "--cert-sha256", GatedFixture.androidFingerprint, "--domain",
                        "webcredentials:shop.example",
                    ], "for Android apps"
                ),
            ]
            for (arguments, message) in cases {
                let result = try fixture.run(arguments)
                #expect(result.status == 2, "\(arguments)")
                #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
            }
        }
    }
}
