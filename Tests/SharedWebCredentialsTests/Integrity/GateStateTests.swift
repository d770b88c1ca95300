import Foundation
import GRDB
import Synchronization
import TestSupport
import Testing

@testable import SharedWebCredentials

/// Issue 11, finding 1: whoever can write the vault file must not be able to approve an app, keep
/// rewriting verdicts, or register an app. Rows of `apps` and `associations` carry MACs; the
/// schema is checked against the migrations at open.
@Suite("Authenticated gate state")
struct GateStateTests {
    static let app = LoopbackSite.app
    static let shop = try! DomainTarget("shop.example")

    let directory: TemporaryDirectory
    let vault: Vault
    let attacker: Attacker

    init() throws {
        directory = try TemporaryDirectory()
        vault = try VaultTestSupport.makeVault(in: directory)
        attacker = Attacker(path: vault.path)
        try vault.apps.register(
            Self.app,
            entitlements: Entitlements(strings: ["webcredentials:shop.example", "webcredentials:other.example"]),
            at: Date())
        try vault.credentials.upsert(server: "shop.example", account: "alice", password: SecureBytes(utf8: "alice-pw"))
    }

    /// The attacker's forged verdict: approved, dated far in the future so it never goes stale.
    private func forgeApproval(domain: String = "shop.example") throws {
        try attacker.execute(
            """
            INSERT OR REPLACE INTO associations (service, app, domain, verdict, checked_at, next_check, approved_at)
            VALUES ('webcredentials', ?, ?, 'approved', '2099-01-01 00:00:00.000', '2099-01-01 00:00:00.000',
                    '2099-01-01 00:00:00.000')
            """, arguments: [Self.app.description, domain])
    }

    @Test("a forged approval (approved, approved_at in the future) counts as missing: offline, nothing is released")
    func forgedApprovalOffline() async throws {
        try forgeApproval()
        let warnings = WarningLog(for: vault)
        let facade = SharedWebCredentials(app: Self.app, vault: vault, verifier: nil)
        let error = await failure { _ = try await facade.request(domain: Self.shop) }
        #expect(error?.code == .networkFailure, "\(String(describing: error))")
        #expect(warnings.all.contains { $0.contains("failed authentication") && $0.contains("verified again") })
        #expect(try vault.associations.all().isEmpty, "the forged row is not listed as a verdict")
        #expect(try vault.integrityReport().untrustedVerdicts == 1)
    }

    @Test("a forged approval is verified again online; the site's denial replaces it")
    func forgedApprovalOnline() async throws {
        try forgeApproval()
        let warnings = WarningLog(for: vault)
        let site = try LoopbackSite()
        try await site.with(hosts: ["shop.example"], handler: { _ in .aasa(approving: ["ZZZZZ99999.org.other"]) }) {
            verifier, server in
            let facade = SharedWebCredentials(app: Self.app, vault: vault, verifier: verifier)
            let error = await failure { _ = try await facade.request(domain: Self.shop) }
            #expect(error?.code == .notApproved, "\(String(describing: error))")
            #expect(server.requests.count >= 1, "the site was asked")
        }
        #expect(warnings.all.count == 1)
        let stored = try #require(try vault.associations.all().first)
        #expect(stored.verdict == .denied && stored.approvedAt == nil)
        #expect(try vault.integrityReport().isIntact)
    }

    @Test("an approval dated in the future is refused even with a valid MAC (a clock set back)")
    func futureApprovalWithValidMAC() async throws {
        let future = Date().addingTimeInterval(86_400)
        try await vault.associations.save(
            AssociationRecord(
                service: .webcredentials, app: Self.app, domain: "shop.example", verdict: .approved,
                checkedAt: future, nextCheck: future.addingTimeInterval(5 * 86_400), lastError: nil, retryCount: 0,
                documentDigest: nil, approvedAt: future))
        let warnings = WarningLog(for: vault)
        let facade = SharedWebCredentials(app: Self.app, vault: vault, verifier: nil)
        let error = await failure { _ = try await facade.request(domain: Self.shop) }
        #expect(error?.code == .networkFailure, "\(String(describing: error))")
        #expect(warnings.all.contains { $0.contains("dated in the future") })
        let record = try #require(try vault.associations.all().first)
        #expect(RecheckPolicy().effectiveVerdict(record, at: Date()) == .unverified)
    }

    @Test("an authentic verdict copied onto another domain or app fails: the MAC covers the row's identity")
    func copiedVerdict() async throws {
        let now = Date()
        try await vault.associations.save(
            AssociationRecord(
                service: .webcredentials, app: Self.app, domain: "other.example", verdict: .approved, checkedAt: now,
                nextCheck: now.addingTimeInterval(86_400), lastError: nil, retryCount: 0, documentDigest: nil,
                approvedAt: now))
        try attacker.execute(
            """
            INSERT INTO associations
            SELECT service, app, 'shop.example', verdict, checked_at, next_check, last_error, retry_count,
                   document_digest, approved_at, mac
            FROM associations WHERE domain = 'other.example'
            """)
        let facade = SharedWebCredentials(app: Self.app, vault: vault, verifier: nil)
        let error = await failure { _ = try await facade.request(domain: Self.shop) }
        #expect(error?.code == .networkFailure, "\(String(describing: error))")
        #expect(try vault.associations.all().map(\.domain) == ["other.example"])
    }

    /// Issue 30: the MAC covers every column, so that no single one can be changed in the file.
    @Test(
        "an authentic verdict with any one column changed in the file is no longer trusted",
        arguments: [
            "service = 'applinks'", "app = 'ZZZZZ99999.com.example.other'", "domain = 'other.example'",
            "verdict = 'approved'", "checked_at = '2099-01-01 00:00:00.000'", "next_check = '2099-01-01 00:00:00.000'",
            "last_error = NULL", "retry_count = 0", "document_digest = zeroblob(32)",
            "approved_at = '2099-01-01 00:00:00.000'",
        ])
    func everyVerdictColumn(edit: String) throws {
        try vault.apps.register(
            ApplicationIdentifier("ZZZZZ99999.com.example.other"),
            entitlements: Entitlements(strings: ["webcredentials:other.example"]), at: Date())
        let now = Date()
        try vault.associations.save(
            AssociationRecord(
                service: .webcredentials, app: Self.app, domain: "shop.example", verdict: .denied,
                checkedAt: now, nextCheck: now.addingTimeInterval(3600), lastError: "the site said no",
                retryCount: 2, documentDigest: [UInt8](repeating: 7, count: 32),
                approvedAt: now.addingTimeInterval(-86_400)))
        #expect(try vault.associations.all().count == 1)
        try attacker.execute("UPDATE associations SET \(edit)")
        #expect(try vault.associations.all().isEmpty, "\(edit)")
        #expect(try vault.integrityReport().untrustedVerdicts == 1, "\(edit)")
    }

    @Test(
        "an authentic app row with any one column changed in the file fails with an integrity error",
        arguments: [
            ("application_identifier = 'ZZZZZ99999.org.renamed'", "ZZZZZ99999.org.renamed"),
            ("entitlements = '[\"webcredentials:shop.example\"]'", LoopbackSite.app.description),
            ("registered_at = '2020-01-01 00:00:00.000'", LoopbackSite.app.description),
        ])
    func everyAppColumn(edit: String, app: String) throws {
        try attacker.execute("UPDATE apps SET \(edit)")
        #expect(
            failure { _ = try vault.apps.require(ApplicationIdentifier(app)) }?.code == .integrityFailure, "\(edit)")
        #expect(try vault.integrityReport().untrustedApps.count == 1, "\(edit)")
    }

    @Test("an app row written or changed outside swcred fails with an integrity error (exit 9)")
    func forgedApp() throws {
        let intruder = try ApplicationIdentifier("ZZZZZ99999.org.intruder")
        try attacker.execute(
            "INSERT INTO apps (application_identifier, entitlements, registered_at) VALUES (?, ?, ?)",
            arguments: [intruder.description, #"["webcredentials:shop.example"]"#, "2026-01-01 00:00:00.000"])
        #expect(failure { _ = try vault.apps.require(intruder) }?.code == .integrityFailure)
        #expect(failure { _ = try vault.apps.all() }?.code == .integrityFailure)
        #expect(try vault.integrityReport().untrustedApps == [#""ZZZZZ99999.org.intruder""#])
        // Widening a registered app's entitlement breaks its MAC too, even after a lookup that
        // remembered how its genuine row parses.
        #expect(try vault.apps.require(Self.app).entitlements.entries.count == 2)
        try attacker.execute(
            "UPDATE apps SET entitlements = ? WHERE application_identifier = ?",
            arguments: [#"["webcredentials:shop.example","webcredentials:bank.example"]"#, Self.app.description])
        let error = failure { _ = try vault.apps.require(Self.app) }
        #expect(error?.code == .integrityFailure)
        #expect(error?.message.contains("swcred app remove") == true, "\(String(describing: error))")
        // The owner gets rid of a forged row the ordinary way.
        #expect(try vault.apps.remove(intruder))
    }

    @Test("a trigger that rewrites verdicts to approved is refused at open, by name (exit 9)")
    func verdictRewritingTrigger() throws {
        try attacker.execute(
            """
            CREATE TRIGGER keep_approved AFTER UPDATE ON associations BEGIN
                UPDATE associations SET verdict = 'approved', approved_at = '2099-01-01 00:00:00.000'
                WHERE rowid = NEW.rowid;
            END
            """)
        for error in [
            failure { _ = try VaultTestSupport.open(vault.path) },
            failure { _ = try Vault.inspect(at: vault.path) },
        ] {
            #expect(error?.code == .integrityFailure)
            #expect(error?.message.contains("trigger \"keep_approved\"") == true, "\(String(describing: error))")
        }
    }

    @Test("a trigger on another table that registers an app is refused at open, by name")
    func appRegisteringTrigger() throws {
        try attacker.execute(
            """
            CREATE TRIGGER sneak AFTER INSERT ON never_save BEGIN
                INSERT OR IGNORE INTO apps VALUES ('ZZZZZ99999.org.intruder', '["webcredentials:shop.example"]',
                                                   '2026-01-01 00:00:00.000', NULL);
            END
            """)
        let error = failure { _ = try VaultTestSupport.open(vault.path) }
        #expect(error?.code == .integrityFailure)
        #expect(error?.message.contains("trigger \"sneak\" on \"never_save\"") == true, "\(String(describing: error))")
    }

    @Test("views, extra tables and indexes, and altered table definitions are refused at open, by name")
    func otherSchemaChanges() throws {
        let cases: [(sql: String, named: String)] = [
            ("CREATE VIEW peek AS SELECT * FROM apps", "view \"peek\""),
            ("CREATE TABLE stash (x)", "table \"stash\""),
            ("CREATE INDEX apps_by_date ON apps (registered_at)", "index \"apps_by_date\""),
        ]
        for (sql, named) in cases {
            let copy = try TemporaryDirectory()
            let path = copy.path("vault.sqlite")
            for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: vault.path + suffix) {
                try FileManager.default.copyItem(atPath: vault.path + suffix, toPath: path + suffix)
            }
            try Attacker(path: path).execute(sql)
            let error = failure { _ = try VaultTestSupport.open(path) }
            #expect(error?.code == .integrityFailure, "\(sql)")
            #expect(error?.message.contains(named) == true, "\(String(describing: error))")
        }
        // A table whose CHECK constraint was edited out through writable_schema.
        try VaultTestSupport.rawDatabase(vault.path).writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA writable_schema = ON")
            try db.execute(
                sql:
                    "UPDATE sqlite_master SET sql = replace(sql, 'IN (''approved'', ''denied'', ''unverified'')', 'IS NOT NULL') WHERE name = 'associations'"
            )
        }
        let error = failure { _ = try VaultTestSupport.open(vault.path) }
        #expect(error?.code == .integrityFailure)
        #expect(error?.message.contains("table \"associations\"") == true, "\(String(describing: error))")
    }

    @Test("a reader connection refuses a hostile schema as the writer does, by name (exit 9)")
    func readerRefusesHostileSchema() throws {
        // A fresh instance: opening it checks the schema on the writer and reads nothing, so its
        // first read opens a reader connection after the trigger is planted.
        let fresh = try VaultTestSupport.open(vault.path)
        try attacker.execute(
            """
            CREATE TRIGGER keep_approved AFTER UPDATE ON associations BEGIN
                UPDATE associations SET verdict = 'approved' WHERE rowid = NEW.rowid;
            END
            """)
        // The writer was checked when the vault opened, before the trigger: it still answers.
        #expect(try fresh.database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM apps") } == 1)
        // Each read below needs a reader; the first one opens it, and refuses the schema.
        for error in [
            failure { _ = try fresh.status() },
            failure { _ = try fresh.credentials.all() },
            failure { _ = try VaultTestSupport.open(vault.path) },
        ] {
            #expect(error?.code == .integrityFailure)
            #expect(error?.message.contains("trigger \"keep_approved\"") == true, "\(String(describing: error))")
        }
    }

    /// What a test sees of one connection's hardening.
    struct ReaderState: Sendable {
        let name: String
        let defensive: Bool
        let runsNoStoredCode: Bool
        let trustedSchema: Bool?
        let readonly: Bool
        let mappedBytes: Int?

        init(_ db: Database) throws {
            name = db.description
            defensive = SQLiteStorage.isDefensive(db)
            runsNoStoredCode = SQLiteStorage.runsNoStoredCode(db)
            trustedSchema = try Bool.fetchOne(db, sql: "PRAGMA trusted_schema")
            readonly = db.configuration.readonly
            mappedBytes = try Int.fetchOne(db, sql: "PRAGMA mmap_size")
        }
    }

    @Test("every reader is hardened as the writer is (defensive, trusted_schema off, read-only) and maps no file")
    func defensiveReaders() throws {
        #expect(try vault.database.inDatabase { db in SQLiteStorage.isDefensive(db) })
        #expect(try vault.database.inDatabase { db in SQLiteStorage.runsNoStoredCode(db) })
        // A read on another thread while a first read holds its reader: the pool opens a second
        // reader connection for it (deterministic, unlike reads merely started together).
        let readers = try #require(vault.sqliteStorage.readers)
        let second = Mutex<Result<ReaderState, any Error>?>(nil)
        let first = try readers.read { db in
            let done = DispatchSemaphore(value: 0)
            Thread {
                second.withLock { $0 = Result { try readers.read { db in try ReaderState(db) } } }
                done.signal()
            }.start()
            done.wait()
            return try ReaderState(db)
        }
        let states = [first, try #require(second.withLock { $0 }).get()]
        #expect(states[0].name != states[1].name, "\(states)")
        for state in states {
            #expect(state.defensive, "\(state)")
            #expect(state.runsNoStoredCode, "triggers and views off: \(state)")
            #expect(state.trustedSchema == false, "\(state)")
            #expect(state.readonly, "\(state)")
            #expect(state.mappedBytes == 0, "a reader reads pages, not a map redone after each commit: \(state)")
        }
        // And the reads of the vault go to them.
        #expect(try vault.read { db, _ in db.grdb.configuration.readonly })
    }

    @Test("swcred's own connection is defensive: no writable_schema, trusted_schema off")
    func defensiveConnection() throws {
        #expect(try vault.database.read { db in try Bool.fetchOne(db, sql: "PRAGMA trusted_schema") } == false)
        #expect(throws: DatabaseError.self) {
            try vault.database.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA writable_schema = ON")
                try db.execute(sql: "UPDATE sqlite_master SET sql = sql WHERE name = 'apps'")
            }
        }
    }
}
