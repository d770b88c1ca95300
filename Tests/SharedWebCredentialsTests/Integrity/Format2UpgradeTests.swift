import Foundation
import GRDB
import TestSupport
import Testing

@testable import SharedWebCredentials

/// A vault of format 2, as the release before issue 13 writes it: migrations 0001 to 0005, the
/// vault key wrapped with format 2, credentials sealed for format 2 at version 1 (alice with a
/// version-1 payload, which that release still wrote for credentials saved before notes existed;
/// bob with a version-2 payload carrying a label and notes), a never-save marker sealed for
/// format 2 and the record commitment sealed for format 2. No audit log, no parent-domain index.
struct Format2Vault {
    static let passphrase = VaultTestSupport.passphrase

    @discardableResult
    static func write(at path: String) throws -> VaultKeys {
        let (queue, keys) = try OlderVaultFile.create(at: path, migrations: 5, format: 2)
        try queue.write { db in
            let commitment = RecordCommitment.empty()
            try insert(
                db, keys: keys, commitment: commitment, server: "example.com", account: "alice",
                payload: CredentialDetailsTests.versionOnePayload(
                    server: "example.com", account: "alice", password: "alice-pw", label: "Old"))
            try insert(
                db, keys: keys, commitment: commitment, server: "login.example.com", account: "bob",
                payload: CredentialPayload.encode(
                    scheme: .https, server: "login.example.com", port: nil, account: "bob",
                    password: SecureBytes(utf8: "bob-pw"),
                    details: CredentialDetails(label: "Bob", notes: "note"), created: Date(), modified: Date()))
            let hostIndex = try OlderVaultFile.insertNeverSave(db, keys: keys, host: "blocked.example", format: 2)
            commitment.insertNeverSave(hostIndex: hostIndex, keys: keys)
            try commitment.storeUnsealed(db.store, keys: keys, format: 2)
        }
        return keys
    }

    private static func insert(
        _ db: Database, keys: VaultKeys, commitment: RecordCommitment, server: String, account: String,
        payload: SecureBytes
    ) throws {
        let key = try CredentialKey(server: server, port: nil)
        let id = RandomBytes.array(count: 16)
        let serverIndex = keys.serverIndex(key)
        let accountIndex = keys.accountIndex(key, account: account)
        let sealed = AuthenticatedEncryption.seal(
            payload, key: keys.recordKey,
            associatedData: VaultKeys.credentialAssociatedData(
                id: id, serverIndex: serverIndex, accountIndex: accountIndex, version: 1, format: 2))
        try db.execute(
            sql: "INSERT INTO credentials (id, server_index, account_index, sealed, version) VALUES (?, ?, ?, ?, 1)",
            arguments: [Data(id), Data(serverIndex), Data(accountIndex), Data(sealed)])
        commitment.insertCredential(id: id, version: 1, keys: keys)
    }
}

/// Issue 13: vaults of format 2 upgrade in place at their first unlock, all or nothing: payloads
/// of version 1 are sealed again as version 2, the parent-domain index is built and the audit log
/// starts empty.
@Suite("Format 2 to 3 upgrade")
struct Format2UpgradeTests {
    typealias Support = VaultTestSupport

    @Test("a format-2 vault upgrades at its first unlock, keeps every credential and verifies clean")
    func upgrades() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.sqlite")
        let oldKeys = try Format2Vault.write(at: path)
        #expect(try Vault.inspect(at: path).formatVersion == 2)
        let vault = try Support.open(path)
        #expect(try vault.status().formatVersion == 3)
        let all = try vault.credentials.all()
        #expect(all.map(\.account) == ["alice", "bob"])
        #expect(all.map(\.passwordText) == ["alice-pw", "bob-pw"])
        #expect(
            all.map(\.details) == [CredentialDetails(label: "Old"), CredentialDetails(label: "Bob", notes: "note")])
        #expect(try vault.neverSave.isMarked("blocked.example"))
        let report = try vault.verifyIntegrity()
        #expect(report.credentialsChecked == 2 && report.isIntact && report.parentDomainIndexMatches)
        #expect(try vault.audit.verify() == AuditVerification(entriesChecked: 0, firstBadEntry: nil, problem: nil))
        // Every payload is version 3 now (with its scheme): the first byte of each opened payload.
        let attacker = Attacker(path: path)
        for row in try attacker.rows(CredentialStore.columns) {
            let associatedData = VaultKeys.credentialAssociatedData(
                id: row[0] as Data, serverIndex: row[1] as Data, accountIndex: row[2] as Data, version: row[4])
            let payload = try #require(
                AuthenticatedEncryption.open(
                    Array(row[3] as Data), key: oldKeys.recordKey, associatedData: associatedData))
            #expect(payload.withUnsafeBytes { $0.first } == 3)
        }
        // The index was backfilled: one wildcard lookup finds both, the bare domain included.
        let wildcard = try AssociatedDomainEntry("webcredentials:*.example.com")
        #expect(try vault.credentials.candidates(coveredBy: [wildcard]).map(\.account) == ["alice", "bob"])
        try vault.items.set(server: "example.com", account: "carol", password: SecureBytes(utf8: "c"))
        try Support.open(path).verifyIntegrity()
    }

    @Test("a format-2 vault whose records do not match their commitment is not upgraded at all")
    func allOrNothing() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.sqlite")
        try Format2Vault.write(at: path)
        let attacker = Attacker(path: path)
        try attacker.execute("DELETE FROM credentials WHERE id IN (SELECT id FROM credentials LIMIT 1)")
        let metadata = "SELECT format_version, key_id, wrapped_key, record_commitment FROM vault_meta"
        let before = try attacker.rows(metadata)
        let error = failure { _ = try Support.open(path) }
        #expect(error?.code == .integrityFailure, "\(String(describing: error))")
        #expect(error?.message.contains("was not upgraded") == true, "\(String(describing: error))")
        #expect(try Vault.inspect(at: path).formatVersion == 2)
        #expect(try attacker.rows(metadata) == before, "nothing was changed")
        #expect(try attacker.rows("SELECT * FROM credential_domains").isEmpty)
    }

    @Test("setting format_version back to 2 after the upgrade is refused")
    func downgradeRefused() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.sqlite")
        try Format2Vault.write(at: path)
        _ = try Support.open(path)
        try Attacker(path: path).execute("UPDATE vault_meta SET format_version = 2")
        let error = failure { _ = try Support.open(path) }
        #expect(error?.code == .integrityFailure)
        #expect(error?.message.contains("format was set back") == true, "\(String(describing: error))")
    }
}
