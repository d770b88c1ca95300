import Foundation
import TestSupport
import Testing

/// Issue 28, "the audit log sees the boundary", end to end with the built binary: token create
/// and revoke, never-save marks and verdict changes each leave an entry that `swcred audit
/// --operation NAME` finds, with its detail; never the token; the chain still verifies.
@Suite("swcred audit: what grants or changes access")
struct AuditBoundaryCommandTests {
    static let app = GatedFixture.app

    private func entries(_ fixture: GatedFixture, operation: String) throws -> [[String: Any]] {
        let listed = try fixture.expect(["audit", "--operation", operation, "--json"], status: 0)
        return try #require(try JSONSerialization.jsonObject(with: listed.stdoutData) as? [[String: Any]])
    }

    @Test("token create and revoke: owner entries with the app and the grant as detail, never the token")
    func tokens() async throws {
        try await GatedFixture.with { fixture in
            let created = try fixture.expect(
                ["app", "token", "create", Self.app, "--allow", "add,request", "--expires", "30d", "--consent", "ask"],
                status: 0)
            let token = created.stdout.trimmingCharacters(in: .newlines)
            let id = try #require(created.stderr.split(separator: " ").dropFirst(3).first.map(String.init))
            let lasting = try fixture.expect(["app", "token", "create", Self.app, "--allow", "generate"], status: 0)
            let lastingToken = lasting.stdout.trimmingCharacters(in: .newlines)
            let lastingID = try #require(lasting.stderr.split(separator: " ").dropFirst(3).first.map(String.init))
            try fixture.expect(["app", "token", "revoke", id], status: 0)
            try fixture.expect(["app", "token", "revoke", id], status: 5)

            let creates = try entries(fixture, operation: "token-create")
            #expect(creates.count == 2, "\(creates)")
            for entry in creates {
                #expect(entry["actor"] as? String == "owner" && entry["outcome"] as? String == "done")
                #expect(entry["app"] as? String == Self.app && entry["domain"] is NSNull)
            }
            let grant = try #require(creates.first?["detail"] as? String)
            #expect(grant.hasPrefix("token \(id); permissions request,add; expires 20"), "\(grant)")
            #expect(grant.hasSuffix("Z; consent ask"), "\(grant)")
            #expect(
                creates.last?["detail"] as? String
                    == "token \(lastingID); permissions generate; expires never; consent none")
            let revokes = try entries(fixture, operation: "token-revoke")
            #expect(revokes.count == 1, "the second revoke found nothing and recorded nothing")
            #expect(revokes.first?["app"] as? String == Self.app && revokes.first?["detail"] as? String == grant)

            let text = try fixture.expect(["audit"], status: 0).stdout
            #expect(text.contains("\towner\ttoken-create\tdone\t\(Self.app)\t-\t-\t\(grant)\n"), "\(text)")
            let json = try fixture.expect(["audit", "--json"], status: 0).stdout
            for secret in [token, lastingToken] {
                #expect(!text.contains(secret) && !json.contains(secret))
                #expect(!text.contains(secret.dropFirst("swcred_".count)))
            }
            #expect(fixture.vaultBytes().range(of: Data("permissions request,add".utf8)) == nil, "sealed")
            let verified = try fixture.expect(["audit", "verify"], status: 0)
            #expect(verified.stdout.contains("audit log intact"), "\(verified.stdout)")
        }
    }

    @Test("never-save: the mark and its clearing are owner entries for the host; a no-op is none")
    func neverSave() async throws {
        try await GatedFixture.with { fixture in
            try fixture.expect(["never-save", "Shop.Example"], status: 0)
            try fixture.expect(["never-save", "shop.example"], status: 0)
            try fixture.expect(["never-save", "shop.example", "--clear"], status: 0)
            try fixture.expect(["never-save", "shop.example", "--clear"], status: 0)
            for operation in ["never-save-add", "never-save-remove"] {
                let found = try entries(fixture, operation: operation)
                #expect(found.count == 1, "\(operation): \(found)")
                #expect(found.first?["domain"] as? String == "shop.example")
                #expect(found.first?["actor"] as? String == "owner" && found.first?["detail"] is NSNull)
            }
            try fixture.expect(["audit", "verify"], status: 0)
        }
    }

    @Test("verdicts: each one stored that changed is an entry, as the app or the owner; unchanged ones are none")
    func verdictChanges() async throws {
        try await GatedFixture.with { fixture in
            // A request checks the never-verified site itself: the first verdict, recorded as the app's.
            try fixture.run(["request", "--app", Self.app, "--domain", "shop.example"], network: true)
            try fixture.run(["verify", Self.app], network: true)
            try fixture.run(["verify", Self.app], network: true)
            var changes = try entries(fixture, operation: "verdict-change")
            #expect(
                changes.map { [$0["actor"], $0["domain"], $0["detail"]].map { $0 as? String } } == [
                    [Self.app, "shop.example", "webcredentials: none → approved"],
                    ["owner", "other.example", "webcredentials: none → denied"],
                    ["owner", "down.example", "webcredentials: none → unverified"],
                ], "the second verify changed nothing and recorded nothing: \(changes)")
            #expect(changes.allSatisfy { $0["app"] as? String == Self.app })

            // down.example answers now, with a 404: unverified becomes denied.
            try fixture.run(
                [
                    "verify", Self.app, "--domain", "down.example", "--ca-file", fixture.caFile, "--connect-to",
                    fixture.server.connectTo("down.example"),
                ])
            changes = try entries(fixture, operation: "verdict-change")
            #expect(changes.count == 4)
            #expect(changes.last?["detail"] as? String == "webcredentials: unverified → denied")
            let byApp = try fixture.expect(["audit", "--app", Self.app, "--operation", "verdict-change"], status: 0)
            #expect(byApp.stdout.split(separator: "\n").count == 1, "\(byApp.stdout)")
            try fixture.expect(["audit", "verify"], status: 0)
        }
    }

    @Test("--operation accepts every new name, and its help lists them")
    func operationNames() async throws {
        try await GatedFixture.with { fixture in
            let help = try fixture.expect(["audit", "list", "--help"], status: 0).stdout
            let words = help.split(whereSeparator: { $0.isWhitespace || $0 == "," || $0 == "." || $0 == ")" })
            for name in [
                "token-create", "token-revoke", "consent-approve", "consent-decline", "consent-timeout", "unlock",
                "unlock-failed", "lock", "verdict-change", "never-save-add", "never-save-remove", "passkey-create",
                "passkey-get", "passkey-remove",
            ] {
                #expect(words.contains(Substring(name)), "\(name) in \(help)")
                #expect(try entries(fixture, operation: name).allSatisfy { $0["operation"] as? String == name })
            }
            let service = try fixture.expect(["audit", "--app", "service", "--json"], status: 0)
            #expect(service.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")
        }
    }
}
