import Foundation
import Testing

@testable import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 52: `swcred serve` killed between a release or a change and the commit of its audit
/// entry, on PostgreSQL, where another client's row lock holds the service's transaction at the
/// statement chosen: after a release's entry is written and before its chain's head moves, and
/// after a change is written and before it and its entry are sealed. Nothing is released or
/// changed unaudited, and `audit verify` finds the log intact. (On SQLite, where no statement can
/// be held, `ServiceConcurrencyTests` kills the service at random moments of its group commits.)
@Suite("swcred serve: killed between a release or a change and its audit entry")
struct ServiceAuditCrashTests {
    private static var credential: [String: Any] {
        [
            "domain": "shop.example", "account": "alice", "password": "Crash-Pw-53",
        ]
    }

    @Test("killed while a release's entry waits to move its chain's head: no password out, no entry, the log verifies")
    func killedBetweenEntryAndHead() async throws {
        let database = try TestPostgres.freshDatabase()
        try await GatedFixture.with(store: database) { gated in
            try await gated.withServices(["a"], arguments: Self.patient) { instances in
                let socket = instances[0].socketPath
                let token = try Self.ready(gated, socket: socket)
                let entries = try Self.count(database, "audit_chain_log")
                let outcome = try await Self.killed(
                    instances[0], database: database, holding: "audit_chains",
                    during: {
                        try? UnixHTTP.request(
                            socket, "POST", "/v1/credentials/request", token: token, json: ["domain": "shop.example"])
                    })
                #expect(outcome.map { !$0.text.contains("Crash-Pw-53") } ?? true, "released: \(outcome?.text ?? "")")
                #expect(try Self.count(database, "audit_chain_log") == entries)
                try gated.expect(["audit", "verify"], status: 0)
            }
        }
    }

    @Test("killed while a change waits to seal itself and its entry: nothing saved, no entry, the log verifies")
    func killedBetweenChangeAndSeal() async throws {
        let database = try TestPostgres.freshDatabase()
        try await GatedFixture.with(store: database) { gated in
            try await gated.withServices(["a"], arguments: Self.patient) { instances in
                let socket = instances[0].socketPath
                let token = try Self.ready(gated, socket: socket)
                let (entries, credentials) = (
                    try Self.count(database, "audit_log"), try Self.count(database, "credentials")
                )
                let outcome = try await Self.killed(
                    instances[0], database: database, holding: "vault_meta",
                    during: {
                        try? UnixHTTP.request(
                            socket, "PUT", "/v1/credentials", token: token,
                            json: ["domain": "shop.example", "account": "bob", "password": "Crash-Pw-54"])
                    })
                #expect(outcome?.status != 200, "acknowledged: \(outcome?.text ?? "")")
                #expect(try Self.count(database, "credentials") == credentials)
                #expect(try Self.count(database, "audit_log") == entries)
                try gated.expect(["audit", "verify"], status: 0)
                #expect(!(try gated.expect(["item", "list"], status: 0).stdout.contains("bob")))
            }
        }
    }

    /// The service waits for a lock as long as it may (600 s, not 10): the test must see it
    /// waiting, and on a loaded machine its looks at pg_stat_activity (a psql each) can take
    /// longer than the default wait, after which the service gives up and nothing waits any more.
    private static let patient = ["--busy-timeout", "600"]

    /// A token, alice's credential saved and requested once (the verdict stored, the service's
    /// chain begun); returns the token.
    private static func ready(_ gated: GatedFixture, socket: String) throws -> String {
        let token = try gated.expect(["app", "token", "create", GatedFixture.app], status: 0).stdout
            .trimmingCharacters(in: .newlines)
        #expect(try UnixHTTP.request(socket, "PUT", "/v1/credentials", token: token, json: credential).status == 200)
        let found = try UnixHTTP.request(
            socket, "POST", "/v1/credentials/request", token: token, json: ["domain": "shop.example"])
        #expect(found.status == 200 && found.text.contains("Crash-Pw-53"), "\(found.text)")
        return token
    }

    /// Holds every row of `table` locked from another connection (for as long as a loaded machine
    /// may take), sends `request` to `service`, waits until the service's transaction waits for
    /// that lock, kills the service, then lets the lock go and waits until the killed
    /// transaction is gone; returns what the client got.
    private static func killed(
        _ service: ServiceProcess, database: String, holding table: String,
        during request: @escaping @Sendable () -> UnixHTTP.Response?
    ) async throws -> UnixHTTP.Response? {
        let holder = BackgroundWork<String> {
            try TestPostgres.psql(database, "BEGIN; SELECT 1 FROM \(table) FOR UPDATE; SELECT pg_sleep(120); COMMIT;")
        }
        try await waitFor(database, "query LIKE 'BEGIN; SELECT 1 FROM \(table) FOR UPDATE%' AND state = 'active'")
        let pending = BackgroundWork<UnixHTTP.Response?> { request() }
        try await waitFor(database, "application_name = 'swcred' AND wait_event_type = 'Lock'")
        #expect(service.stop(signal: SIGKILL) == SIGKILL)
        let outcome = try await pending.value
        // The lock let go: the holder's sleep cancelled (its psql then fails, as it should).
        try TestPostgres.psql(
            database,
            "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'BEGIN; SELECT 1 FROM \(table) FOR UPDATE%'"
        )
        _ = try? await holder.value
        try await waitFor(database, "application_name = 'swcred' AND state <> 'idle'", until: { $0 == 0 })
        return outcome
    }

    /// Waits (at most 60 s: a loaded machine runs a hundred tests beside this one) until the
    /// number of other sessions of pg_stat_activity that match `condition` satisfies `enough`;
    /// if it never does, the error lists what the service's sessions were doing.
    private static func waitFor(
        _ database: String, _ condition: String, until enough: (Int) -> Bool = { $0 >= 1 }
    ) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        let others = "datname = current_database() AND pid <> pg_backend_pid()"
        let query = "SELECT count(*) FROM pg_stat_activity WHERE \(others) AND \(condition)"
        while !enough(try Self.integer(database, query)) {
            guard ContinuousClock.now < deadline else {
                let sessions = try? TestPostgres.psql(
                    database,
                    "SELECT application_name, state, wait_event_type, wait_event, left(query, 120) FROM pg_stat_activity WHERE \(others)"
                )
                throw FixtureError(message: "never: \(condition); the sessions were:\n\(sessions ?? "(unreadable)")")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    private static func count(_ database: String, _ table: String) throws -> Int {
        try integer(database, "SELECT count(*) FROM \(table)")
    }

    private static func integer(_ database: String, _ query: String) throws -> Int {
        Int(try TestPostgres.psql(database, query).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }
}
