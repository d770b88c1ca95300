import Foundation
import Testing

@testable import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 25: two `swcred serve` instances on one PostgreSQL database, as a team runs them. Neither
/// caches what another may change: each request reads its token, its app, its verdict and its
/// credentials in one transaction of its own (read-through), so what one instance or the CLI
/// writes is what the other reads next; each instance holds its own key, so locking one leaves
/// the other serving.
@Suite("Two swcred serve instances on one PostgreSQL database")
struct ServiceSharedStoreTests {
    @Test(
        "add through one, request through the other; one locked, the other serves; a revoked token refused on the next request"
    )
    func twoInstances() async throws {
        let database = try TestPostgres.freshDatabase()
        try await GatedFixture.with(store: database) { gated in
            try await gated.withServices(["a", "b"]) { instances in
                let (a, b) = (instances[0].socketPath, instances[1].socketPath)
                let created = try gated.expect(["app", "token", "create", GatedFixture.app], status: 0)
                let token = created.stdout.trimmingCharacters(in: .newlines)
                let tokenID = String(created.stderr.split(separator: " ")[3])

                // Added through A, found through B on its next request.
                let credential: [String: Any] = [
                    "domain": "shop.example", "account": "alice", "password": "Shared-Pw-71",
                ]
                let saved = try UnixHTTP.request(a, "PUT", "/v1/credentials", token: token, json: credential)
                #expect(saved.status == 200, "\(saved.text)")
                let found = try UnixHTTP.request(
                    b, "POST", "/v1/credentials/request", token: token, json: ["domain": "shop.example"])
                #expect(found.status == 200 && found.text.contains("Shared-Pw-71"), "\(found.text)")
                // Changed through B, seen through A.
                let changed = try UnixHTTP.request(
                    b, "PUT", "/v1/credentials", token: token,
                    json: ["domain": "shop.example", "account": "alice", "password": "Shared-Pw-72"])
                #expect(changed.status == 200, "\(changed.text)")
                let seen = try UnixHTTP.request(
                    a, "POST", "/v1/credentials/request", token: token, json: ["domain": "shop.example"])
                #expect(seen.text.contains("Shared-Pw-72") && !seen.text.contains("Shared-Pw-71"), "\(seen.text)")

                // Locking A leaves B serving: each instance holds its own key.
                #expect(try UnixHTTP.request(a, "POST", "/v1/lock").status == 200)
                let lockedA = try UnixHTTP.request(
                    a, "POST", "/v1/credentials/request", token: token, json: ["domain": "shop.example"])
                #expect(lockedA.status == 423, "\(lockedA.text)")
                let stillB = try UnixHTTP.request(
                    b, "POST", "/v1/credentials/request", token: token, json: ["domain": "shop.example"])
                #expect(stillB.status == 200, "\(stillB.text)")

                // The token revoked (by the owner's CLI, a third client of the database): B refuses it
                // on the very next request, with no restart and no wait.
                try gated.expect(["app", "token", "revoke", tokenID], status: 0)
                let revoked = try UnixHTTP.request(
                    b, "POST", "/v1/credentials/request", token: token, json: ["domain": "shop.example"])
                #expect(revoked.status == 401, "\(revoked.text)")

                // Everything went to PostgreSQL: no vault file was ever made.
                #expect(!FileManager.default.fileExists(atPath: gated.vaultPath))

                // One audit chain for both instances and the CLI, linear and intact.
                let audit = try gated.expect(["audit", "verify"], status: 0)
                #expect(audit.stdout.contains("entries checked"), "\(audit.stdout)")
                let log = try gated.expect(["audit", "list", "--json"], status: 0)
                for password in ["Shared-Pw-71", "Shared-Pw-72"] {
                    #expect(!log.stdout.contains(password))
                    for instance in instances { #expect(!instance.log.contains(password)) }
                }
            }
        }
    }

    @Test(
        "requests of two instances commit while another client holds the writers' lock and vault_meta's row: each appends to a chain of its own, and verify checks both"
    )
    func requestsWriteNoSharedRow() async throws {
        let database = try TestPostgres.freshDatabase()
        try await GatedFixture.with(store: database) { gated in
            try await gated.withServices(["a", "b"]) { instances in
                let token = try gated.expect(["app", "token", "create", GatedFixture.app], status: 0).stdout
                    .trimmingCharacters(in: .newlines)
                let credential: [String: Any] = [
                    "domain": "shop.example", "account": "alice", "password": "Beside-Pw-31",
                ]
                let saved = try UnixHTTP.request(
                    instances[0].socketPath, "PUT", "/v1/credentials", token: token, json: credential)
                #expect(saved.status == 200, "\(saved.text)")
                // A client that holds every writer back: the writers' advisory lock (the one
                // PostgresStorage takes for a change) and vault_meta's row, for 5 seconds.
                let holder = BackgroundWork<String> {
                    try TestPostgres.psql(
                        database,
                        "BEGIN; SELECT pg_advisory_xact_lock(\(Self.writersLock)); SELECT 1 FROM vault_meta FOR UPDATE; SELECT pg_sleep(5); COMMIT;"
                    )
                }
                let held = "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted"
                while try TestPostgres.psql(database, held).trimmingCharacters(in: .whitespacesAndNewlines) != "1" {
                    try await Task.sleep(for: .milliseconds(20))
                }
                let started = ContinuousClock.now
                for instance in instances {
                    for _ in 0..<3 {
                        let found = try UnixHTTP.request(
                            instance.socketPath, "POST", "/v1/credentials/request", token: token,
                            json: ["domain": "shop.example"])
                        #expect(found.status == 200 && found.text.contains("Beside-Pw-31"), "\(found.text)")
                    }
                }
                let elapsed = ContinuousClock.now - started
                #expect(elapsed < .seconds(3), "six requests took \(elapsed) while the writers' lock was held")
                _ = try await holder.value

                #expect(try TestPostgres.psql(database, "SELECT count(*) FROM audit_chains").hasPrefix("2"))
                try gated.expect(["audit", "verify"], status: 0)
                let listed = try gated.expect(["audit", "--operation", "request", "--json"], status: 0)
                let entries = try #require(
                    try JSONSerialization.jsonObject(with: listed.stdoutData) as? [[String: Any]])
                #expect(entries.count == 6)
                #expect(Set(entries.compactMap { $0["chain"] as? String }).count == 2)
                // The listing names an instance chain's entry by its chain's first 8 hex digits.
                let listedAsText = try gated.expect(["audit", "--operation", "request"], status: 0).stdout
                    .split(separator: "\n")
                #expect(listedAsText.count == 6, "\(listedAsText)")
                for line in listedAsText {
                    #expect(line.range(of: "^[0-9a-f]{8}#[0-9]+\t", options: .regularExpression) != nil, "\(line)")
                }
            }
        }
    }

    /// PostgresStorage's writers' lock (`pg_advisory_xact_lock` key).
    private static let writersLock: Int64 = 0x7377_6372_6564_0001

    @Test(
        "of two instances, one at a time re-verifies: a slow site is fetched once per due verdict, not once per instance"
    )
    func oneReverifierAtATime() async throws {
        let database = try TestPostgres.freshDatabase()
        // shop.example takes 1.5 s to answer, so two rounds that overlap would both fetch it.
        try await GatedFixture.with(store: database, shopDelay: 1500) { gated in
            try await gated.withServices(["a", "b"], arguments: ["--reverify-every", "1s", "--recheck-after", "2s"]) {
                instances in
                // A verdict for shop.example, saved by an instance: due again 2 s after it (no
                // credential yet: 404).
                let token = try gated.expect(["app", "token", "create", GatedFixture.app], status: 0).stdout
                    .trimmingCharacters(in: .newlines)
                let first = try UnixHTTP.request(
                    instances[0].socketPath, "POST", "/v1/credentials/request", token: token,
                    json: ["domain": "shop.example"])
                #expect(first.status == 404, "\(first.text)")
                let started = ContinuousClock.now
                try await Task.sleep(for: .seconds(10))
                // Only the fetches made while both run count: stopping one mid-round ends its round
                // unsaved, and the other then rightly fetches at its next tick (seen in a loaded CI
                // run, 1.3 s after the last fetch, while the first instance was shutting down).
                let stopping = ContinuousClock.now
                for instance in instances { instance.stop() }

                // Each round fetches only after the last one saved its verdict and the verdict fell
                // due again (1.5 s fetch + 2 s): never two fetches within that of each other.
                let fetches = gated.shopFetches.all.filter { $0 > started && $0 < stopping }
                #expect(fetches.count >= 2, "background fetches: \(fetches.count)")
                let gaps = zip(fetches, fetches.dropFirst()).map { $1 - $0 }
                #expect(gaps.allSatisfy { $0 > .seconds(3) }, "gaps between fetches: \(gaps)")
                let rounds = instances.map { $0.log.components(separatedBy: "re-verified due associations").count - 1 }
                // The last fetch may still be under way when the instances stop.
                #expect(
                    rounds.reduce(0, +) >= fetches.count - 1, "rounds by instance: \(rounds), fetches: \(fetches.count)"
                )
            }
        }
    }
}
