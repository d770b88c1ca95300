import Foundation
import TestSupport
import Testing

/// `swcred app token create|list|revoke` end to end, with the built binary.
@Suite("swcred app token: create, list, revoke")
struct AppTokenCommandTests {
    static let app = GatedFixture.app

    @Test("create prints the token once; list shows ids and grants, never the token; revoke removes it")
    func lifecycle() async throws {
        try await GatedFixture.with { fixture in
            let created = try fixture.expect(
                [
                    "app", "token", "create", Self.app, "--allow", "request,generate", "--expires", "30d", "--consent",
                    "ask",
                ],
                status: 0)
            let token = created.stdout.trimmingCharacters(in: .newlines)
            #expect(token.hasPrefix("swcred_") && token.count == 50)
            #expect(created.stdout == token + "\n", "only the token on standard output, for scripts")
            #expect(!created.stderr.contains(token))
            let id = try #require(created.stderr.split(separator: " ").dropFirst(3).first.map(String.init))
            #expect(id.count == 16)

            let listed = try fixture.expect(["app", "token", "list", Self.app], status: 0)
            #expect(listed.stdout.hasPrefix(id + "\trequest,generate\tconsent=ask\t"))
            #expect(listed.stdout.contains("expires "))
            #expect(!listed.stdout.contains(token))
            let json = try fixture.expect(["app", "token", "list", Self.app, "--json"], status: 0)
            let rows = try #require(try JSONSerialization.jsonObject(with: json.stdoutData) as? [[String: Any]])
            #expect(rows.count == 1)
            #expect(rows.first?["id"] as? String == id)
            #expect(rows.first?["permissions"] as? [String] == ["request", "generate"])
            #expect(rows.first?["consent"] as? String == "ask")
            #expect(rows.first?["expires_at"] is String)

            #expect(try fixture.expect(["app", "token", "revoke", id], status: 0).stdout == "revoked \(id)\n")
            let again = try fixture.expect(["app", "token", "revoke", id], status: 5)
            #expect(again.stderr.contains("no app token has the id \"\(id)\""))
            #expect(try fixture.expect(["app", "token", "list", Self.app], status: 0).stdout.isEmpty)
            #expect(!fixture.vaultBytes().contains(Data(token.utf8)))
        }
    }

    @Test("create: --allow, --consent and --expires each given alone change their own field only")
    func oneSettingAtATime() async throws {
        try await GatedFixture.with { fixture in
            func created(_ options: [String]) throws -> [String: String] {
                let created = try fixture.expect(["app", "token", "create", Self.app] + options, status: 0)
                let id = try #require(created.stderr.split(separator: " ").dropFirst(3).first.map(String.init))
                let json = try fixture.expect(["app", "token", "list", Self.app, "--json"], status: 0)
                let rows = try #require(try JSONSerialization.jsonObject(with: json.stdoutData) as? [[String: Any]])
                let row = try #require(rows.first { $0["id"] as? String == id })
                return [
                    "permissions": (row["permissions"] as? [String])?.joined(separator: ",") ?? "?",
                    "consent": row["consent"] as? String ?? "?",
                    "expires_at": row["expires_at"] as? String ?? "never",
                ]
            }
            let defaults = try created([])
            #expect(
                defaults == ["permissions": "request,add,delete,generate", "consent": "none", "expires_at": "never"])
            for (options, field) in [
                (["--allow", "passkey-get"], "permissions"), (["--consent", "ask"], "consent"),
                (["--expires", "1h"], "expires_at"),
            ] {
                let row = try created(options)
                #expect(row[field] != defaults[field], "\(options) changes \(field)")
                #expect(
                    row.filter { $0.key != field } == defaults.filter { $0.key != field },
                    "\(options) changes \(field) only: \(row)")
            }
        }
    }

    @Test("bad input names the problem: permission, duration, consent mode, unregistered app")
    func badInput() async throws {
        try await GatedFixture.with { fixture in
            let permission = try fixture.expect(
                ["app", "token", "create", Self.app, "--allow", "request,admin"], status: 2)
            #expect(permission.stderr.contains("unknown permission \"admin\""))
            for duration in ["30", "0d", "1y", "d", "٣d", "1.5h"] {
                let result = try fixture.expect(["app", "token", "create", Self.app, "--expires", duration], status: 2)
                #expect(result.stderr.contains("--expires \"\(duration)\" is not a duration"))
            }
            let consent = try fixture.expect(["app", "token", "create", Self.app, "--consent", "maybe"], status: 2)
            #expect(consent.stderr.contains("--consent \"maybe\" is not a mode"))
            let stranger = try fixture.expect(["app", "token", "create", "QQQQQ11111.com.example.unknown"], status: 3)
            #expect(stranger.stderr.contains("not registered"))
            #expect(try fixture.expect(["app", "token", "list", Self.app], status: 0).stdout.isEmpty)
        }
    }

    @Test("removing the app and rotating the vault key revoke tokens, and say so")
    func revokedByRemovalAndRekey() async throws {
        try await GatedFixture.with { fixture in
            try fixture.expect(["app", "token", "create", Self.app], status: 0)
            try fixture.expect(["app", "token", "create", GatedFixture.otherApp], status: 0)
            try fixture.expect(["app", "remove", Self.app], status: 0)
            try fixture.expect(["app", "add", Self.app, "--domain", "webcredentials:shop.example"], status: 0)
            #expect(try fixture.expect(["app", "token", "list", Self.app], status: 0).stdout.isEmpty)
            let rekey = try fixture.expect(["rekey"], status: 0)
            #expect(rekey.stdout.contains("Revoked 1 app tokens"))
            #expect(try fixture.expect(["app", "token", "list", GatedFixture.otherApp], status: 0).stdout.isEmpty)
        }
    }
}
