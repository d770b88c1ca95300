import Foundation
import TestSupport
import Testing

@testable import SharedWebCredentials

/// The grant set kept as member rows under a sealed sum (`grant_members`, migration 0012): a
/// member row put back or kept behind swcred's back, and the move from the list that older
/// vaults hold.
extension GrantRollbackTests {
    @Test(
        "a revoked token put back with its member row fails the whole set closed; the owner still revokes, and rekey recovers",
        arguments: StorageEngine.allCases)
    func memberPutBack(engine: StorageEngine) throws {
        let directory = try TemporaryDirectory()
        let (vault, writer) = try makeVault(engine, in: directory)
        let revoked = try vault.appTokens.create(app: Self.app, permissions: [.request], consent: .none, expiresAt: nil)
        let leaked = try vault.appTokens.create(app: Self.app, permissions: [.request], consent: .none, expiresAt: nil)
        try VaultTestSupport.approve(Self.app, for: ["webcredentials:shop.example"], in: vault)
        let row = try writer.copy("app_tokens", where: "id = '\(revoked.record.id)'")
        let member = try writer.copy(
            "grant_members", where: "mac = (SELECT mac FROM app_tokens WHERE id = '\(revoked.record.id)')")
        #expect(row.count == 1 && member.count == 1)
        try vault.appTokens.revoke(id: revoked.record.id)
        for statement in row + member { try writer.execute(statement) }

        // This process checked the members against the sum before and keeps them: the put-back
        // token is refused, the live one still works.
        let refused = failure { _ = try vault.appTokens.authenticate(revoked.token) }
        #expect(refused?.code == .integrityFailure, "\(String(describing: refused))")
        #expect(try vault.appTokens.authenticate(leaked.token).app == Self.app)
        // A write of grants in between does not bless the member row put back.
        _ = try vault.appTokens.create(app: Self.app, permissions: [.add], consent: .none, expiresAt: nil)
        let report = try vault.integrityReport()
        #expect(!report.grantSetIsAuthentic && !report.isIntact, "\(report.problems)")
        #expect(
            report.problems.contains { $0.contains("members that do not match its sealed sum") }, "\(report.problems)")
        if case .file(let path) = writer.store {
            // A process that reads the members afresh finds they do not match the sum: nothing is granted.
            let list = try SwcredProcess.run(
                ["app", "token", "list", Self.app.description, "--vault", path],
                environment: ["SWCRED_PASSPHRASE": VaultTestSupport.passphrase])
            #expect(list.status == 9, "\(list.stdout)\(list.stderr)")
            #expect(list.stderr.contains("do not match their sealed grant set"), "\(list.stderr)")
        }

        // The owner is never stopped from taking access away.
        #expect(try vault.appTokens.revoke(id: leaked.record.id))
        let rotation = try vault.rotateKey()
        #expect(rotation.revokedAppTokens == 2)
        let after = try vault.integrityReport()
        #expect(after.isIntact, "\(after.problems)")
        #expect(try writer.count("SELECT count(*) FROM associations") == 0)
        #expect(try vault.apps.find(Self.app) != nil)
        #expect(failure { _ = try vault.appTokens.authenticate(revoked.token) }?.code == .vaultLocked)
        let details = try vault.audit.entries().compactMap(\.event.detail)
        #expect(details.contains { $0.contains("members did not match their sealed sum") }, "\(details)")
    }

    @Test(
        "a handle that did not make a change checks the members again from the ones it had: a change another made is taken, a member row put back is not"
    )
    func membersCheckedAgainByDifference() throws {
        let directory = try TemporaryDirectory()
        let (vault, writer) = try makeVault(.sqlite, in: directory)
        let kept = try vault.appTokens.create(app: Self.app, permissions: [.request], consent: .none, expiresAt: nil)
        let revoked = try vault.appTokens.create(app: Self.app, permissions: [.request], consent: .none, expiresAt: nil)
        // Another location of the same file: its own checked members, as another process has.
        let link = directory.path("link.sqlite")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: vault.path)
        let other = try VaultTestSupport.open(link)
        #expect(try other.appTokens.authenticate(revoked.token).app == Self.app)

        let row = try writer.copy("app_tokens", where: "id = '\(revoked.record.id)'")
        let member = try writer.copy(
            "grant_members", where: "mac = (SELECT mac FROM app_tokens WHERE id = '\(revoked.record.id)')")
        try vault.appTokens.revoke(id: revoked.record.id)
        let added = try vault.appTokens.create(app: Self.app, permissions: [.add], consent: .none, expiresAt: nil)
        #expect(try other.appTokens.authenticate(kept.token).app == Self.app)
        #expect(try other.appTokens.authenticate(added.token).app == Self.app)
        #expect(failure { _ = try other.appTokens.authenticate(revoked.token) }?.code == .vaultLocked)

        // Put back with its member row, then one more change: the other handle's check of the
        // difference finds a member the sum does not hold, and grants nothing.
        for statement in row + member { try writer.execute(statement) }
        _ = try vault.appTokens.create(app: Self.app, permissions: [.add], consent: .none, expiresAt: nil)
        #expect(failure { _ = try other.appTokens.authenticate(kept.token) }?.code == .integrityFailure)
        #expect(failure { _ = try other.appTokens.authenticate(revoked.token) }?.code == .integrityFailure)
    }

    @Test("a table owner's trigger that keeps a member row swcred deletes makes the set fail closed, not grant")
    func memberDeletionKeptByTrigger() throws {
        let directory = try TemporaryDirectory()
        let (vault, writer) = try makeVault(.postgresql, in: directory)
        let issued = try vault.appTokens.create(app: Self.app, permissions: [.request], consent: .none, expiresAt: nil)
        try writer.execute(
            "CREATE FUNCTION keep() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$; CREATE TRIGGER keep_token BEFORE DELETE ON app_tokens FOR EACH ROW EXECUTE FUNCTION keep(); CREATE TRIGGER keep_member BEFORE DELETE ON grant_members FOR EACH ROW EXECUTE FUNCTION keep()"
        )
        #expect(try vault.appTokens.revoke(id: issued.record.id))
        let refused = failure { _ = try vault.appTokens.authenticate(issued.token) }
        #expect(refused?.code == .integrityFailure, "\(String(describing: refused))")
        #expect(!(try vault.integrityReport().grantSetIsAuthentic))
    }

    @Test(
        "a vault whose grant set is a list moves it into members at its first unlock: what the list refused stays refused",
        arguments: StorageEngine.allCases)
    func listMovedToMembers(engine: StorageEngine) throws {
        let directory = try TemporaryDirectory()
        let (vault, writer) = try makeVault(engine, in: directory)
        let kept = try vault.appTokens.create(app: Self.app, permissions: [.request], consent: .none, expiresAt: nil)
        let revoked = try vault.appTokens.create(app: Self.app, permissions: [.request], consent: .none, expiresAt: nil)
        let row = try writer.copy("app_tokens", where: "id = '\(revoked.record.id)'")
        try vault.appTokens.revoke(id: revoked.record.id)
        for statement in row { try writer.execute(statement) }
        try GrantListFixture.rewind(vault, engine: engine, execute: writer.execute)
        #expect(try writer.count("SELECT count(*) FROM vault_meta WHERE length(grant_set) = 32 * 3") == 1)

        let reopened = try Vault.open(
            store: writer.store, secret: .passphrase(SecureBytes(utf8: VaultTestSupport.passphrase)))
        #expect(try writer.count("SELECT count(*) FROM vault_meta WHERE length(grant_set) = 64") == 1)
        #expect(try writer.count("SELECT count(*) FROM grant_members") == 2)
        #expect(try reopened.appTokens.authenticate(kept.token).app == Self.app)
        #expect(failure { _ = try reopened.appTokens.authenticate(revoked.token) }?.code == .integrityFailure)
        let report = try reopened.integrityReport()
        #expect(report.grantSetIsAuthentic && report.grantRowsPutBack == 1 && report.grantRowsMissing == 0)
    }

    @Test("a list of one MAC, as long as a sum and its MAC, is moved all the same")
    func listOfOneMoved() throws {
        let directory = try TemporaryDirectory()
        let (vault, writer) = try makeVault(.sqlite, in: directory)
        try GrantListFixture.rewind(vault, engine: .sqlite, execute: writer.execute)
        #expect(try writer.count("SELECT count(*) FROM vault_meta WHERE length(grant_set) = 64") == 1)
        let reopened = try VaultTestSupport.open(vault.path)
        #expect(try writer.count("SELECT count(*) FROM grant_members") == 1)
        #expect(try reopened.apps.find(Self.app) != nil)
        #expect(try reopened.integrityReport().isIntact)
    }

    @Test("a list edited behind swcred's back is not moved: the vault still opens, grants nothing, and rekey recovers")
    func editedListNotMoved() throws {
        let directory = try TemporaryDirectory()
        let (vault, writer) = try makeVault(.sqlite, in: directory)
        let issued = try vault.appTokens.create(app: Self.app, permissions: [.request], consent: .none, expiresAt: nil)
        try GrantListFixture.rewind(vault, engine: .sqlite, execute: writer.execute)
        // The last listed MAC zeroed: the state seal covers only the list's first 32 bytes.
        try writer.execute(
            "UPDATE vault_meta SET grant_set = CAST(substr(grant_set, 1, length(grant_set) - 32) || zeroblob(32) AS BLOB)"
        )

        let reopened = try VaultTestSupport.open(vault.path)
        #expect(failure { _ = try reopened.appTokens.authenticate(issued.token) }?.code == .integrityFailure)
        #expect(!(try reopened.integrityReport().grantSetIsAuthentic))
        try reopened.rotateKey()
        #expect(try reopened.integrityReport().isIntact)
    }
}

extension GrantRollbackTests.Writer {
    /// The single integer a query returns.
    func count(_ sql: String) throws -> Int {
        switch store {
        case .file(let path): return try Attacker(path: path).rows(sql)[0][0] as Int
        case .postgresql(let url, _):
            return Int(
                try TestPostgres.psql(
                    "postgresql://\(url.user)@/\(url.database)?host=\(url.socketDirectory ?? "")", sql
                ).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        }
    }
}

/// A vault as swcred left it before migration 0012: the grant set as a list in
/// `vault_meta.grant_set` (a MAC over the sorted MACs of the granted rows, then those MACs) under
/// the state seal, and no `grant_members` table.
enum GrantListFixture {
    /// Rewrites `vault`'s grant set as the list of its members, and takes migration 0012 (and
    /// those after it) back.
    static func rewind(_ vault: Vault, engine: StorageEngine, execute: (String) throws -> Void) throws {
        try vault.write { db, keys in
            let macs = try GrantSet.memberRows(db).sorted { $0.lexicographicallyPrecedes($1) }
            let tag = keys.stateMAC(table: "vault_meta", fields: [Array("grant_set".utf8), keys.keyID] + macs)
            try db.perform("UPDATE vault_meta SET grant_set = ? WHERE id = 1", [.blob(tag + macs.joined())])
            try StateSeal.reseal(db, keys: keys, path: vault.path)
        }
        // The migrations after it go too, so that the vault is as swcred left it then.
        for statement in [
            "DROP TABLE audit_chain_log", "DROP TABLE audit_chains",
            "ALTER TABLE vault_meta DROP COLUMN audit_checkpoint",
            "DROP TABLE grant_members",
        ] {
            try execute(statement)
        }
        switch engine {
        case .sqlite:
            try execute(
                "DELETE FROM grdb_migrations WHERE identifier IN ('0012_grant_members', '0013_audit_chains')")
        case .postgresql:
            try execute(
                "DELETE FROM swcred_migrations WHERE identifier IN ('0007_grant_members', '0008_audit_chains')")
        }
    }
}
