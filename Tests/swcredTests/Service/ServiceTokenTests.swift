import Foundation
import TestSupport
import Testing

/// App tokens at the service: each failure with its status, and exit 7 through the CLI.
@Suite("swcred serve: app tokens", .serialized)
struct ServiceTokenTests {
    static let app = GatedFixture.app

    @Test("missing, malformed, wrong, revoked, expired and another app's tokens get 401; an ungranted permission 403")
    func tokenFailures() async throws {
        try await ServiceFixture.with { fixture in
            try fixture.start()
            let good = try fixture.token()
            let (revoked, revokedID) = try fixture.tokenWithID()
            try fixture.gated.expect(["app", "token", "revoke", revokedID], status: 0)
            let expiring = try fixture.token(["--expires", "1s"])
            let requestOnly = try fixture.token(["--allow", "request"])
            let otherApps = try fixture.token(app: GatedFixture.otherApp)
            let wrong = "swcred_" + String(repeating: "A", count: 43)
            try await Task.sleep(for: .milliseconds(1100))

            let body: [String: Any] = ["app": Self.app, "domain": "shop.example"]
            let cases: [(String?, String, Int, String)] = [
                (nil, "missing", 401, "no app token"),
                ("not-a-token", "malformed", 401, "malformed"),
                ("", "empty", 401, "not a bearer token"),
                (wrong, "wrong", 401, "not valid"),
                (revoked, "revoked", 401, "not valid"),
                (expiring, "expired", 401, "expired"),
                (otherApps, "another app's", 401, "belongs to \(GatedFixture.otherApp)"),
            ]
            for (token, name, status, message) in cases {
                let response = try fixture.call("POST", "/v1/credentials/request", token: token, json: body)
                #expect(response.status == status, "\(name): \(response.text)")
                #expect(response.errorCode == "invalid-token", "\(name)")
                #expect(response.text.contains(message), "\(name): \(response.text)")
                #expect(response.headers["www-authenticate"] == "Bearer")
                if let token, !token.isEmpty {
                    #expect(!response.text.contains(token), "the error never echoes the token")
                }
            }
            let denied = try fixture.call(
                "PUT", "/v1/credentials", token: requestOnly,
                json: ["domain": "shop.example", "account": "a", "password": "Pw-123456"])
            #expect(denied.status == 403)
            #expect(denied.errorCode == "permission-denied")
            #expect(try fixture.call("POST", "/v1/credentials/request", token: good, json: body).status == 404)

            for token in [wrong, revoked, expiring] {
                let cli = try fixture.runThroughService(
                    ["request", "--app", Self.app, "--domain", "shop.example"], token: token)
                #expect(cli.status == 7, "\(cli.stderr)")
            }
            let mismatch = try fixture.runThroughService(
                ["request", "--app", Self.app, "--domain", "shop.example"], token: otherApps)
            #expect(mismatch.status == 7)
            #expect(mismatch.stderr.contains("belongs to \(GatedFixture.otherApp)"))
            let noToken = try SwcredProcess.run(
                ["request", "--app", Self.app, "--domain", "shop.example"],
                environment: ["SWCRED_SERVER": fixture.socketPath])
            #expect(noToken.status == 7)
            #expect(noToken.stderr.contains("No app token for the service"))
            let ungranted = try fixture.runThroughService(
                ["delete", "--app", Self.app, "--domain", "shop.example", "--account", "a", "--yes"], token: requestOnly
            )
            #expect(ungranted.status == 3)
            #expect(ungranted.stderr.contains("not allowed to delete"))

            let log = try fixture.running.log
            for token in [good, revoked, expiring, requestOnly, otherApps, wrong] { #expect(!log.contains(token)) }
        }
    }

    @Test("the token comes from --token-file; with no service running the CLI exits 7 and says so")
    func tokenFileAndNoService() async throws {
        try await ServiceFixture.with { fixture in
            try fixture.start()
            let token = try fixture.token()
            let tokenFile = try fixture.gated.directory.writePrivateFile("token", token + "\n")
            let viaFile = try SwcredProcess.run(
                [
                    "request", "--app", Self.app, "--domain", "shop.example", "--server", fixture.socketPath,
                    "--token-file",
                    tokenFile,
                ])
            #expect(viaFile.status == 5, "\(viaFile.stderr)")
            try fixture.running.stop()
            let gone = try fixture.runThroughService(
                ["request", "--app", Self.app, "--domain", "shop.example"], token: token)
            #expect(gone.status == 7)
            #expect(gone.stderr.contains("no swcred service answers at \(fixture.socketPath)"))
            let plaintext = try fixture.runThroughService(
                ["request", "--app", Self.app, "--domain", "shop.example", "--server", "http://127.0.0.1:1"],
                token: token)
            #expect(plaintext.status == 2)
            #expect(plaintext.stderr.contains("no plaintext TCP"))
        }
    }
}
