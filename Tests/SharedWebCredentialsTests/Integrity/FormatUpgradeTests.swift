import Foundation
import GRDB
import SharedWebCredentialsData
import TestSupport
import Testing

@testable import SharedWebCredentials

/// A vault of format 1, as the first release writes it: migrations 0001 and 0002 only, the vault
/// key wrapped with format 1 in its associated data, credentials sealed without a version,
/// never-save markers sealed for format 1, apps and verdicts in plaintext without MACs.
struct LegacyVault {
    static let passphrase = VaultTestSupport.passphrase
    static let app = LoopbackSite.app

    /// Writes one at `path` with alice and bob on example.com, a never-save marker, a registered
    /// app and an approved verdict. Returns the vault key's record key, to seal more records.
    @discardableResult
    static func write(at path: String) throws -> VaultKeys {
        let (queue, keys) = try OlderVaultFile.create(at: path, migrations: 2, format: 1)
        let now = Date()
        try queue.write { db in
            for account in ["alice", "bob"] {
                try insertLegacyCredential(db, keys: keys, account: account, password: "\(account)-pw")
            }
            try OlderVaultFile.insertNeverSave(db, keys: keys, host: "blocked.example", format: 1)
            try db.execute(
                sql: "INSERT INTO apps (application_identifier, entitlements, registered_at) VALUES (?, ?, ?)",
                arguments: [app.description, #"["webcredentials:example.com"]"#, now])
            try db.execute(
                sql: """
                    INSERT INTO associations (service, app, domain, verdict, checked_at, next_check, approved_at)
                    VALUES ('webcredentials', ?, 'example.com', 'approved', ?, ?, ?)
                    """,
                arguments: [app.description, now, now.addingTimeInterval(4 * 86_400), now])
        }
        return keys
    }

    /// Seals a credential as format 1 does (no version in the associated data).
    static func insertLegacyCredential(_ db: Database, keys: VaultKeys, account: String, password: String) throws {
        let key = try CredentialKey(server: "example.com", port: nil)
        let id = RandomBytes.array(count: 16)
        let serverIndex = keys.serverIndex(key)
        let accountIndex = keys.accountIndex(key, account: account)
        let payload = CredentialPayload.encode(
            scheme: .https, server: key.server, port: nil, account: account, password: SecureBytes(utf8: password),
            details: .none,
            created: Date(), modified: Date())
        let sealed = AuthenticatedEncryption.seal(
            payload, key: keys.recordKey,
            associatedData: VaultKeys.legacyCredentialAssociatedData(
                id: id, serverIndex: serverIndex, accountIndex: accountIndex))
        try db.execute(
            sql: "INSERT INTO credentials (id, server_index, account_index, sealed) VALUES (?, ?, ?, ?)",
            arguments: [Data(id), Data(serverIndex), Data(accountIndex), Data(sealed)])
    }
}

/// The start of a vault file as an earlier release writes it, for the upgrade tests: the first
/// `migrations` schema migrations, and the vault key wrapped with the test passphrase for `format`.
enum OlderVaultFile {
    static func create(at path: String, migrations: Int, format: UInt32) throws -> (DatabaseQueue, VaultKeys) {
        let queue = try DatabaseQueue(path: path)
        var migrator = DatabaseMigrator()
        for migration in EmbeddedMigrations.all.prefix(migrations) {
            let sql = migration.sql
            migrator.registerMigration(migration.identifier) { db in try db.execute(sql: sql) }
        }
        try migrator.migrate(queue)
        let salt = RandomBytes.array(count: PasswordHashing.saltLength)
        let parameters = VaultTestSupport.fastKDF
        let wrappingKey = try PasswordHashing.deriveKey(
            length: AuthenticatedEncryption.keyLength, passphrase: SecureBytes(utf8: VaultTestSupport.passphrase),
            salt: salt, parameters: parameters)
        let keys = VaultKeys.generate(wrappingKey: wrappingKey)
        let protection = VaultMetadata.Protection.passphrase(salt: salt, parameters: parameters)
        let wrapped = AuthenticatedEncryption.seal(
            keys.vaultKey, key: wrappingKey,
            associatedData: VaultKeys.wrappedKeyAssociatedData(
                keyID: keys.keyID, protection: protection, format: format, epoch: 0))
        try queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO vault_meta (id, format_version, kdf_algorithm, kdf_salt, kdf_opslimit, kdf_memlimit, key_id, wrapped_key)
                    VALUES (1, ?, 'argon2id13', ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    Int64(format), Data(salt), Int64(parameters.opslimit), Int64(parameters.memlimit),
                    Data(keys.keyID), Data(wrapped),
                ])
        }
        return (queue, keys)
    }

    /// A never-save marker for `host`, sealed for `format`; returns its host index.
    @discardableResult
    static func insertNeverSave(_ db: Database, keys: VaultKeys, host: String, format: UInt32) throws -> [UInt8] {
        let hostIndex = keys.hostIndex(host)
        let sealedHost = AuthenticatedEncryption.seal(
            SecureBytes(utf8: host), key: keys.recordKey,
            associatedData: VaultKeys.neverSaveAssociatedData(hostIndex: hostIndex, format: format))
        try db.execute(
            sql: "INSERT INTO never_save (host_index, sealed_host, created_at) VALUES (?, ?, ?)",
            arguments: [Data(hostIndex), Data(sealedHost), Int64(Date().timeIntervalSince1970)])
        return hostIndex
    }
}

/// Issue 11, finding 2: vaults of format 1 upgrade in place at their first unlock, all or nothing,
/// and an upgraded vault cannot be sent back down the unauthenticated path.
@Suite("Format 1 upgrade")
struct FormatUpgradeTests {
    typealias Support = VaultTestSupport

    @Test("a format-1 vault upgrades at its first unlock and verifies clean")
    func upgrades() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.sqlite")
        try LegacyVault.write(at: path)
        #expect(try Vault.inspect(at: path).formatVersion == 1)
        let vault = try Support.open(path)
        #expect(try vault.status().formatVersion == Int(VaultKeys.formatVersion))
        #expect(try vault.credentials.find(server: "example.com").map(\.passwordText) == ["alice-pw", "bob-pw"])
        #expect(try vault.neverSave.isMarked("blocked.example"))
        #expect(try vault.apps.require(LegacyVault.app).entitlements.webcredentialsEntries.count == 1)
        let verdict = try #require(try vault.associations.all().first)
        #expect(verdict.verdict == .approved)
        #expect(verdict.nextCheck <= Date(), "unauthenticated verdicts are re-checked at their next use")
        let report = try vault.verifyIntegrity()
        #expect(report.credentialsChecked == 2 && report.isIntact)
        let attacker = Attacker(path: path)
        #expect(try attacker.rows("SELECT version FROM credentials").allSatisfy { $0[0] as Int64 == 1 })
        #expect(
            try attacker.rows("SELECT mac FROM apps UNION ALL SELECT mac FROM associations").allSatisfy {
                !$0.hasNull(atIndex: 0)
            })
        // And it keeps working as a current vault, in a later process too.
        try vault.credentials.upsert(server: "example.com", account: "alice", password: SecureBytes(utf8: "new"))
        try Support.open(path).verifyIntegrity()
    }

    @Test("setting format_version back to 1 after the upgrade is refused: the format is bound to the key")
    func downgradeRefused() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.sqlite")
        try LegacyVault.write(at: path)
        _ = try Support.open(path)
        let attacker = Attacker(path: path)
        // The attacker wants the upgrade to run again and MAC a forged verdict.
        try attacker.execute("UPDATE vault_meta SET format_version = 1")
        try attacker.execute(
            "UPDATE associations SET approved_at = '2099-01-01 00:00:00.000', next_check = '2099-01-01 00:00:00.000', mac = NULL"
        )
        let before = try attacker.rows("SELECT * FROM vault_meta").first
        let error = failure { _ = try Support.open(path) }
        #expect(error?.code == .integrityFailure, "\(String(describing: error))")
        #expect(error?.message.contains("format was set back") == true, "\(String(describing: error))")
        #expect(try attacker.rows("SELECT * FROM vault_meta").first == before, "nothing was changed")
        #expect(try attacker.rows("SELECT mac FROM associations").allSatisfy { $0.hasNull(atIndex: 0) })
    }

    @Test("a format-1 vault with a damaged credential is not upgraded at all")
    func allOrNothing() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.sqlite")
        try LegacyVault.write(at: path)
        let attacker = Attacker(path: path)
        try attacker.execute(
            "UPDATE credentials SET sealed = zeroblob(length(sealed)) WHERE id IN (SELECT id FROM credentials LIMIT 1)"
        )
        let error = failure { _ = try Support.open(path) }
        #expect(error?.code == .integrityFailure)
        #expect(error?.message.contains("was not upgraded") == true, "\(String(describing: error))")
        #expect(try Vault.inspect(at: path).formatVersion == 1)
        #expect(try attacker.rows("SELECT version FROM credentials").allSatisfy { $0[0] as Int64 == 0 })
        #expect(try attacker.rows("SELECT record_commitment FROM vault_meta").first?.hasNull(atIndex: 0) == true)
    }

    @Test("a format-1 approval dated in the future is dropped by the upgrade, not given a MAC")
    func futureLegacyApprovalDropped() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.sqlite")
        try LegacyVault.write(at: path)
        try Attacker(path: path).execute("UPDATE associations SET approved_at = '2099-01-01 00:00:00.000'")
        let vault = try Support.open(path)
        #expect(try vault.associations.all().isEmpty)
        try vault.verifyIntegrity()
    }
}
