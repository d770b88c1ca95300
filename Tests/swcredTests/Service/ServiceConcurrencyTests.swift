import Foundation
import Synchronization
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Requests side by side (issue 24): clients that read while others add, update and delete get
/// answers a linearizable vault could give, no update is lost, and the audit log holds exactly one
/// entry per operation and still verifies, also after the service is killed in the middle of its
/// group commits.
@Suite("swcred serve: requests side by side", .serialized)
struct ServiceConcurrencyTests {
    private static let domain = "shop.example"

    /// What the writers did to each account: every state they asked for, in order (a password, or
    /// nil for deleted), and how many of those were acknowledged. One writer owns each account, so
    /// its states are in the order the service applied them.
    final class Histories: Sendable {
        private struct Account {
            var states: [String?] = []
            var acknowledged = 0
        }
        private let accounts = Mutex<[String: Account]>([:])

        /// Records the state a writer is about to ask for.
        func intend(_ account: String, _ state: String?) {
            accounts.withLock { $0[account, default: Account()].states.append(state) }
        }

        /// Records that the last intended state of `account` was acknowledged.
        func acknowledge(_ account: String) {
            accounts.withLock { $0[account, default: Account()].acknowledged += 1 }
        }

        /// How many states of `account` were acknowledged so far.
        func acknowledgedCount(_ account: String) -> Int {
            accounts.withLock { $0[account]?.acknowledged ?? 0 }
        }

        /// The states a read may see if it started when `acknowledged` states were acknowledged
        /// and ended now: the last acknowledged one then (nothing yet: absent) up to the newest
        /// one asked for, which may have committed before its writer heard back.
        func allowed(_ account: String, acknowledgedAtStart acknowledged: Int) -> [String?] {
            accounts.withLock { accounts in
                let states = accounts[account]?.states ?? []
                let first = acknowledged == 0 ? [nil as String?] : []
                return first + states[max(0, acknowledged - 1)...]
            }
        }

        /// The last state of `account` a writer asked for.
        func last(_ account: String) -> String?? {
            accounts.withLock { $0[account]?.states.last }
        }
    }

    /// Counts of what the clients did, by audit operation.
    final class Counts: Sendable {
        private let counts = Mutex<[String: Int]>([:])
        func add(_ operation: String) { counts.withLock { $0[operation, default: 0] += 1 } }
        var all: [String: Int] { counts.withLock { $0 } }
    }

    @Test("readers beside writers: every answer fits the model, and one audit entry per operation")
    func readersBesideWriters() async throws {
        try await ServiceFixture.with { fixture in
            try fixture.start()
            let token = try fixture.token(["--allow", "request,add,delete"])
            let socket = fixture.socketPath
            let histories = Histories()
            let counts = Counts()
            let deadline = Date() + 4
            let writers = (0..<4).map { writer in
                BackgroundWork<[String]> {
                    var problems: [String] = []
                    var present: [String: Bool] = [:]
                    var sequence = 0
                    while Date() < deadline {
                        let account = "user-\(writer)-\(Int.random(in: 0..<3))"
                        sequence += 1
                        let deleting = present[account] == true && Int.random(in: 0..<3) == 0
                        let password: String? = deleting ? nil : "Pw-\(account)-\(sequence)"
                        histories.intend(account, password)
                        var json: [String: Any] = ["domain": Self.domain, "account": account]
                        if let password { json["password"] = password }
                        let response = try UnixHTTP.request(
                            socket, deleting ? "DELETE" : "PUT", "/v1/credentials", token: token, json: json)
                        guard response.status == 200 else {
                            problems.append("\(account): \(response.status) \(response.text)")
                            break
                        }
                        histories.acknowledge(account)
                        let outcome = (response.json as? [String: Any])?["outcome"] as? String
                        let expected = deleting ? "deleted" : present[account] == true ? "updated" : "added"
                        if outcome != expected { problems.append("\(account): \(outcome ?? "?") for \(expected)") }
                        counts.add(deleting ? "delete" : present[account] == true ? "update" : "add")
                        present[account] = !deleting
                    }
                    return problems
                }
            }
            let readers = (0..<4).map { _ in
                BackgroundWork<[String]> {
                    var problems: [String] = []
                    while Date() < deadline {
                        let account = "user-\(Int.random(in: 0..<4))-\(Int.random(in: 0..<3))"
                        let acknowledged = histories.acknowledgedCount(account)
                        let response = try UnixHTTP.request(
                            socket, "POST", "/v1/credentials/request", token: token,
                            json: ["domain": Self.domain, "account": account])
                        counts.add("request")
                        let seen: String?
                        switch response.status {
                        case 200:
                            let released = response.json as? [[String: Any]] ?? []
                            guard released.count == 1, released[0]["account"] as? String == account else {
                                problems.append("\(account): released \(response.text)")
                                continue
                            }
                            seen = released[0]["password"] as? String
                        case 404: seen = nil
                        default:
                            problems.append("\(account): \(response.status) \(response.text)")
                            continue
                        }
                        let allowed = histories.allowed(account, acknowledgedAtStart: acknowledged)
                        if !allowed.contains(seen) {
                            problems.append("\(account): saw \(seen ?? "nothing"), allowed \(allowed.suffix(4))")
                        }
                    }
                    return problems
                }
            }
            var problems: [String] = []
            for work in writers + readers { problems += try await work.value }
            #expect(problems.isEmpty, "\(problems.prefix(5))")

            // After the run, every account holds what its writer last asked for.
            for writer in 0..<4 {
                for index in 0..<3 {
                    let account = "user-\(writer)-\(index)"
                    guard let last = histories.last(account) else { continue }
                    let response = try fixture.call(
                        "POST", "/v1/credentials/request", token: token,
                        json: ["domain": Self.domain, "account": account])
                    counts.add("request")
                    let seen = (response.json as? [[String: Any]])?.first?["password"] as? String
                    #expect(seen == last, "\(account)")
                }
            }

            let done = counts.all
            #expect((done["request"] ?? 0) > 20 && (done["add"] ?? 0) > 4, "the clients did something: \(done)")
            let entries = try Self.appEntries(fixture)
            var recorded: [String: Int] = [:]
            // A verdict the first request had the site check is recorded as the app's too.
            for entry in entries where entry["operation"] as? String != "verdict-change" {
                recorded[entry["operation"] as? String ?? "?", default: 0] += 1
            }
            #expect(recorded == done, "audit entries by operation \(recorded), operations done \(done)")
            try fixture.gated.expect(["audit", "verify"], status: 0)
        }
    }

    @Test("two clients updating one credential: every update applies and is recorded as an update")
    func noLostUpdate() async throws {
        try await ServiceFixture.with { fixture in
            try fixture.start()
            let token = try fixture.token(["--allow", "request,add"])
            let socket = fixture.socketPath
            let account = "contended"
            #expect(
                try fixture.call(
                    "PUT", "/v1/credentials", token: token,
                    json: ["domain": Self.domain, "account": account, "password": "Pw-start"]
                ).status == 200)
            let clients = (0..<2).map { client in
                BackgroundWork<[String]> {
                    var outcomes: [String] = []
                    for index in 0..<40 {
                        let response = try UnixHTTP.request(
                            socket, "PUT", "/v1/credentials", token: token,
                            json: ["domain": Self.domain, "account": account, "password": "Pw-\(client)-\(index)"])
                        outcomes.append(
                            "\(response.status) \((response.json as? [String: Any])?["outcome"] as? String ?? response.text)"
                        )
                    }
                    return outcomes
                }
            }
            var outcomes: [String] = []
            for client in clients { outcomes += try await client.value }
            #expect(outcomes.allSatisfy { $0 == "200 updated" }, "\(Set(outcomes))")
            let updates = try Self.appEntries(fixture).filter { $0["operation"] as? String == "update" }
            #expect(updates.count == 80)
            #expect(updates.allSatisfy { $0["outcome"] as? String == "done" })
            let final = try fixture.call(
                "POST", "/v1/credentials/request", token: token, json: ["domain": Self.domain, "account": account])
            let password = (final.json as? [[String: Any]])?.first?["password"] as? String
            #expect(
                password == "Pw-0-39" || password == "Pw-1-39", "the last update of one client: \(password ?? "none")")
        }
    }

    @Test("one client saving while another deletes: each change is named by what it found when it was written")
    func changesNamedByWhatTheyFound() async throws {
        try await ServiceFixture.with { fixture in
            try fixture.start()
            let token = try fixture.token(["--allow", "request,add,delete"])
            let socket = fixture.socketPath
            let account = "raced"
            let saver = BackgroundWork<[String]> {
                try (0..<150).map { index in
                    let response = try UnixHTTP.request(
                        socket, "PUT", "/v1/credentials", token: token,
                        json: ["domain": Self.domain, "account": account, "password": "Pw-\(index)"])
                    return (response.json as? [String: Any])?["outcome"] as? String
                        ?? "\(response.status) \(response.text)"
                }
            }
            let deleter = BackgroundWork<[String]> {
                try (0..<150).map { _ in
                    let response = try UnixHTTP.request(
                        socket, "DELETE", "/v1/credentials", token: token,
                        json: ["domain": Self.domain, "account": account])
                    return (response.json as? [String: Any])?["outcome"] as? String
                        ?? "\(response.status) \(response.text)"
                }
            }
            let outcomes = try await saver.value + deleter.value
            #expect(
                Set(outcomes).isSubset(of: ["added", "updated", "deleted", "nothing-to-delete"]), "\(Set(outcomes))")
            // Replayed in the order of the audit log, every change fits the state before it: an
            // add finds nothing, an update and a delete find the credential. A delete that found
            // nothing is recorded with that detail, and changes nothing.
            var present = false
            var misnamed: [String] = []
            for entry in try Self.appEntries(fixture)
            where entry["account"] as? String == account && entry["outcome"] as? String == "done"
                && entry["detail"] as? String != "nothing to delete"
            {
                let operation = entry["operation"] as? String ?? "?"
                switch (operation, present) {
                case ("add", false): present = true
                case ("update", true): break
                case ("delete", true): present = false
                default:
                    misnamed.append(
                        "#\(entry["seq"] ?? "?") \(operation) with the credential \(present ? "present" : "absent")")
                }
            }
            #expect(misnamed.isEmpty, "\(misnamed.prefix(5))")
        }
    }

    @Test(
        "SIGKILL in the middle of group commits, five times: the chain verifies and every release received is recorded")
    func killedDuringGroupCommits() async throws {
        try await ServiceFixture.with { fixture in
            try fixture.start()
            let token = try fixture.token(["--allow", "request,add"])
            let accounts = ["alice", "bob", "carol"]
            for account in accounts {
                #expect(
                    try fixture.call(
                        "PUT", "/v1/credentials", token: token,
                        json: ["domain": Self.domain, "account": account, "password": "Pw-\(account)"]
                    ).status == 200)
            }
            let socket = fixture.socketPath
            var received: [String: Int] = [:]
            for round in 0..<5 {
                if round > 0 { try fixture.start() }
                let clients = (0..<8).map { _ in
                    BackgroundWork<[String]> {
                        // What this client was given, logged as it arrived.
                        var log: [String] = []
                        while true {
                            let account = accounts.randomElement()!
                            guard
                                let response = try? UnixHTTP.request(
                                    socket, "POST", "/v1/credentials/request", token: token,
                                    json: ["domain": Self.domain, "account": account]),
                                response.status == 200
                            else { return log }
                            if let released = response.json as? [[String: Any]], released.count == 1,
                                released[0]["password"] as? String == "Pw-\(account)"
                            {
                                log.append(account)
                            } else {
                                log.append("unexpected: \(response.text)")
                            }
                        }
                    }
                }
                try await Task.sleep(for: .milliseconds(Int.random(in: 700...1500)))
                #expect(try fixture.running.stop(signal: SIGKILL) == SIGKILL)
                for client in clients {
                    for account in try await client.value { received[account, default: 0] += 1 }
                }
            }
            #expect(received.keys.allSatisfy(accounts.contains), "\(received.keys.sorted())")
            #expect(received.values.reduce(0, +) > 40, "releases before the kills: \(received)")
            try fixture.gated.expect(["audit", "verify"], status: 0)
            var recorded: [String: Int] = [:]
            for entry in try Self.appEntries(fixture)
            where entry["operation"] as? String == "request" && entry["outcome"] as? String == "done" {
                for credential in entry["released"] as? [[String: Any]] ?? [] {
                    recorded[credential["account"] as? String ?? "?", default: 0] += 1
                }
            }
            for (account, count) in received {
                #expect(
                    (recorded[account] ?? 0) >= count,
                    "\(account): received \(count), recorded \(recorded[account] ?? 0)")
            }
        }
    }

    /// The audit entries of the fixture's app, oldest first.
    private static func appEntries(_ fixture: ServiceFixture) throws -> [[String: Any]] {
        let listed = try fixture.gated.expect(["audit", "--app", GatedFixture.app, "--json"], status: 0)
        return try #require(try JSONSerialization.jsonObject(with: listed.stdoutData) as? [[String: Any]])
    }
}
