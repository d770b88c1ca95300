import Foundation
import TestSupport
import Testing

/// The audit log sees the service's boundary (issue 28): consent decisions with who answered,
/// unlocks and their failures, and locks.
@Suite("swcred serve: consent, unlock and lock in the audit log", .serialized)
struct ServiceAuditTests {
    private func entries(_ fixture: ServiceFixture, operation: String) throws -> [[String: Any]] {
        let listed = try fixture.gated.expect(["audit", "--operation", operation, "--json"], status: 0)
        return try #require(try JSONSerialization.jsonObject(with: listed.stdoutData) as? [[String: Any]])
    }

    @Test("approved, declined and timed-out consent, a failed and a good unlock, and a lock are recorded")
    func boundaryIsAudited() async throws {
        try await ServiceFixture.with { fixture in
            try fixture.start(["--consent-timeout", "2s"])
            let token = try fixture.token(["--consent", "ask"])
            let owner = try fixture.ownerSession()
            let socket = fixture.socketPath
            func save(_ account: String) -> BackgroundWork<UnixHTTP.Response> {
                BackgroundWork {
                    try UnixHTTP.request(
                        socket, "PUT", "/v1/credentials", token: token,
                        json: ["domain": "shop.example", "account": account, "password": "Pw-\(account)-1"])
                }
            }
            for (account, approve) in [("approved-account", true), ("declined-account", false)] {
                let pending = save(account)
                let next = try fixture.call("GET", "/v1/consent/next?wait=10", token: owner)
                let id = try #require((next.json as? [String: Any])?["id"] as? String)
                #expect(
                    try fixture.call("POST", "/v1/consent/answer", token: owner, json: ["id": id, "approve": approve])
                        .status == 200)
                #expect(try await pending.value.status == (approve ? 200 : 403))
            }
            #expect(try await save("timed-out-account").value.status == 403)

            #expect(try fixture.call("POST", "/v1/lock").status == 200)
            #expect(try fixture.call("POST", "/v1/unlock", json: ["passphrase": "a wrong guess"]).status == 423)
            #expect(
                try fixture.call("POST", "/v1/unlock", json: ["passphrase": fixture.gated.passphrase]).status == 200)

            let approved = try entries(fixture, operation: "consent-approve")
            #expect(approved.count == 1)
            #expect(approved.first?["actor"] as? String == "owner")
            #expect(approved.first?["app"] as? String == GatedFixture.app)
            #expect(approved.first?["account"] as? String == "approved-account")
            let answeredBy = try #require(approved.first?["detail"] as? String)
            #expect(answeredBy.hasPrefix("add approved from an owner session, pid "), "\(answeredBy)")
            let declined = try entries(fixture, operation: "consent-decline")
            #expect(declined.count == 1 && declined.first?["account"] as? String == "declined-account")
            let timedOut = try entries(fixture, operation: "consent-timeout")
            #expect(timedOut.count == 1 && timedOut.first?["actor"] as? String == "service")
            #expect(timedOut.first?["account"] as? String == "timed-out-account")

            #expect(try entries(fixture, operation: "lock").count == 1)
            let failed = try entries(fixture, operation: "unlock-failed")
            #expect(failed.count == 1, "recorded at the next unlock: \(failed)")
            #expect(failed.first?["outcome"] as? String == "refused")
            let unlocked = try entries(fixture, operation: "unlock")
            #expect((unlocked.first?["detail"] as? String)?.hasSuffix("after 1 failed attempts") == true)
            let all = try fixture.gated.expect(["audit", "--json"], status: 0).stdout
            #expect(!all.contains("a wrong guess") && !all.contains("Pw-approved-account-1"))
            try fixture.gated.expect(["audit", "verify"], status: 0)
        }
    }

    @Test("a release waits for consent before it is recorded as released")
    func releaseRecordedAfterConsent() async throws {
        try await ServiceFixture.with { fixture in
            try fixture.start(["--consent-timeout", "2s"])
            let saver = try fixture.token()
            #expect(
                try fixture.call(
                    "PUT", "/v1/credentials", token: saver,
                    json: ["domain": "shop.example", "account": "alice", "password": "Pw-alice-1"]
                ).status == 200)
            let asking = try fixture.token(["--consent", "ask"])
            let refused = try fixture.call(
                "POST", "/v1/credentials/request", token: asking, json: ["domain": "shop.example"])
            #expect(refused.status == 403 && refused.errorCode == "declined")
            let requests = try entries(fixture, operation: "request")
            #expect(requests.count == 1, "\(requests)")
            #expect(requests.first?["outcome"] as? String == "refused", "nothing was released: \(requests)")
            #expect((requests.first?["released"] as? [Any])?.isEmpty ?? true)
        }
    }
}
