import Foundation
import TestSupport
import Testing

/// The background re-verifier refreshes due verdicts with no request in flight.
@Suite("swcred serve: background re-verification", .serialized)
struct ServiceReverifierTests {
    @Test("a verdict that falls due is checked again in the background")
    func refreshesDueVerdict() async throws {
        try await ServiceFixture.with { fixture in
            try fixture.start(["--reverify-every", "1s", "--recheck-after", "2s"])
            let token = try fixture.token()
            #expect(
                try fixture.call("POST", "/v1/credentials/request", token: token, json: ["domain": "shop.example"])
                    .status
                    == 404)
            func shopCheckedAt() throws -> String? {
                let rows = try fixture.call("GET", "/v1/associations", token: token).json as? [[String: Any]]
                return rows?.first { $0["domain"] as? String == "shop.example" }?["checked_at"] as? String
            }
            let first = try #require(try shopCheckedAt())
            try await Task.sleep(for: .seconds(6))
            let second = try #require(try shopCheckedAt())
            #expect(second > first, "re-checked in the background: \(first) then \(second)")
            #expect(try fixture.running.log.contains("re-verified due associations"))
        }
    }
}
