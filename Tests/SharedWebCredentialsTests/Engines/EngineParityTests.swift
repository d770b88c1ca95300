import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedWebCredentials

/// Issue 25: the core of the vault on both engines, one suite run once per engine (not a copy):
/// create, open and unlock; credentials; apps, verdicts and tokens through the gate; the audit
/// log; the integrity report. Then a vault copied from SQLite to PostgreSQL and back (`Vault.copy`)
/// opens and verifies at each end byte for byte, a PostgreSQL schema with a trigger is refused, and
/// the database's owner attacks the vault with `psql`.
@Suite("Storage engines: the same vault on SQLite and on PostgreSQL")
struct EngineParityTests {
    static let app = try! ApplicationIdentifier("ABCDE12345.com.example.app")
    static let shop = try! DomainTarget("shop.example")
    static let passphrase = SecureBytes(utf8: VaultTestSupport.passphrase)

    private func create(_ store: VaultStore) throws -> Vault {
        try Vault.create(in: store, protection: .passphrase(Self.passphrase, VaultTestSupport.fastKDF))
    }

    private func open(_ store: VaultStore, _ passphrase: String = VaultTestSupport.passphrase) throws -> Vault {
        try Vault.open(store: store, secret: .passphrase(SecureBytes(utf8: passphrase)))
    }

    @Test("two creates racing on one PostgreSQL database: one makes the vault, the other replaces nothing")
    func racingCreates() throws {
        // Both pass the first check for a vault before either writes one; the writers' lock then
        // orders them, and the second must find the first's vault rather than write its own key
        // over it (`vault_meta`'s insert updates on conflict).
        for round in 0..<4 {
            let directory = try TemporaryDirectory()
            let store = try StorageEngine.postgresql.freshStore(in: directory)
            let passphrases = ["first racer \(round)", "second racer \(round)"]
            let outcomes = Mutex<[Int: SharedWebCredentialsError.Code?]>([:])
            let start = DispatchSemaphore(value: 0)
            let group = DispatchGroup()
            for index in passphrases.indices {
                group.enter()
                Thread.detachNewThread {
                    start.wait()
                    let code = VaultTestSupport.errorCode {
                        _ = try Vault.create(
                            in: store,
                            protection: .passphrase(SecureBytes(utf8: passphrases[index]), VaultTestSupport.fastKDF))
                    }
                    outcomes.withLock { $0[index] = code }
                    group.leave()
                }
            }
            passphrases.indices.forEach { _ in start.signal() }
            group.wait()
            let codes = outcomes.withLock { $0 }
            let made = codes.filter { $0.value == nil }.map(\.key)
            #expect(made.count == 1, "round \(round): \(codes)")
            #expect(codes.values.filter { $0 == .vaultExists }.count == 1, "round \(round): \(codes)")
            if let winner = made.first {
                #expect(throws: Never.self, "round \(round)") { _ = try open(store, passphrases[winner]) }
            }
        }
    }

    @Test("create, refuse a second create, open, refuse a wrong passphrase, inspect", arguments: StorageEngine.allCases)
    func createAndOpen(engine: StorageEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.freshStore(in: directory)
        #expect(VaultTestSupport.errorCode { _ = try open(store) } == .vaultNotFound)
        _ = try create(store)
        #expect(VaultTestSupport.errorCode { _ = try create(store) } == .vaultExists)
        #expect(VaultTestSupport.errorCode { _ = try open(store, "wrong passphrase") } == .vaultLocked)
        let vault = try open(store)
        #expect(vault.path == store.location)
        let status = try Vault.inspect(store: store)
        #expect(status.formatVersion == 3 && status.credentialCount == 0)
    }

    @Test("credentials: add, find, update, rename, delete; never-save", arguments: StorageEngine.allCases)
    func credentials(engine: StorageEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.freshStore(in: directory)
        let credentials = try create(store).credentials
        #expect(
            try credentials.upsert(server: "Example.COM", account: "alice", password: SecureBytes(utf8: "one"))
                == .added)
        #expect(
            try credentials.upsert(server: "example.com", account: "alice", password: SecureBytes(utf8: "one"))
                == .unchanged)
        #expect(
            try credentials.upsert(server: "example.com", account: "alice", password: SecureBytes(utf8: "two"))
                == .updated)
        try credentials.upsert(server: "example.com", account: "bob", password: SecureBytes(utf8: "b"))
        try credentials.upsert(server: "example.com", port: 8443, account: "alice", password: SecureBytes(utf8: "alt"))
        try credentials.upsert(server: "other.example", account: "carol", password: SecureBytes(utf8: "c"))
        try credentials.upsert(
            server: "example.com", port: 443, scheme: .http, account: "alice", password: SecureBytes(utf8: "http"))
        let reopened = try open(store).credentials
        #expect(try reopened.count() == 5)
        #expect(try reopened.find(server: "example.com", port: 443, scheme: .http).map(\.passwordText) == ["http"])
        #expect(try reopened.all().map(\.site.name).filter { $0.hasPrefix("http://") } == ["http://example.com:443"])
        #expect(try reopened.delete(server: "example.com", port: 443, scheme: .http, account: "alice"))
        #expect(try reopened.find(server: "example.com").map(\.account) == ["alice", "bob"])
        #expect(try reopened.find(server: "example.com").map(\.passwordText) == ["two", "b"])
        #expect(try reopened.find(server: "example.com", port: 8443).map(\.passwordText) == ["alt"])
        #expect(try reopened.delete(server: "example.com", account: "bob"))
        #expect(try !reopened.delete(server: "example.com", account: "bob"))
        #expect(try reopened.count() == 3)
        let vault = try open(store)
        try vault.neverSave.mark("never.example")
        #expect(try vault.neverSave.isMarked("never.example"))
        let report = try vault.integrityReport()
        #expect(report.damagedCredentials == 0 && report.recordSetMatchesCommitment && report.parentDomainIndexMatches)
        #expect(report.credentialsChecked == 3)
    }

    @Test("credential rows read in place are the rows read as values", arguments: StorageEngine.allCases)
    func rowsInPlace(engine: StorageEngine) throws {
        let directory = try TemporaryDirectory()
        let vault = try create(try engine.freshStore(in: directory))
        try vault.credentials.upsert(server: "example.com", account: "alice", password: SecureBytes(utf8: "one"))
        try vault.credentials.upsert(server: "example.com", account: "bob", password: SecureBytes(utf8: "two"))
        let (copied, inPlace) = try vault.storage.read { db in
            var inPlace: [[StoreValue]] = []
            try db.forEachRowInPlace(CredentialStore.columns, []) { row in
                let blobs = (0..<4).map { index in row.withBlob(index) { StoreValue.blob(Array($0)) } ?? .null }
                inPlace.append(blobs + [row.integer(4).map(StoreValue.integer) ?? .null])
                #expect(row.integer(0) == nil && row.withBlob(4, { _ in true }) == nil)
            }
            return (try db.rows(CredentialStore.columns).map(\.values), inPlace)
        }
        #expect(copied.count == 2)
        #expect(inPlace == copied)
    }

    @Test("apps, verdicts and tokens through the gate; the audit chain verifies", arguments: StorageEngine.allCases)
    func gateAndAudit(engine: StorageEngine) async throws {
        let directory = try TemporaryDirectory()
        let store = try engine.freshStore(in: directory)
        let vault = try create(store)
        try vault.apps.register(
            Self.app, entitlements: Entitlements(strings: ["webcredentials:shop.example"]), at: Date())
        try VaultTestSupport.approve(Self.app, for: ["webcredentials:shop.example"], in: vault)
        let facade = SharedWebCredentials(app: Self.app, vault: vault, verifier: nil)
        try await facade.add(
            domain: Self.shop, account: "alice", password: SecureBytes(utf8: "pw1"), confirm: { _ in true })
        let released = try await facade.request(domain: Self.shop)
        #expect(released.map(\.passwordText) == ["pw1"])
        await #expect(throws: SharedWebCredentialsError.self) {
            _ = try await SharedWebCredentials(app: Self.app, vault: vault, verifier: nil)
                .request(domain: try DomainTarget("elsewhere.example"))
        }

        let issued = try vault.appTokens.create(
            app: Self.app, permissions: [.request], consent: .none, expiresAt: nil, now: Date())
        #expect(try await vault.appTokens.authenticate(issued.token).app == Self.app)
        #expect(try vault.appTokens.revoke(id: issued.record.id))
        #expect(VaultTestSupport.errorCode { _ = try vault.appTokens.authenticate(issued.token) } == .vaultLocked)

        let reopened = try open(store)
        let entries = try reopened.audit.entries()
        #expect(entries.count >= 3)
        let verification = try reopened.audit.verify()
        #expect(verification.problem == nil && verification.entriesChecked == entries.count)
        #expect(try reopened.apps.all().map(\.identifier) == [Self.app])
        #expect(try reopened.integrityReport().untrustedVerdicts == 0)
    }

    @Test(
        "concurrent changes and audit entries: every one saved, the chain linear and intact",
        arguments: StorageEngine.allCases)
    func concurrentWriters(engine: StorageEngine) async throws {
        let directory = try TemporaryDirectory()
        let vault = try create(try engine.freshStore(in: directory))
        try vault.apps.register(
            Self.app, entitlements: Entitlements(strings: ["webcredentials:shop.example"]), at: Date())
        try VaultTestSupport.approve(Self.app, for: ["webcredentials:shop.example"], in: vault)
        let facade = SharedWebCredentials(app: Self.app, vault: vault, verifier: nil)
        let before = try vault.audit.entries().count
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<24 {
                group.addTask {
                    if index.isMultiple(of: 2) {
                        try await facade.add(
                            domain: Self.shop, account: "user\(index)", password: SecureBytes(utf8: "pw\(index)"),
                            confirm: { _ in true })
                    } else {
                        _ = try await vault.audit.append(AuditEvent(actor: .owner, operation: .export))
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try vault.credentials.count() == 12)
        let entries = try vault.audit.entries()
        #expect(entries.count == before + 24)
        #expect(try vault.audit.verify().problem == nil)
        #expect(try vault.integrityReport().recordSetMatchesCommitment)
    }

    @Test(
        "the writers' lock held elsewhere past the busy timeout: a change and a group-committed audit entry fail as busy, reads go on; released, both succeed"
    )
    func writersLockHeldElsewhere() async throws {
        let directory = try TemporaryDirectory()
        let store = try StorageEngine.postgresql.freshStore(in: directory)
        _ = try create(store)
        var configuration = VaultConfiguration()
        configuration.busyTimeout = 0.5
        let vault = try Vault.open(
            store: store, secret: .passphrase(Self.passphrase), configuration: configuration)
        try vault.credentials.upsert(server: "example.com", account: "alice", password: SecureBytes(utf8: "one"))
        guard case .postgresql(let url, _) = store else { return }
        let raw = "postgresql://\(url.user)@/\(url.database)?host=\(url.socketDirectory ?? "")"
        // Another session takes the lock every write transaction takes first, and keeps it until
        // the test ends that session (not for a time: a loaded machine makes any time too short).
        let holder = Thread {
            _ = try? TestPostgres.psql(
                raw,
                "SET application_name = 'lock-holder'; SELECT pg_advisory_lock(\(PostgresStorage.writerLock)); SELECT pg_sleep(120)"
            )
        }
        holder.start()
        // This database's advisory locks only: the cluster is shared with tests running beside.
        let held = """
            SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted
                AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
            """
        let deadline = Date().addingTimeInterval(60)
        while try TestPostgres.psql(raw, held).trimmingCharacters(in: .whitespacesAndNewlines) == "0" {
            guard Date() < deadline else {
                Issue.record("the other session never took the lock")
                return
            }
            usleep(20_000)
        }
        #expect(
            VaultTestSupport.errorCode {
                try vault.credentials.upsert(server: "example.com", account: "bob", password: SecureBytes(utf8: "two"))
            } == .vaultBusy)
        do {
            _ = try await vault.audit.append(AuditEvent(actor: .owner, operation: .export))
            Issue.record("an audit entry was committed while another session held the writers' lock")
        } catch let error as SharedWebCredentialsError {
            #expect(error.code == .vaultBusy, "\(error.message)")
        }
        #expect(try vault.credentials.find(server: "example.com").map(\.account) == ["alice"])
        try TestPostgres.psql(
            raw,
            """
            SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                WHERE application_name = 'lock-holder' AND datname = current_database()
            """)
        while try TestPostgres.psql(raw, held).trimmingCharacters(in: .whitespacesAndNewlines) != "0" {
            guard Date() < deadline else {
                Issue.record("the other session never released the lock")
                return
            }
            usleep(50_000)
        }
        try vault.credentials.upsert(server: "example.com", account: "bob", password: SecureBytes(utf8: "two"))
        _ = try await vault.audit.append(AuditEvent(actor: .owner, operation: .export))
        #expect(try vault.credentials.count() == 2)
        #expect(try vault.audit.verify().problem == nil)
    }

    @Test(
        "a prepared query the server refuses (a role without SELECT on credentials) fails as storage (exit 13), naming the cause"
    )
    func serverErrorOfPreparedQuery() throws {
        let directory = try TemporaryDirectory()
        let store = try StorageEngine.postgresql.freshStore(in: directory)
        _ = try create(store)
        guard case .postgresql(let url, _) = store else { return }
        let raw = "postgresql://\(url.user)@/\(url.database)?host=\(url.socketDirectory ?? "")"
        let role = "reader_" + url.database.suffix(12)
        try TestPostgres.psql(
            raw,
            """
            CREATE ROLE \(role) LOGIN;
            GRANT CREATE ON DATABASE \(url.database) TO \(role);
            GRANT SELECT ON ALL TABLES IN SCHEMA public TO \(role);
            REVOKE SELECT ON credentials FROM \(role);
            """)
        let restricted = try PostgresStoreURL(
            parsing: "postgresql://\(role)@/\(url.database)?host=\(url.socketDirectory ?? "")")
        let vault = try open(.postgresql(restricted, password: nil))
        do {
            _ = try vault.credentials.find(server: "example.com")
            Issue.record("a role without SELECT on credentials read them")
        } catch let error as SharedWebCredentialsError {
            #expect(error.code == .storageFailure)
            #expect(error.message.contains("permission was denied"), "\(error.message)")
        }
        try TestPostgres.psql(raw, "DROP OWNED BY \(role); DROP ROLE \(role)")
    }

    @Test("a trigger added by the database's owner makes open refuse the vault, naming the trigger")
    func triggerRefused() throws {
        let directory = try TemporaryDirectory()
        let store = try StorageEngine.postgresql.freshStore(in: directory)
        _ = try create(store)
        guard case .postgresql(let url, _) = store else { return }
        let raw = "postgresql://\(url.user)@/\(url.database)?host=\(url.socketDirectory ?? "")"
        try TestPostgres.psql(
            raw,
            """
            CREATE SCHEMA elsewhere;
            CREATE FUNCTION elsewhere.approve() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN NEW.verdict := 'approved'; RETURN NEW; END $$;
            CREATE TRIGGER approve_everything BEFORE INSERT OR UPDATE ON associations
                FOR EACH ROW EXECUTE FUNCTION elsewhere.approve();
            """)
        do {
            _ = try open(store)
            Issue.record("the vault opened with a trigger on associations")
        } catch let error as SharedWebCredentialsError {
            #expect(error.code == .integrityFailure)
            #expect(error.message.contains("associations.approve_everything"), "\(error.message)")
        }
        #expect(VaultTestSupport.errorCode { _ = try Vault.inspect(store: store) } == .integrityFailure)
    }

    @Test(
        "VaultTables names exactly the tables and columns each engine's migrations make",
        arguments: StorageEngine.allCases)
    func tablesListed(engine: StorageEngine) throws {
        let directory = try TemporaryDirectory()
        let vault = try create(try engine.freshStore(in: directory))
        let schema: [String: [String]] = try vault.storage.read { db in
            var schema: [String: [String]] = [:]
            switch engine {
            case .sqlite:
                for row in try db.rows(
                    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT IN ('grdb_migrations', 'sqlite_sequence')"
                ) {
                    let table = row.text(0) ?? ""
                    schema[table] = try db.rows("SELECT name FROM pragma_table_info(?) ORDER BY cid", [.text(table)])
                        .compactMap { $0.text(0) }
                }
            case .postgresql:
                for row in try db.rows(
                    "SELECT table_name::text, column_name::text FROM information_schema.columns WHERE table_schema = 'public' AND table_name <> 'swcred_migrations' ORDER BY table_name, ordinal_position"
                ) {
                    schema[row.text(0) ?? "", default: []].append(row.text(1) ?? "")
                }
            }
            return schema
        }
        let listed = Dictionary(uniqueKeysWithValues: VaultTables.all.map { ($0.name, $0.columns) })
        #expect(Set(schema.keys) == Set(listed.keys))
        for (table, columns) in listed { #expect(Set(schema[table] ?? []) == Set(columns), "\(table)") }
    }

    @Test("Vault.copy: SQLite to PostgreSQL to SQLite, every row but the audit log's end byte for byte the same")
    func copiedThereAndBack() throws {
        let directory = try TemporaryDirectory()
        let sqlite = try StorageEngine.sqlite.freshStore(in: directory)
        let source = try create(sqlite)
        try source.credentials.upsert(server: "example.com", account: "alice", password: SecureBytes(utf8: "pw-a"))
        try source.credentials.upsert(server: "shop.example", account: "bob", password: SecureBytes(utf8: "pw-b"))
        try source.apps.register(
            Self.app, entitlements: Entitlements(strings: ["webcredentials:shop.example"]), at: Date())
        try VaultTestSupport.approve(Self.app, for: ["webcredentials:shop.example"], in: source)
        let issued = try source.appTokens.create(
            app: Self.app, permissions: [.request], consent: .none, expiresAt: nil, now: Date())
        try source.neverSave.mark("never.example")
        let secret = VaultSecret.passphrase(Self.passphrase)

        let postgresql = try StorageEngine.postgresql.freshStore(in: directory)
        var progress: [String] = []
        let there = try Vault.copy(from: sqlite, to: postgresql, secret: secret) { progress.append($0.table) }
        #expect(progress == VaultTables.all.map(\.name))
        // What SQLite sealed opens on PostgreSQL, and its token authenticates there.
        #expect(try open(postgresql).credentials.find(server: "example.com").map(\.passwordText) == ["pw-a"])
        #expect(try open(postgresql).appTokens.authenticate(issued.token).app == Self.app)
        #expect(there.destination.isIntact && there.destination.credentialsChecked == 2 && there.tokensChecked == 1)
        let back = VaultStore.file(directory.path("back.sqlite"))
        _ = try Vault.copy(from: postgresql, to: back, secret: secret)

        let returned = try open(back)
        #expect(try returned.credentials.find(server: "shop.example").map(\.passwordText) == ["pw-b"])
        #expect(try returned.appTokens.authenticate(issued.token).app == Self.app)
        func rows(_ vault: Vault, _ table: VaultTables.Table) throws -> [[StoreValue]] {
            try vault.storage.read { db in try db.rows(table.selectAll).map(\.values) }
        }
        for table in VaultTables.all where table.name != "audit_log" && table.name != "vault_meta" {
            #expect(try rows(returned, table) == rows(try open(sqlite), table), "\(table.name)")
        }
        // The audit log is the source's, then one store-copy entry per copy.
        let entries = try returned.audit.entries()
        #expect(entries.suffix(2).map(\.event.operation) == [AuditOperation.storeCopy, .storeCopy])
        #expect(try returned.audit.verify().problem == nil)
        // A second copy into a store that holds the vault is refused, and changes nothing.
        #expect(
            VaultTestSupport.errorCode { _ = try Vault.copy(from: sqlite, to: postgresql, secret: secret) }
                == .vaultExists)
        // (PostgreSQL's log: the source's, "copied from" the file, "copied to" back.sqlite.)
        #expect(try open(postgresql).audit.entries().count == entries.count)
    }

    @Test(
        "psql as the database's owner: no password readable, a verdict flipped to approved refused, a record rolled back, audit entries deleted or reordered, a token widened: each detected"
    )
    func databaseOwnerAttacks() async throws {
        let directory = try TemporaryDirectory()
        let store = try StorageEngine.postgresql.freshStore(in: directory)
        guard case .postgresql(let url, _) = store else { return }
        let raw = "postgresql://\(url.user)@/\(url.database)?host=\(url.socketDirectory ?? "")"
        @discardableResult func psql(_ sql: String) throws -> String { try TestPostgres.psql(raw, sql) }
        let vault = try create(store)
        try vault.credentials.upsert(
            server: "example.com", account: "alice", password: SecureBytes(utf8: "Secret-Pw-1"))
        try vault.apps.register(
            Self.app, entitlements: Entitlements(strings: ["webcredentials:shop.example"]), at: Date())
        try VaultTestSupport.store(
            Self.app, for: ["webcredentials:shop.example"], verdict: .denied, checkedAt: Date(), approvedAt: nil,
            in: vault)
        let issued = try vault.appTokens.create(
            app: Self.app, permissions: [.request], consent: .none, expiresAt: nil, now: Date())

        // Read any password: every table, dumped as text, holds no password, account or host.
        let dump = try VaultTables.all.map { try psql("SELECT * FROM \($0.name)") }.joined()
        for secret in ["Secret-Pw-1", "alice", "example.com"] { #expect(!dump.contains(secret), "\(secret)") }

        // Flip the denied verdict to approved: its MAC fails, so it counts as missing, and with no
        // network to verify again the gate refuses.
        try psql("UPDATE associations SET verdict = 'approved', approved_at = checked_at")
        let gate = SharedWebCredentials(app: Self.app, vault: try open(store), verifier: nil)
        let refused = await VaultTestSupport.errorCode { _ = try await gate.request(domain: Self.shop) }
        #expect(refused != nil)
        #expect(try open(store).integrityReport().untrustedVerdicts == 1)

        // Widen the token's permissions: its MAC fails and the token is refused.
        try psql("UPDATE app_tokens SET permissions = 'add,delete,generate,request'")
        #expect(VaultTestSupport.errorCode { _ = try open(store).appTokens.authenticate(issued.token) } != nil)

        // Roll the credential back to an older ciphertext: detected against the commitment.
        let older = try psql("SELECT encode(sealed, 'hex') || ':' || version FROM credentials").trimmingCharacters(
            in: .newlines)
        try open(store).credentials.upsert(
            server: "example.com", account: "alice", password: SecureBytes(utf8: "Secret-Pw-2"))
        let parts = older.split(separator: ":")
        try psql("UPDATE credentials SET sealed = decode('\(parts[0])', 'hex'), version = \(parts[1])")
        #expect(try !open(store).integrityReport().recordSetMatchesCommitment)
        // The old ciphertext is authentic on its own; the check a service makes at start (and
        // `status --verify`, and a key rotation) refuses the vault.
        #expect(VaultTestSupport.errorCode { try open(store).verifyIntegrity() } == .integrityFailure)
        #expect(VaultTestSupport.errorCode { try open(store).rotateKey() } == .integrityFailure)

        // Reorder audit entries, then delete one: the chain no longer verifies.
        #expect(try open(store).audit.verify().problem == nil)
        #expect(try open(store).audit.entries().count >= 3)
        let swap =
            "UPDATE audit_log SET seq = 1000 WHERE seq = 2; UPDATE audit_log SET seq = 2 WHERE seq = 3; UPDATE audit_log SET seq = 3 WHERE seq = 1000"
        try psql(swap)
        #expect(try open(store).audit.verify().problem != nil)
        try psql(swap)
        #expect(try open(store).audit.verify().problem == nil)
        try psql("DELETE FROM audit_log WHERE seq = 2")
        #expect(try open(store).audit.verify().problem != nil)
    }
}
