import Foundation
import TestSupport
import Testing

/// Tokens made with `--consent ask`: changes and releases wait for the owner.
@Suite("swcred serve: consent for --consent ask tokens", .serialized)
struct ServiceConsentTests {
    /// A save through the service, in the background: it waits while the owner is asked.
    private func save(_ fixture: ServiceFixture, token: String, account: String) -> BackgroundWork<UnixHTTP.Response> {
        let socket = fixture.socketPath
        return BackgroundWork {
            try UnixHTTP.request(
                socket, "PUT", "/v1/credentials", token: token,
                json: ["domain": "shop.example", "account": account, "password": "Pw-\(account)-1"])
        }
    }

    @Test("approved, declined and timed out; the owner sees app, operation, domain and account")
    func approvedDeclinedTimedOut() async throws {
        try await ServiceFixture.with { fixture in
            try fixture.start(["--consent-timeout", "3s"])
            let token = try fixture.token(["--consent", "ask"])
            let owner = try fixture.ownerSession()
            func answer(_ approve: Bool, expect account: String) throws {
                let next = try fixture.call("GET", "/v1/consent/next?wait=10", token: owner)
                #expect(next.status == 200, "\(next.text)")
                let pending = try #require(next.json as? [String: Any])
                #expect(pending["app"] as? String == GatedFixture.app)
                #expect(pending["operation"] as? String == "add")
                #expect(pending["domain"] as? String == "shop.example")
                #expect(pending["account"] as? String == account)
                let id = try #require(pending["id"] as? String)
                let answered = try fixture.call(
                    "POST", "/v1/consent/answer", token: owner, json: ["id": id, "approve": approve])
                #expect(answered.status == 200)
            }

            let approved = save(fixture, token: token, account: "approved-account")
            try answer(true, expect: "approved-account")
            #expect(try await approved.value.status == 200)

            let declined = save(fixture, token: token, account: "declined-account")
            try answer(false, expect: "declined-account")
            let refusal = try await declined.value
            #expect(refusal.status == 403)
            #expect(refusal.errorCode == "declined")

            let start = ContinuousClock.now
            let timedOut = try await save(fixture, token: token, account: "timed-out-account").value
            #expect(timedOut.status == 403)
            #expect(timedOut.errorCode == "declined")
            #expect(ContinuousClock.now - start >= .seconds(3))
            #expect(
                try fixture.call("GET", "/v1/consent/next", token: owner).status == 204, "nothing left waiting")

            let released = try fixture.gated.expect(
                ["request", "--app", GatedFixture.app, "--domain", "shop.example", "--all"], status: 0, network: true)
            #expect(released.stdout == "shop.example\tapproved-account\tPw-approved-account-1\n")
            let stale = try fixture.call(
                "POST", "/v1/consent/answer", token: owner, json: ["id": "no-such-request", "approve": true])
            #expect(stale.status == 404)
            let log = try fixture.running.log
            #expect(!log.contains("approved-account") && !log.contains("declined-account"))
        }
    }

    @Test("swcred consent on a terminal: shows the request, a yes lets it through, a no declines it")
    func consentOnTerminal() async throws {
        try await ServiceFixture.with { fixture in
            try fixture.start(["--consent-timeout", "30s"])
            let token = try fixture.token(["--consent", "ask"])
            for (account, key, status) in [("tty-yes", "y", 200), ("tty-no", "n", 403)] {
                let pending = save(fixture, token: token, account: account)
                let terminal = try TerminalSession(
                    executable: SwcredProcess.executableURL.path,
                    arguments: ["consent", "--once", "--socket", fixture.socketPath],
                    environment: fixture.gated.environment)
                let screen = try terminal.waitFor(
                    "\(GatedFixture.app) wants to add for \"\(account)\" on shop.example. Allow? [y/N]")
                #expect(!screen.contains("Pw-\(account)-1"), "the owner is never shown the password")
                try terminal.type(key, "Enter")
                #expect(try terminal.exitStatus() == 0)
                #expect(try terminal.screen().contains(key == "y" ? "swcred: approved" : "swcred: declined"))
                let answered = try await pending.value
                #expect(answered.status == status, "\(account): \(answered.text)")
            }
            let released = try fixture.gated.expect(
                ["request", "--app", GatedFixture.app, "--domain", "shop.example", "--all"], status: 0, network: true)
            #expect(released.stdout == "shop.example\ttty-yes\tPw-tty-yes-1\n")
        }
    }
}
