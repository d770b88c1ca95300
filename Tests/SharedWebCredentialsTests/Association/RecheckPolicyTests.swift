import Foundation
import SharedWebCredentials
import TestSupport
import Testing

/// A clock the test moves by hand.
final class ManualClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current = Date(timeIntervalSince1970: 1_900_000_000)
    var now: Date {
        lock.lock()
        defer { lock.unlock() }
        return current
    }
    func advance(hours: Double) {
        lock.lock()
        current += hours * 3_600
        lock.unlock()
    }
}

/// The answer the loopback site gives, switchable during a test.
final class SiteAnswer: @unchecked Sendable {
    private let lock = NSLock()
    private var route: TestRoute = .status(404)
    func set(_ route: TestRoute) {
        lock.lock()
        self.route = route
        lock.unlock()
    }
    var current: TestRoute {
        lock.lock()
        defer { lock.unlock() }
        return route
    }
}

@Suite("re-check policy with an injected clock, against the loopback site and a SQLite store")
struct RecheckPolicyTests {
    let site: LoopbackSite
    let database: AssociationDatabase
    init() throws {
        site = try LoopbackSite()
        database = try AssociationDatabase()
    }

    @Test("back-off starts at 3.5 hours, doubles, and stops at 5 days")
    func backoff() {
        let policy = RecheckPolicy()
        #expect(policy.backoff(afterFailures: 1) == 3.5 * 3_600)
        #expect(policy.backoff(afterFailures: 2) == 7 * 3_600)
        #expect(policy.backoff(afterFailures: 3) == 14 * 3_600)
        #expect(policy.backoff(afterFailures: 10) == 5 * 86_400)
    }

    @Test("approval, failed re-checks within 30 days, staleness, revocation and offline use")
    func lifecycle() async throws {
        let clock = ManualClock()
        let answer = SiteAnswer()
        answer.set(.aasa(approving: [LoopbackSite.app.description]))
        let registry = database.vault.apps
        let store = database.vault.associations
        let entitlements = try Entitlements(strings: ["webcredentials:example.com"])
        try registry.register(LoopbackSite.app, entitlements: entitlements, at: clock.now)
        let app = try registry.require(LoopbackSite.app)
        let domain = try DomainTarget("example.com")
        try await site.with(
            hosts: ["example.com"],
            handler: { request in
                request.path == LoopbackSite.wellKnown ? answer.current : .status(404)
            }
        ) { verifier, server in
            let gate = AssociationGate(store: store, verifier: verifier, now: { clock.now })
            let offline = AssociationGate(store: store, verifier: nil, now: { clock.now })

            // Offline before any verification: no cached verdict, a network failure.
            await #expect(throws: SharedWebCredentialsError.self) {
                try await offline.authorize(app: app, domain: domain)
            }

            // First use verifies and approves; next check in 5 days.
            let first = try await gate.authorize(app: app, domain: domain)
            #expect(first.verdict == .approved)
            #expect(first.nextCheck == clock.now + 5 * 86_400)
            #expect(server.requests.count == 1)

            // Within 5 days the cached verdict is used, online and offline.
            clock.advance(hours: 24)
            _ = try await gate.authorize(app: app, domain: domain)
            _ = try await offline.authorize(app: app, domain: domain)
            #expect(server.requests.count == 1)

            // After 5 days the site fails (500): approval survives, back-off grows.
            answer.set(.status(500))
            clock.advance(hours: 5 * 24)
            let failed = try await gate.authorize(app: app, domain: domain)
            #expect(failed.verdict == .approved)
            #expect(failed.retryCount == 1)
            #expect(failed.lastError?.contains("HTTP 500") == true)
            #expect(failed.nextCheck == clock.now + 3.5 * 3_600)
            clock.advance(hours: 4)
            let again = try await gate.authorize(app: app, domain: domain)
            #expect(again.retryCount == 2 && again.nextCheck == clock.now + 7 * 3_600)

            // 30 days after the last approval, with the site still failing, the approval is stale.
            clock.advance(hours: 24 * 25)
            await #expect(throws: SharedWebCredentialsError.self) { try await gate.authorize(app: app, domain: domain) }
            let stale = try await #require(try store.record(app: LoopbackSite.app, entry: entitlements.entries[0]))
            #expect(stale.verdict == .unverified)
            #expect(RecheckPolicy().effectiveVerdict(stale, at: clock.now) == .unverified)

            // The site recovers: approved again, retry count reset.
            answer.set(.aasa(approving: [LoopbackSite.app.description]))
            clock.advance(hours: 24)
            let recovered = try await gate.authorize(app: app, domain: domain)
            #expect(recovered.verdict == .approved && recovered.retryCount == 0 && recovered.lastError == nil)

            // A successful re-check that no longer lists the app revokes at once.
            answer.set(.aasa(approving: []))
            clock.advance(hours: 5 * 24 + 1)
            do {
                _ = try await gate.authorize(app: app, domain: domain)
                Issue.record("a revoked app was authorised")
            } catch let error as SharedWebCredentialsError {
                #expect(error.code == .notApproved)
                #expect(error.message.contains("not listed in webcredentials.apps"))
            }
            let revoked = try await #require(try store.record(app: LoopbackSite.app, entry: entitlements.entries[0]))
            #expect(revoked.verdict == .denied && revoked.approvedAt == nil)
            // Offline keeps the denial.
            await #expect(throws: SharedWebCredentialsError.self) {
                try await offline.authorize(app: app, domain: domain)
            }
        }
    }

    @Test("an approval kept offline expires after 30 days")
    func offlineStaleness() throws {
        let policy = RecheckPolicy()
        let approvedAt = Date(timeIntervalSince1970: 1_000_000)
        let record = AssociationRecord(
            service: .webcredentials, app: LoopbackSite.app, domain: "example.com", verdict: .approved,
            checkedAt: approvedAt, nextCheck: approvedAt + 5 * 86_400, lastError: nil, retryCount: 0,
            documentDigest: nil, approvedAt: approvedAt)
        #expect(policy.effectiveVerdict(record, at: approvedAt + 29 * 86_400) == .approved)
        #expect(policy.effectiveVerdict(record, at: approvedAt + 30 * 86_400) == .unverified)
        #expect(policy.isDue(record, at: approvedAt + 5 * 86_400))
        #expect(!policy.isDue(record, at: approvedAt + 4 * 86_400))
    }

    @Test("a site is asked again when its time comes, or sooner for an approval gone stale only: never for a denial")
    func dueWhenStaleOnlyForApprovals() throws {
        let policy = RecheckPolicy()
        let checkedAt = Date(timeIntervalSince1970: 1_000_000)
        func record(_ verdict: AssociationVerdict, approvedAt: Date?) -> AssociationRecord {
            AssociationRecord(
                service: .webcredentials, app: LoopbackSite.app, domain: "example.com", verdict: verdict,
                checkedAt: checkedAt, nextCheck: checkedAt + 60 * 86_400, lastError: nil, retryCount: 0,
                documentDigest: nil, approvedAt: approvedAt)
        }
        let stale = checkedAt + 31 * 86_400
        #expect(policy.isDue(record(.approved, approvedAt: checkedAt), at: stale), "an approval 31 days old")
        #expect(!policy.isDue(record(.approved, approvedAt: checkedAt), at: checkedAt + 29 * 86_400))
        #expect(!policy.isDue(record(.denied, approvedAt: nil), at: stale), "a denial waits for its time")
        #expect(!policy.isDue(record(.denied, approvedAt: checkedAt), at: stale), "once approved, now denied")
        #expect(policy.isDue(record(.denied, approvedAt: nil), at: checkedAt + 60 * 86_400))
    }

    @Test("refresh verifies every entry of every service now and stores the verdicts")
    func refresh() async throws {
        let clock = ManualClock()
        let registry = database.vault.apps
        let store = database.vault.associations
        try registry.register(
            LoopbackSite.app,
            entitlements: try Entitlements(strings: [
                "webcredentials:example.com", "webcredentials:*.example.org", "applinks:example.com",
            ]),
            at: clock.now)
        let app = try registry.require(LoopbackSite.app)
        try await site.with(
            hosts: ["example.com", "example.org"],
            handler: { request in
                request.host == "example.com" ? .aasa(approving: [LoopbackSite.app.description]) : .status(403)
            }
        ) { verifier, _ in
            let gate = AssociationGate(store: store, verifier: verifier, now: { clock.now })
            let results = try await gate.refresh(app: app)
            // The applinks entry is judged against applinks.details, which the file does not have.
            #expect(results.map(\.record.verdict) == [.approved, .denied, .denied])
            #expect(results.map(\.record.service) == [.webcredentials, .webcredentials, .applinks])
            #expect(
                try store.all().map { "\($0.service.rawValue):\($0.domain)" } == [
                    "applinks:example.com", "webcredentials:*.example.org", "webcredentials:example.com",
                ])
            let offline = AssociationGate(store: store, verifier: nil, now: { clock.now })
            await #expect(throws: SharedWebCredentialsError.self) { try await offline.refresh(app: app) }
        }
    }
}
