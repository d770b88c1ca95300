import Foundation
import TestSupport
import Testing

/// `GET /metrics`: Prometheus text with requests, latency, the gate's decisions, verifications
/// and the lock state, and nothing a client sent (token, account, password, domain, raw path).
@Suite("swcred serve: metrics in Prometheus text", .serialized)
struct ServiceMetricsTests {
    /// The value of the sample `name{labels}` in `text`, or nil when there is none.
    static func sample(_ text: String, _ name: String, _ labels: String = "") -> Double? {
        let key = labels.isEmpty ? name : "\(name){\(labels)}"
        for line in text.split(separator: "\n") where line.hasPrefix(key + " ") {
            return Double(line.dropFirst(key.count + 1))
        }
        return nil
    }

    @Test("requests by route and status, latency, gate decisions, verifications, lock state; no client text")
    func countsWithoutSecrets() async throws {
        try await ServiceFixture.with { fixture in
            try fixture.start()
            let token = try fixture.token()
            let password = "Metrics-distinctive-Pw-4411"
            let account = "metrics-account@example.com"
            let saved = try fixture.call(
                "PUT", "/v1/credentials", token: token,
                json: ["domain": "shop.example", "account": account, "password": password])
            #expect(saved.status == 200, "\(saved.text)")
            for domain in ["shop.example", "other.example", "elsewhere.example"] {
                _ = try fixture.call("POST", "/v1/credentials/request", token: token, json: ["domain": domain])
            }
            _ = try fixture.call("POST", "/v1/credentials/request", token: "swcred_wrong", json: [:])
            _ = try fixture.call("GET", "/no-such-route/\(account)")

            let metrics = try fixture.call("GET", "/metrics")
            #expect(metrics.status == 200)
            let text = metrics.text
            let request = #"route="/v1/credentials/request",method="POST""#
            #expect(Self.sample(text, "swcred_http_requests_total", request + #",status="200""#) == 1)
            #expect(Self.sample(text, "swcred_http_requests_total", request + #",status="403""#) == 2)
            #expect(Self.sample(text, "swcred_http_requests_total", request + #",status="401""#) == 1)
            #expect(
                Self.sample(text, "swcred_http_requests_total", #"route="NotFound",method="GET",status="404""#) == 1)
            #expect(
                Self.sample(text, "swcred_http_request_duration_seconds_count", #"route="/v1/credentials/request""#)
                    == 4)
            // The latency buckets docs/service.md lists: dashboards add up the histograms of
            // several instances, which only works while every instance has the same bounds.
            let bounds = text.split(separator: "\n").compactMap { line -> String? in
                let prefix = #"swcred_http_request_duration_seconds_bucket{route="/v1/credentials",le=""#
                guard line.hasPrefix(prefix) else { return nil }
                return String(line.dropFirst(prefix.count).prefix { $0 != "\"" })
            }
            #expect(
                bounds == [
                    "0.0001", "0.00025", "0.0005", "0.001", "0.0025", "0.005", "0.01", "0.025", "0.05", "0.1", "0.25",
                    "0.5", "1.0", "2.5", "5.0", "10.0", "+Inf",
                ], "\(bounds)")
            let gate = "swcred_gate_decisions_total"
            #expect(Self.sample(text, gate, #"operation="save",outcome="allowed""#) == 1)
            #expect(Self.sample(text, gate, #"operation="request",outcome="allowed""#) == 1)
            #expect(Self.sample(text, gate, #"operation="request",outcome="not-approved""#) == 1)
            #expect(Self.sample(text, gate, #"operation="request",outcome="missing-entitlement""#) == 1)
            #expect(Self.sample(text, "swcred_verifications_total", #"verdict="approved",trigger="inline""#) == 1)
            #expect(Self.sample(text, "swcred_verifications_total", #"verdict="denied",trigger="inline""#) == 1)
            #expect(Self.sample(text, "swcred_vault_locked") == 0)
            for secret in [token, password, account, "shop.example", "other.example", "no-such-route"] {
                #expect(!text.contains(secret), "the metrics never carry \(secret.prefix(8))…")
            }

            _ = try fixture.call("POST", "/v1/lock")
            #expect(Self.sample(try fixture.call("GET", "/metrics").text, "swcred_vault_locked") == 1)
            let log = try fixture.running.log
            for secret in [token, password, account] {
                #expect(!log.contains(secret), "the service log never carries \(secret.prefix(8))…")
            }
        }
    }

    @Test(
        "a password request is one read transaction of the vault's database, and so is the verdicts route; the metrics show it"
    )
    func oneReadPerRequest() async throws {
        try await ServiceFixture.with { fixture in
            try fixture.start()
            let token = try fixture.token()
            let saved = try fixture.call(
                "PUT", "/v1/credentials", token: token,
                json: ["domain": "shop.example", "account": "reads@example.com", "password": "Reads-Pw-5512"])
            #expect(saved.status == 200, "\(saved.text)")
            func transactions() throws -> (reads: Double, writes: Double) {
                let text = try fixture.call("GET", "/metrics").text
                return (
                    try #require(Self.sample(text, "swcred_store_read_transactions"), "\(text)"),
                    try #require(Self.sample(text, "swcred_store_write_transactions"), "\(text)")
                )
            }
            func cost(_ body: () throws -> Void) throws -> (reads: Double, writes: Double) {
                let before = try transactions()
                try body()
                let after = try transactions()
                return (after.reads - before.reads, after.writes - before.writes)
            }
            let requests = try cost {
                for _ in 0..<20 {
                    let answer = try fixture.call(
                        "POST", "/v1/credentials/request", token: token, json: ["domain": "shop.example"])
                    #expect(answer.status == 200, "\(answer.text)")
                }
            }
            #expect(requests.reads == 20, "one read per request: \(requests)")
            #expect(requests.writes <= 20, "at most one write per request, its audit entry: \(requests)")
            let verdicts = try cost {
                for _ in 0..<10 {
                    let answer = try fixture.call("GET", "/v1/associations", token: token)
                    #expect(answer.status == 200, "\(answer.text)")
                }
            }
            #expect(verdicts.reads == 10, "one read per verdicts request: \(verdicts)")
            #expect(verdicts.writes == 0, "\(verdicts)")
            let locked = try fixture.call("POST", "/v1/lock")
            #expect(locked.status == 200, "\(locked.text)")
            let whileLocked = try transactions()
            #expect(whileLocked.reads == 0 && whileLocked.writes == 0, "nothing counted while locked: \(whileLocked)")
        }
    }
}
