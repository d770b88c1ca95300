import Foundation
import Synchronization
import Testing

@testable import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 25: `swcred serve` on PostgreSQL when things fail under load. The server stopped and
/// started: requests in flight fail with 503, `Retry-After` and `storage-failure` (exit 13 on the
/// CLI), nothing is half-written, and the service serves again without a restart. One of two
/// instances SIGKILLed: the other keeps serving, and every write a client was told is saved is
/// there, counted.
@Suite("swcred serve on PostgreSQL: the server restarted, an instance killed")
struct ServiceStoreFailureTests {
    static let domain = "shop.example"

    /// Where a load test is, shared by its clients and the test.
    final class Phase: Sendable {
        private let value = Atomic<Int>(0)
        private let served = Mutex<[Int: Set<String>]>([:])
        var current: Int { value.load(ordering: .acquiring) }
        func advance(to phase: Int) { value.store(phase, ordering: .releasing) }
        /// Notes that `client` was answered 200 to a request sent in `phase`.
        func noteServed(_ client: String, in phase: Int) {
            _ = served.withLock { $0[phase, default: []].insert(client) }
        }
        /// How many clients were answered 200 to a request sent in `phase`.
        func servedCount(in phase: Int) -> Int { served.withLock { $0[phase]?.count ?? 0 } }
    }

    /// What one load client saw: each answer's status, error code and `Retry-After`, in order, and
    /// the accounts whose saves were acknowledged.
    struct ClientLog: Sendable {
        var answers: [(status: Int, code: String?, retryAfter: String?, phase: Int)] = []
        /// The bodies of the answers that were neither 200 nor 503, for the failure's message.
        var unexpected: [String] = []
        var acknowledged: [String: String] = [:]
        var transportFailures = 0
    }

    /// A client that saves a new account (`writer`) or requests the domain in a loop until `phase`
    /// reaches `stopPhase`, tagging each answer with the phase it was sent in.
    private static func client(
        socket: String, token: String, name: String, writer: Bool, phase: Phase, stopPhase: Int
    ) -> BackgroundWork<ClientLog> {
        BackgroundWork {
            var log = ClientLog()
            var next = 0
            while true {
                let sentIn = phase.current
                guard sentIn < stopPhase else { return log }
                let account = "\(name)-\(next)"
                let password = "Pw-\(name)-\(next)"
                let json: [String: Any] =
                    writer
                    ? ["domain": domain, "account": account, "password": password] : ["domain": domain]
                guard
                    let response = try? UnixHTTP.request(
                        socket, writer ? "PUT" : "POST", writer ? "/v1/credentials" : "/v1/credentials/request",
                        token: token, json: json)
                else {
                    log.transportFailures += 1
                    usleep(50_000)
                    continue
                }
                log.answers.append((response.status, response.errorCode, response.headers["retry-after"], sentIn))
                if response.status != 200, response.status != 503 {
                    log.unexpected.append("\(response.status) \(response.text)")
                }
                if response.status == 200 { phase.noteServed(name, in: sentIn) }
                if writer, response.status == 200 {
                    log.acknowledged[account] = password
                    next += 1
                }
                if response.status != 200 { usleep(100_000) }
            }
        }
    }

    /// A new token of the fixture's app that may request and add.
    private static func token(_ gated: GatedFixture) throws -> String {
        try gated.expect(["app", "token", "create", GatedFixture.app, "--allow", "request,add"], status: 0)
            .stdout.trimmingCharacters(in: .newlines)
    }

    /// Every credential the vault holds, account to password, as the owner's CLI exports them.
    private static func saved(_ gated: GatedFixture) throws -> [String: String] {
        let exported = try gated.expect(["export", "--format", "apple-csv", "--output", "-", "--yes"], status: 0)
        // Apple's CSV ends its lines with CRLF; no value here needs quoting.
        var lines = exported.stdout.components(separatedBy: "\r\n").filter { !$0.isEmpty }.map {
            $0.split(separator: ",", omittingEmptySubsequences: false)
        }
        let header = lines.removeFirst()
        let account = try #require(header.firstIndex(of: "Username"))
        let password = try #require(header.firstIndex(of: "Password"))
        return Dictionary(lines.map { (String($0[account]), String($0[password])) }) { first, _ in first }
    }

    @Test(
        "PostgreSQL stopped and started under load: 503 with Retry-After and exit 13 while it is down, nothing half-written, served again without a restart"
    )
    func serverRestartedUnderLoad() async throws {
        let cluster = try TestPostgres.PrivateCluster()
        defer { cluster.stop() }
        let database = try TestPostgres.freshDatabase(on: cluster.url)
        try await GatedFixture.with(store: database) { gated in
            let service = try ServiceProcess.start(
                socketPath: gated.directory.path("run/swcred.sock"),
                arguments: gated.networkArguments + ["--busy-timeout", "30"],
                environment: gated.environment, logPath: gated.directory.path("service.log"))
            defer { _ = service.stop(timeout: 10) }
            let token = try Self.token(gated)
            let first = try UnixHTTP.request(
                service.socketPath, "PUT", "/v1/credentials", token: token,
                json: ["domain": Self.domain, "account": "before", "password": "Pw-before"])
            #expect(first.status == 200, "\(first.text)")

            // Phase 0: serving; 1: the server is down; 2: it is back; 3: the clients stop.
            let phase = Phase()
            let clients = (0..<4).map { index in
                Self.client(
                    socket: service.socketPath, token: token, name: "c\(index)", writer: index < 2, phase: phase,
                    stopPhase: 3)
            }
            try await Task.sleep(for: .milliseconds(700))
            phase.advance(to: 1)
            try cluster.halt()
            try await Task.sleep(for: .milliseconds(800))

            // The owner's CLI, while the server is down: exit 13 naming the store, both directly
            // and through the service.
            let direct = try gated.run(["item", "list"])
            #expect(direct.status == 13, "\(direct.stderr)")
            #expect(direct.stderr.contains("cannot be used; nothing was changed"), "\(direct.stderr)")
            let tokenFile = try gated.directory.writePrivateFile("token", token)
            let through = try gated.run(
                ["request", "--server", service.socketPath, "--token-file", tokenFile, "--domain", Self.domain])
            #expect(through.status == 13, "\(through.status): \(through.stderr)")

            try cluster.start()
            phase.advance(to: 2)
            // Every client served again, by the same process, soon: a statement left pending on a
            // connection the server ended fails when the connection is seen closed, not after its
            // answer timeout (--busy-timeout 30 plus 5 s, far beyond what load makes of the rest).
            let restarted = ContinuousClock.now
            while phase.servedCount(in: 2) < clients.count, ContinuousClock.now < restarted + .seconds(60) {
                try await Task.sleep(for: .milliseconds(100))
            }
            let recovery = ContinuousClock.now - restarted
            phase.advance(to: 3)
            var logs: [ClientLog] = []
            for client in clients { logs.append(try await client.value) }

            let answers = logs.flatMap(\.answers)
            let unavailable = answers.filter { $0.status == 503 }
            #expect(
                Set(answers.map(\.status)).isSubset(of: [200, 503]),
                "\(logs.flatMap(\.unexpected)); the service's errors: \(service.log.split(separator: "\n").filter { $0.contains("error") })"
            )
            #expect(!unavailable.isEmpty, "no request failed while the server was down")
            #expect(unavailable.allSatisfy { $0.code == "storage-failure" && $0.retryAfter == "1" })
            #expect(logs.map(\.transportFailures).reduce(0, +) == 0)
            // Every client was served again after the restart, by the same service process.
            for (index, log) in logs.enumerated() {
                #expect(
                    log.answers.contains { $0.phase == 2 && $0.status == 200 },
                    "client \(index): \(log.answers.suffix(3)); service log: \(service.log.suffix(3000))")
            }
            #expect(service.process.isRunning)
            #expect(recovery < .seconds(25), "every client served again after \(recovery)")

            // Nothing half-written: every acknowledged save is there, the records match their
            // commitment and the audit chain verifies.
            let saved = try Self.saved(gated)
            let acknowledged = logs.reduce(into: ["before": "Pw-before"]) { $0.merge($1.acknowledged) { a, _ in a } }
            let lost = acknowledged.filter { saved[$0.key] != $0.value }
            #expect(lost.isEmpty, "acknowledged but lost: \(lost.keys.sorted())")
            #expect(acknowledged.count > 4, "acknowledged saves: \(acknowledged.count)")
            try gated.expect(["status", "--verify"], status: 0)
            try gated.expect(["audit", "verify"], status: 0)
            #expect(!service.log.contains("Pw-"))
        }
    }

    @Test("one of two instances SIGKILLed under load: the other keeps serving, and no acknowledged save is lost")
    func instanceKilledUnderLoad() async throws {
        let database = try TestPostgres.freshDatabase()
        try await GatedFixture.with(store: database) { gated in
            try await gated.withServices(["a", "b"]) { instances in
                let token = try Self.token(gated)
                let first = try UnixHTTP.request(
                    instances[1].socketPath, "PUT", "/v1/credentials", token: token,
                    json: ["domain": Self.domain, "account": "before", "password": "Pw-before"])
                #expect(first.status == 200, "\(first.text)")

                // Phase 0: both serve; 1: A is killed; its clients stop at 1, B's at 2.
                let phase = Phase()
                let onA = (0..<3).map { index in
                    Self.client(
                        socket: instances[0].socketPath, token: token, name: "a\(index)", writer: true, phase: phase,
                        stopPhase: 1)
                }
                let onB = (0..<3).map { index in
                    Self.client(
                        socket: instances[1].socketPath, token: token, name: "b\(index)", writer: index < 2,
                        phase: phase,
                        stopPhase: 2)
                }
                try await Task.sleep(for: .milliseconds(Int.random(in: 1000...1600)))
                #expect(instances[0].stop(signal: SIGKILL) == SIGKILL)
                phase.advance(to: 1)
                try await Task.sleep(for: .milliseconds(800))
                phase.advance(to: 2)
                var logsA: [ClientLog] = []
                var logsB: [ClientLog] = []
                for client in onA { logsA.append(try await client.value) }
                for client in onB { logsB.append(try await client.value) }

                // B answered everything, before and after A died.
                let answersB = logsB.flatMap(\.answers)
                #expect(
                    answersB.allSatisfy { $0.status == 200 }, "\(answersB.filter { $0.status != 200 }.map(\.status))")
                #expect(answersB.contains { $0.phase == 1 }, "B was not asked after A was killed")
                #expect(logsB.map(\.transportFailures).reduce(0, +) == 0)

                // Every save either instance acknowledged is there, counted.
                let acknowledged = (logsA + logsB).reduce(into: ["before": "Pw-before"]) {
                    $0.merge($1.acknowledged) { a, _ in a }
                }
                let saved = try Self.saved(gated)
                let lost = acknowledged.filter { saved[$0.key] != $0.value }
                #expect(lost.isEmpty, "acknowledged but lost: \(lost.keys.sorted())")
                let throughA = logsA.map(\.acknowledged.count).reduce(0, +)
                #expect(
                    throughA > 3 && acknowledged.count > throughA,
                    "acknowledged: \(throughA) through A, \(acknowledged.count) in all")
                try gated.expect(["status", "--verify"], status: 0)
                try gated.expect(["audit", "verify"], status: 0)
            }
        }
    }
    @Test(
        "a server error met while a first read is done ahead with the token (no SELECT on credentials, then on passkeys) is 503 storage-failure naming the cause, not 500"
    )
    func serverErrorInPrefetchedRead() async throws {
        let database = try TestPostgres.freshDatabase()
        try await GatedFixture.with(store: database) { gated in
            // The service logs in as a role of its own; the cluster's role, a superuser, would
            // pass every permission check.
            var components = try #require(URLComponents(string: database))
            let role = "service_" + components.path.suffix(12)
            try TestPostgres.psql(
                database,
                """
                CREATE ROLE \(role) LOGIN;
                GRANT CREATE ON DATABASE \(components.path.dropFirst()) TO \(role);
                GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO \(role);
                """)
            components.user = role
            let restricted = try #require(components.string)
            var environment = gated.environment
            environment["SWCRED_STORE"] = restricted
            let service = try ServiceProcess.start(
                socketPath: gated.directory.path("run/swcred.sock"), arguments: gated.networkArguments,
                environment: environment, logPath: gated.directory.path("service.log"))
            defer { _ = service.stop(timeout: 10) }
            let token = try Self.token(gated)
            let saved = try UnixHTTP.request(
                service.socketPath, "PUT", "/v1/credentials", token: token,
                json: ["domain": Self.domain, "account": "ann", "password": "Pw-ann"])
            #expect(saved.status == 200, "\(saved.text)")

            // The approved verdict is stored: the token's read transaction reads the app, the
            // verdict and then the credentials, which the role may no longer read.
            try TestPostgres.psql(database, "REVOKE SELECT ON credentials FROM \(role)")
            let refused = try UnixHTTP.request(
                service.socketPath, "POST", "/v1/credentials/request", token: token, json: ["domain": Self.domain])
            #expect(refused.status == 503, "\(refused.text)")
            #expect(refused.errorCode == "storage-failure", "\(refused.text)")
            #expect(refused.text.contains("permission was denied"), "\(refused.text)")
            #expect(refused.headers["retry-after"] == "1")
            #expect(!service.log.contains("internal error"), "\(service.log)")

            try TestPostgres.psql(database, "GRANT SELECT ON credentials TO \(role)")
            let served = try UnixHTTP.request(
                service.socketPath, "POST", "/v1/credentials/request", token: token, json: ["domain": Self.domain])
            #expect(served.status == 200, "\(served.text)")

            // The same for a passkey assertion, whose token's transaction reads the passkeys.
            let passkeyToken = try gated.expect(
                ["app", "token", "create", GatedFixture.app, "--allow", "passkey-create,passkey-get"], status: 0
            ).stdout.trimmingCharacters(in: .newlines)
            let created = try UnixHTTP.request(
                service.socketPath, "POST", "/v1/passkeys/create", token: passkeyToken,
                json: WebAuthnRelyingParty.creationOptions(
                    rpID: Self.domain, challenge: WebAuthnRelyingParty.challenge()))
            #expect(created.status == 200, "\(created.text)")
            func assertion() throws -> UnixHTTP.Response {
                try UnixHTTP.request(
                    service.socketPath, "POST", "/v1/passkeys/get", token: passkeyToken,
                    json: WebAuthnRelyingParty.requestOptions(
                        rpID: Self.domain, challenge: WebAuthnRelyingParty.challenge()))
            }
            try TestPostgres.psql(database, "REVOKE SELECT ON passkeys FROM \(role)")
            let unsigned = try assertion()
            #expect(unsigned.status == 503, "\(unsigned.text)")
            #expect(unsigned.errorCode == "storage-failure", "\(unsigned.text)")
            #expect(!service.log.contains("internal error"), "\(service.log)")
            try TestPostgres.psql(database, "GRANT SELECT ON passkeys TO \(role)")
            let signed = try assertion()
            #expect(signed.status == 200, "\(signed.text)")
            _ = service.stop(signal: SIGTERM)
            try TestPostgres.psql(database, "DROP OWNED BY \(role); DROP ROLE \(role)")
        }
    }
}
