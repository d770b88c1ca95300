import Foundation
import GRDB
import TestSupport
import Testing

@testable import SharedWebCredentials

/// Rows that grant access put back from an older copy of the vault, as someone who can write the
/// SQLite file or the PostgreSQL tables would: a revoked token, a removed app, an app's wider
/// entitlement, an older verdict. Each is refused where it would grant, and `status --verify`
/// (the integrity report) names it, on both engines.
@Suite("Rows that grant access, put back from an older copy")
struct GrantRollbackTests {
    static let app = try! ApplicationIdentifier("ABCDE12345.com.example.app")

    /// SQL run on the store behind swcred's back.
    struct Writer {
        let store: VaultStore

        func execute(_ sql: String) throws {
            switch store {
            case .file(let path): try Attacker(path: path).execute(sql)
            case .postgresql(let url, _): _ = try TestPostgres.psql(Self.raw(url), sql)
            }
        }

        /// The statements that insert the rows of `table` matching `condition` as they are now:
        /// what an attacker keeps of a copy to put back later.
        func copy(_ table: String, where condition: String) throws -> [String] {
            let columns = try #require(VaultTables.all.first { $0.name == table }).columns
            let names = columns.joined(separator: ", ")
            switch store {
            case .file(let path):
                let values = columns.map { "quote(\($0))" }.joined(separator: " || ', ' || ")
                return try Attacker(path: path).rows(
                    "SELECT 'INSERT INTO \(table) (\(names)) VALUES (' || \(values) || ')' FROM \(table) WHERE \(condition)"
                ).map { $0[0] as String }
            case .postgresql(let url, _):
                let values = columns.map { "quote_nullable(\($0))" }.joined(separator: ", ")
                return try TestPostgres.psql(
                    Self.raw(url),
                    "SELECT format('INSERT INTO \(table) (\(names)) VALUES (%s)', concat_ws(', ', \(values))) FROM \(table) WHERE \(condition)"
                ).split(separator: "\n").map(String.init)
            }
        }

        private static func raw(_ url: PostgresStoreURL) -> String {
            "postgresql://\(url.user)@/\(url.database)?host=\(url.socketDirectory ?? "")"
        }
    }

    func makeVault(_ engine: StorageEngine, in directory: TemporaryDirectory) throws -> (Vault, Writer) {
        let store = try engine.freshStore(in: directory)
        let vault = try Vault.create(
            in: store, protection: .passphrase(SecureBytes(utf8: VaultTestSupport.passphrase), VaultTestSupport.fastKDF)
        )
        try vault.apps.register(
            Self.app,
            entitlements: Entitlements(strings: ["webcredentials:shop.example", "webcredentials:old.example"]),
            at: Date())
        return (vault, Writer(store: store))
    }

    @Test("a revoked token put back lets nothing in, and the report counts it", arguments: StorageEngine.allCases)
    func revokedTokenPutBack(engine: StorageEngine) throws {
        let directory = try TemporaryDirectory()
        let (vault, writer) = try makeVault(engine, in: directory)
        let issued = try vault.appTokens.create(app: Self.app, permissions: [.request], consent: .none, expiresAt: nil)
        let kept = try writer.copy("app_tokens", where: "id = '\(issued.record.id)'")
        #expect(kept.count == 1)
        try vault.appTokens.revoke(id: issued.record.id)
        for statement in kept { try writer.execute(statement) }

        let refused = failure { _ = try vault.appTokens.authenticate(issued.token) }
        #expect(refused?.code == .integrityFailure, "\(String(describing: refused))")
        #expect(refused?.message.contains("is not in its sealed grant set") == true, "\(String(describing: refused))")
        let report = try vault.integrityReport()
        #expect(report.grantRowsPutBack == 1 && report.grantRowsMissing == 0 && !report.isIntact, "\(report)")
        // A write never blesses it: another token is made, and the put-back one stays refused.
        _ = try vault.appTokens.create(app: Self.app, permissions: [.add], consent: .none, expiresAt: nil)
        #expect(failure { _ = try vault.appTokens.authenticate(issued.token) }?.code == .integrityFailure)
        #expect(try vault.integrityReport().grantRowsPutBack == 1)
    }

    @Test(
        "a trigger that puts a revoked token back during swcred's own write does not get it sealed",
        arguments: StorageEngine.allCases)
    func triggerPutsTokenBack(engine: StorageEngine) throws {
        let directory = try TemporaryDirectory()
        let (vault, writer) = try makeVault(engine, in: directory)
        let issued = try vault.appTokens.create(app: Self.app, permissions: [.request], consent: .none, expiresAt: nil)
        let kept = try #require(try writer.copy("app_tokens", where: "id = '\(issued.record.id)'").first)
        try vault.appTokens.revoke(id: issued.record.id)
        // Every write appends an audit entry: the trigger puts the token back inside the very
        // transaction that then seals the grant set.
        switch engine {
        case .sqlite:
            try writer.execute("CREATE TRIGGER put_back AFTER INSERT ON audit_log BEGIN \(kept); END")
        case .postgresql:
            try writer.execute(
                "CREATE FUNCTION put_back() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NOT EXISTS (SELECT 1 FROM app_tokens WHERE id = '\(issued.record.id)') THEN \(kept); END IF; RETURN NULL; END $$; CREATE TRIGGER put_back AFTER INSERT ON audit_log FOR EACH STATEMENT EXECUTE FUNCTION put_back()"
            )
        }
        let write = failure {
            _ = try vault.appTokens.create(app: Self.app, permissions: [.add], consent: .none, expiresAt: nil)
        }
        switch engine {
        case .sqlite:
            // SQLite runs no trigger on swcred's connections, and the changed schema is refused.
            #expect(write?.code == .integrityFailure, "\(String(describing: write))")
            #expect(write?.message.contains("trigger \"put_back\"") == true, "\(String(describing: write))")
            try writer.execute("DROP TRIGGER put_back")
        case .postgresql:
            // The trigger ran and put the row back; the write sealed only the token it made.
            #expect(write == nil, "\(String(describing: write))")
        }
        let refused = failure { _ = try vault.appTokens.authenticate(issued.token) }
        #expect(
            refused?.code == (engine == .sqlite ? .vaultLocked : .integrityFailure), "\(String(describing: refused))")
        #expect(try vault.integrityReport().grantRowsPutBack == (engine == .sqlite ? 0 : 1))
    }

    @Test("a table owner's trigger that cancels swcred's deletion does not keep the revoked token in the set")
    func deletionCancelledByTrigger() throws {
        let directory = try TemporaryDirectory()
        let (vault, writer) = try makeVault(.postgresql, in: directory)
        let issued = try vault.appTokens.create(app: Self.app, permissions: [.request], consent: .none, expiresAt: nil)
        try writer.execute(
            "CREATE FUNCTION keep() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$; CREATE TRIGGER keep BEFORE DELETE ON app_tokens FOR EACH ROW EXECUTE FUNCTION keep()"
        )
        #expect(try vault.appTokens.revoke(id: issued.record.id))
        let refused = failure { _ = try vault.appTokens.authenticate(issued.token) }
        #expect(refused?.code == .integrityFailure, "\(String(describing: refused))")
        #expect(refused?.message.contains("is not in its sealed grant set") == true, "\(String(describing: refused))")
    }

    @Test(
        "a row put back never stops the owner: revoking, removing and rekeying go through and delete it, audited",
        arguments: StorageEngine.allCases,
        ["token revoke", "put-back token revoke", "browser revoke", "app remove", "rekey"])
    func ownerActsPastPutBackRow(engine: StorageEngine, action: String) throws {
        let directory = try TemporaryDirectory()
        let (vault, writer) = try makeVault(engine, in: directory)
        let leaked = try vault.appTokens.create(app: Self.app, permissions: [.request], consent: .none, expiresAt: nil)
        let revoked = try vault.appTokens.create(app: Self.app, permissions: [.request], consent: .none, expiresAt: nil)
        try vault.browsers.add(id: "firefox", identificationKey: Array(repeating: 7, count: 32))
        let kept = try writer.copy("app_tokens", where: "id = '\(revoked.record.id)'")
        try vault.appTokens.revoke(id: revoked.record.id)
        for statement in kept { try writer.execute(statement) }
        #expect(try vault.appTokens.ungrantedIDs() == [revoked.record.id])
        #expect(try vault.browsers.ungrantedNames().isEmpty)

        switch action {
        case "token revoke": #expect(try vault.appTokens.revoke(id: leaked.record.id))
        case "put-back token revoke": #expect(try vault.appTokens.revoke(id: revoked.record.id))
        case "browser revoke": #expect(try vault.browsers.revoke(id: "firefox"))
        case "app remove": #expect(try vault.apps.remove(Self.app))
        default: try vault.rotateKey()
        }
        #expect(failure { _ = try vault.appTokens.authenticate(revoked.token) }?.code == .vaultLocked)
        let report = try vault.integrityReport()
        #expect(report.isIntact, "\(report.problems)")
        // Removing the app takes its tokens with it, the put-back one among them; revoking the
        // put-back token deletes it by name.
        guard action != "app remove" && action != "put-back token revoke" else { return }
        let details = try vault.audit.entries().compactMap(\.event.detail)
        #expect(
            details.contains {
                $0.contains("removed 1 row(s) the sealed grant set does not hold") && $0.hasSuffix("app_tokens 1")
            },
            "\(details)")
    }

    @Test(
        "a removed app, or its wider entitlement, put back grants nothing; the report counts it",
        arguments: StorageEngine.allCases, [false, true])
    func appPutBack(engine: StorageEngine, narrowed: Bool) async throws {
        let directory = try TemporaryDirectory()
        let (vault, writer) = try makeVault(engine, in: directory)
        let kept = try writer.copy("apps", where: "application_identifier = '\(Self.app)'")
        if narrowed {
            try vault.apps.register(
                Self.app, entitlements: Entitlements(strings: ["webcredentials:shop.example"]), at: Date())
            try writer.execute("DELETE FROM apps")
        } else {
            try vault.apps.remove(Self.app)
        }
        for statement in kept { try writer.execute(statement) }
        let facade = SharedWebCredentials(app: Self.app, vault: vault, verifier: nil)
        let refused = await failure {
            _ = try await facade.request(domain: try DomainTarget("old.example"))
        }
        #expect(refused?.code == .integrityFailure, "\(String(describing: refused))")
        #expect(refused?.message.contains("registration of \(Self.app)") == true, "\(String(describing: refused))")
        let report = try vault.integrityReport()
        #expect(report.grantRowsPutBack == 1, "\(report)")
        #expect(report.grantRowsMissing == (narrowed ? 1 : 0), "\(report)")
    }

    @Test("an older verdict put back over a newer one is not believed", arguments: StorageEngine.allCases)
    func verdictPutBack(engine: StorageEngine) throws {
        let directory = try TemporaryDirectory()
        let (vault, writer) = try makeVault(engine, in: directory)
        let entry = try AssociatedDomainEntry("webcredentials:shop.example")
        let now = Date()
        let approved = AssociationRecord(
            service: .webcredentials, app: Self.app, domain: "shop.example", verdict: .approved, checkedAt: now,
            nextCheck: now + 86_400 * 30, lastError: nil, retryCount: 0, documentDigest: nil, approvedAt: now)
        try vault.associations.save(approved)
        let kept = try writer.copy("associations", where: "domain = 'shop.example'")
        var denied = approved
        denied.verdict = .denied
        try vault.associations.save(denied)
        try writer.execute("DELETE FROM associations WHERE domain = 'shop.example'")
        for statement in kept { try writer.execute(statement) }
        let refused = failure { _ = try vault.associations.record(app: Self.app, entry: entry) }
        #expect(refused?.code == .integrityFailure, "\(String(describing: refused))")
        let report = try vault.integrityReport()
        #expect(report.grantRowsPutBack == 1 && report.grantRowsMissing == 1, "\(report)")
    }

    @Test("a revoked browser put back is listed as granting nothing, and a revocation deletes it")
    func browserPutBackListed() throws {
        let directory = try TemporaryDirectory()
        let (vault, writer) = try makeVault(.sqlite, in: directory)
        try vault.browsers.add(id: "firefox", identificationKey: Array(repeating: 7, count: 32))
        try vault.browsers.add(id: "chromium", identificationKey: Array(repeating: 8, count: 32))
        let kept = try writer.copy("browser_associations", where: "id = 'firefox'")
        try vault.browsers.revoke(id: "firefox")
        for statement in kept { try writer.execute(statement) }
        #expect(try vault.browsers.list().map(\.id) == ["chromium", "firefox"])
        #expect(try vault.browsers.ungrantedNames() == ["firefox"])
        #expect(try vault.browsers.revoke(id: "chromium"))
        #expect(try vault.browsers.list().isEmpty)
        #expect(try vault.integrityReport().isIntact)
    }

    @Test("a forged token or browser row is reported by table and count", arguments: StorageEngine.allCases)
    func forgedRowsReported(engine: StorageEngine) throws {
        let directory = try TemporaryDirectory()
        let (vault, writer) = try makeVault(engine, in: directory)
        let issued = try vault.appTokens.create(app: Self.app, permissions: [.request], consent: .none, expiresAt: nil)
        try vault.browsers.add(id: "firefox", identificationKey: Array(repeating: 7, count: 32))
        #expect(try vault.integrityReport().unauthenticRows.isEmpty)
        // A wider grant on the token and on the browser, their MACs kept.
        try writer.execute("UPDATE app_tokens SET permissions = 'add,delete,request' WHERE id = '\(issued.record.id)'")
        try writer.execute("UPDATE browser_associations SET allow_http = 1 WHERE id = 'firefox'")
        let report = try vault.integrityReport()
        #expect(report.untrustedAppTokens == 1 && report.untrustedBrowserAssociations == 1, "\(report)")
        #expect(report.unauthenticRows.map(\.table) == ["app_tokens", "browser_associations"], "\(report)")
        #expect(!report.isIntact)
        #expect(report.problems.contains { $0.hasPrefix("1 app token(s) failed authentication") }, "\(report.problems)")
    }

    @Test("a row removed behind swcred's back is reported, and the owner can still remove what is left")
    func rowRemoved() throws {
        let directory = try TemporaryDirectory()
        let (vault, writer) = try makeVault(.sqlite, in: directory)
        let issued = try vault.appTokens.create(app: Self.app, permissions: [.request], consent: .none, expiresAt: nil)
        try writer.execute("DELETE FROM app_tokens")
        #expect(try vault.integrityReport().grantRowsMissing == 1)
        #expect(failure { _ = try vault.appTokens.authenticate(issued.token) }?.code == .vaultLocked)
        #expect(try vault.apps.remove(Self.app))
    }

    @Test("the grant set and the state seal edited in place fail closed", arguments: ["grant_set", "state_seal"])
    func sealedColumnsEdited(column: String) throws {
        let directory = try TemporaryDirectory()
        let (vault, writer) = try makeVault(.sqlite, in: directory)
        let issued = try vault.appTokens.create(app: Self.app, permissions: [.request], consent: .none, expiresAt: nil)
        try writer.execute("UPDATE vault_meta SET \(column) = zeroblob(length(\(column)))")
        #expect(failure { _ = try vault.appTokens.authenticate(issued.token) }?.code == .integrityFailure)
        #expect(!(try vault.integrityReport().isIntact))
    }

    @Test("a put-back token's MAC added to the members, the sum kept, fails closed")
    func macAddedToMembers() throws {
        let directory = try TemporaryDirectory()
        let (vault, writer) = try makeVault(.sqlite, in: directory)
        let issued = try vault.appTokens.create(app: Self.app, permissions: [.request], consent: .none, expiresAt: nil)
        let kept = try writer.copy("app_tokens", where: "1 = 1")
        try vault.appTokens.revoke(id: issued.record.id)
        for statement in kept { try writer.execute(statement) }
        try writer.execute("INSERT INTO grant_members (mac) SELECT mac FROM app_tokens")
        let refused = failure { _ = try vault.appTokens.authenticate(issued.token) }
        #expect(refused?.code == .integrityFailure, "\(String(describing: refused))")
        #expect(!(try vault.integrityReport().isIntact))
    }

    @Test("the grant set and seal rolled back with the rows: the seal no longer matches the audit head")
    func wholeGrantStateRolledBack() throws {
        let directory = try TemporaryDirectory()
        let (vault, writer) = try makeVault(.sqlite, in: directory)
        let issued = try vault.appTokens.create(app: Self.app, permissions: [.request], consent: .none, expiresAt: nil)
        let tokens = try writer.copy("app_tokens", where: "1 = 1")
        let meta = try Attacker(path: vault.path).rows("SELECT grant_set, state_seal FROM vault_meta")[0]
        try vault.appTokens.revoke(id: issued.record.id)
        for statement in tokens { try writer.execute(statement) }
        try Attacker(path: vault.path).execute(
            "UPDATE vault_meta SET grant_set = ?, state_seal = ?",
            arguments: [meta["grant_set"] as Data, meta["state_seal"] as Data])
        let refused = failure { _ = try vault.appTokens.authenticate(issued.token) }
        #expect(refused?.code == .integrityFailure, "\(String(describing: refused))")
        #expect(refused?.message.contains("sealed state") == true, "\(String(describing: refused))")
        #expect(try !vault.integrityReport().stateSealMatches)
    }
}
