import Foundation
import TestSupport
import Testing

/// An Android app through `swcred serve`: its token, the same gate, the same HTTP statuses.
@Suite("swcred serve: an Android app", .serialized)
struct ServiceAndroidTests {
    static let app = GatedFixture.androidApp

    @Test("an Android app's token adds and requests for an approved site and is refused for its sibling's")
    func androidThroughService() async throws {
        try await ServiceFixture.with { fixture in
            try AndroidGatedCommandTests.register(fixture.gated)
            try fixture.start()
            let token = try fixture.token(app: Self.app)
            let added = try fixture.runThroughService(
                [
                    "add", "--app", Self.app, "--domain", "shop.example", "--account", "alice", "--password-stdin",
                    "--yes",
                ],
                token: token, stdin: "Android-Service-Pw-1")
            #expect(added.status == 0, "\(added.stderr)")
            let released = try fixture.runThroughService(
                ["request", "--app", Self.app, "--domain", "shop.example"], token: token)
            #expect(released.stdout == "shop.example\talice\tAndroid-Service-Pw-1\n", "\(released.stderr)")

            let refused = try fixture.runThroughService(
                ["request", "--app", Self.app, "--domain", "other.example"], token: token)
            #expect(refused.status == 4)
            let response = try fixture.call(
                "POST", "/v1/credentials/request", token: token, json: ["domain": "other.example"])
            #expect(response.status == 403)
            #expect(response.errorCode == "not-approved")

            // The Apple app's token is another app's: it does not act for the Android app.
            let appleToken = try fixture.token(app: GatedFixture.app)
            let crossed = try fixture.runThroughService(
                ["request", "--app", Self.app, "--domain", "shop.example"], token: appleToken)
            #expect(crossed.status == 7, "\(crossed.stderr)")
            #expect(crossed.stderr.contains("belongs to \(GatedFixture.app), not to \(Self.app)"))
            #expect(!crossed.stdout.contains("Android-Service-Pw-1"))
        }
    }
}
