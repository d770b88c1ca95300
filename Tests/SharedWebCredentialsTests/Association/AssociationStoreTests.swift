import Foundation
import GRDB
import SharedWebCredentials
import Testing

@Suite("app registry and association store on SQLite")
struct AssociationStoreTests {
    let database: AssociationDatabase
    let app = try! ApplicationIdentifier("ABCDE12345.com.example.app")
    init() throws { database = try AssociationDatabase() }

    @Test("apps are registered, listed, found, re-registered and removed")
    func registry() throws {
        let registry = database.vault.apps
        let date = Date(timeIntervalSince1970: 1_800_000_000)
        let entitlements = try Entitlements(strings: ["webcredentials:*.example.com", "applinks:example.com"])
        try registry.register(app, entitlements: entitlements, at: date)
        let found = try #require(try registry.find(app))
        #expect(found.entitlements == entitlements)
        #expect(found.registeredAt == date)
        #expect(try registry.all().map(\.identifier) == [app])
        let other = try ApplicationIdentifier("ZZZZZ99999.org.example")
        #expect(
            throws: SharedWebCredentialsError(
                .missingEntitlement,
                "ZZZZZ99999.org.example is not registered; register it with `swcred app add ZZZZZ99999.org.example ...`"
            )
        ) {
            try registry.require(other)
        }
        #expect(try registry.remove(app))
        #expect(try registry.remove(app) == false)
        #expect(try registry.find(app) == nil)
    }

    @Test("verdicts are stored per (service, app, domain) and dropped with the app or its entry")
    func records() throws {
        let registry = database.vault.apps
        let store = database.vault.associations
        let entries = try Entitlements(strings: [
            "webcredentials:*.example.com:8443", "webcredentials:login.example.org",
        ])
        try registry.register(app, entitlements: entries, at: Date())
        let record = AssociationRecord(
            service: .webcredentials, app: app, domain: AssociationStore.domainKey(for: entries.entries[0]),
            verdict: .approved, checkedAt: Date(timeIntervalSince1970: 1_000),
            nextCheck: Date(timeIntervalSince1970: 2_000),
            lastError: nil, retryCount: 0, documentDigest: Array(repeating: 7, count: 32),
            approvedAt: Date(timeIntervalSince1970: 1_000))
        try store.save(record)
        #expect(record.domain == "*.example.com:8443")
        #expect(try store.record(app: app, entry: entries.entries[0]) == record)
        #expect(try store.record(app: app, entry: entries.entries[1]) == nil)
        try registry.register(
            app, entitlements: try Entitlements(strings: ["webcredentials:login.example.org"]), at: Date())
        #expect(try store.all().isEmpty)
        try store.save(
            AssociationRecord(
                service: .webcredentials, app: app, domain: "login.example.org", verdict: .denied, checkedAt: nil,
                nextCheck: Date(), lastError: "x", retryCount: 1, documentDigest: nil, approvedAt: nil))
        try registry.remove(app)
        #expect(try store.all().isEmpty)
    }

    @Test("the schema refuses verdicts outside approved|denied|unverified and rows for unknown apps")
    func constraints() throws {
        #expect(throws: DatabaseError.self) {
            try database.queue.write { db in
                try db.execute(sql: "INSERT INTO apps VALUES ('ABCDE12345.x', '[]', '2026-01-01', NULL, NULL)")
                try db.execute(
                    sql:
                        "INSERT INTO associations (service, app, domain, verdict, next_check) VALUES ('webcredentials', 'ABCDE12345.x', 'a.com', 'maybe', '2026-01-01')"
                )
            }
        }
        #expect(throws: DatabaseError.self) {
            try database.queue.write { db in
                try db.execute(
                    sql:
                        "INSERT INTO associations (service, app, domain, verdict, next_check) VALUES ('webcredentials', 'NOPE000000.x', 'a.com', 'approved', '2026-01-01')"
                )
            }
        }
    }
}
