import Foundation
import GRDB
import TestSupport

@testable import SharedWebCredentials

/// Helpers shared by the vault tests: fast KDF parameters, and raw access to a vault's file.
enum VaultTestSupport {
    /// The cheapest Argon2id libsodium accepts: the KDF is not what these tests check.
    static let fastKDF = try! KDFParameters(opslimit: 1, memlimit: 8192)

    /// The passphrase of test vaults.
    static let passphrase = "correct horse battery staple"

    /// Creates a vault protected by ``passphrase`` in `directory`.
    static func makeVault(in directory: TemporaryDirectory, name: String = "vault.sqlite") throws -> Vault {
        try Vault.create(
            at: directory.path(name), protection: .passphrase(SecureBytes(utf8: passphrase), fastKDF))
    }

    /// Stores a fresh approval of `app` by each `webcredentials:` entry's site, due for a re-check
    /// in a day, as a verification would: for tests about the gate, not about fetching. Written
    /// without the `verdict-change` entry a verification appends, so that the audit log of a test
    /// holds only the entries of what it does.
    static func approve(_ app: ApplicationIdentifier, for entries: [String], in vault: Vault) throws {
        let now = Date()
        try store(app, for: entries, verdict: .approved, checkedAt: now, approvedAt: now, in: vault)
    }

    /// Stores a verdict of each entry's site on `app` as it stood after a check at `checkedAt`
    /// (an approval from `approvedAt`), due again a day after that check.
    static func store(
        _ app: ApplicationIdentifier, for entries: [String], verdict: AssociationVerdict, checkedAt: Date,
        approvedAt: Date?, lastError: String? = nil, in vault: Vault
    ) throws {
        let records = try entries.map { entry in
            AssociationRecord(
                service: .webcredentials, app: app,
                domain: AssociationStore.domainKey(for: try AssociatedDomainEntry(entry)), verdict: verdict,
                checkedAt: checkedAt, nextCheck: checkedAt + 86_400, lastError: lastError, retryCount: 0,
                documentDigest: nil, approvedAt: approvedAt)
        }
        try vault.write(grants: { db, keys, changes in
            for record in records {
                try AuthenticatedTable.associations.write(
                    AssociationStore.values(of: record), db: db, keys: keys, changes: changes)
            }
        })
    }

    /// Opens a vault with a passphrase given as a string.
    static func open(_ path: String, passphrase: String = passphrase) throws -> Vault {
        try Vault.open(at: path, secret: .passphrase(SecureBytes(utf8: passphrase)))
    }

    /// A connection to the vault file that bypasses the vault, as an attacker with the file would.
    static func rawDatabase(_ path: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        return try DatabaseQueue(path: path, configuration: configuration)
    }

    /// The ids of the credential rows, in a stable order.
    static func rowIDs(_ path: String) throws -> [Data] {
        try rawDatabase(path).read { db in try Data.fetchAll(db, sql: "SELECT id FROM credentials ORDER BY id") }
    }

    /// Bytes of every file of the vault (main file, WAL, shared memory) that exists.
    static func fileBytes(_ path: String) -> [String: Data] {
        var files: [String: Data] = [:]
        for suffix in ["", "-wal", "-shm"] {
            if let data = FileManager.default.contents(atPath: path + suffix) { files[path + suffix] = data }
        }
        return files
    }

    /// The error code a throwing call fails with, or nil if it succeeds.
    static func errorCode(_ body: () throws -> Void) -> SharedWebCredentialsError.Code? {
        do {
            try body()
            return nil
        } catch let error as SharedWebCredentialsError {
            return error.code
        } catch {
            return .internalError
        }
    }

    /// The error code an async throwing call fails with, or nil if it succeeds.
    static func errorCode(_ body: () async throws -> Void) async -> SharedWebCredentialsError.Code? {
        do {
            try await body()
            return nil
        } catch let error as SharedWebCredentialsError {
            return error.code
        } catch {
            return .internalError
        }
    }
}

extension Credential {
    /// The password as a string, for assertions.
    var passwordText: String { password.exposedString() }
}

extension Vault {
    /// The SQLite writer connection behind the vault, for tests that read or alter the file as
    /// someone outside swcred would.
    var database: DatabaseQueue { sqliteStorage.writer }

    /// The vault's SQLite engine.
    var sqliteStorage: SQLiteStorage { (storage as! CountedStorage).inner as! SQLiteStorage }
}

extension StoreReader {
    /// The GRDB connection under a transaction of the SQLite engine.
    var grdb: Database { (self as! SQLiteStoreConnection).db }
}

extension Database {
    /// This GRDB connection as the stores take it, for tests that write as an older swcred did.
    var store: SQLiteStoreConnection { SQLiteStoreConnection(db: self) }
}
