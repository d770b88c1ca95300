import Foundation
import GRDB
import TestSupport
import Testing

@testable import SharedWebCredentials

/// A vault that cannot be written (read-only, disk full) fails with a clear, typed error of its
/// own (`storageFailure`, exit 13) and keeps everything it held before: no partial write.
@Suite("Storage failures")
struct StorageFailureTests {
    typealias Support = VaultTestSupport

    /// A vault with three credentials.
    private func seededVault(in directory: TemporaryDirectory) throws -> Vault {
        let vault = try Support.makeVault(in: directory)
        for index in 0..<3 {
            try vault.credentials.upsert(
                server: "example.com", account: "user-\(index)", password: SecureBytes(utf8: "pw-\(index)"))
        }
        return vault
    }

    /// A batch of many large credentials: needs many new pages.
    private func bigBatch(_ vault: Vault) throws {
        try vault.credentials.batch { batch in
            for index in 0..<300 {
                try batch.upsert(
                    server: "bulk.example", account: "bulk-\(index)", password: SecureBytes(utf8: "pw-\(index)"),
                    details: CredentialDetails(label: String(repeating: "x", count: 2000)))
            }
        }
    }

    /// The error a throwing call fails with.
    private func failure(_ body: () throws -> Void) -> SharedWebCredentialsError? {
        do {
            try body()
            return nil
        } catch {
            return error as? SharedWebCredentialsError
        }
    }

    private func expectIntact(_ path: String) throws {
        let reopened = try Support.open(path)
        #expect(try reopened.credentials.count() == 3)
        #expect(try reopened.credentials.find(server: "example.com").map(\.passwordText) == ["pw-0", "pw-1", "pw-2"])
        #expect(try reopened.credentials.verify() == (checked: 3, damaged: 0))
        let check = try Support.rawDatabase(path).read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") }
        #expect(check == "ok")
    }

    @Test("SQLite refusing writes (query_only): storage failure that says what to do, nothing written")
    func readOnlyConnection() throws {
        let directory = try TemporaryDirectory()
        let vault = try seededVault(in: directory)
        try vault.database.inDatabase { db in try db.execute(sql: "PRAGMA query_only = ON") }
        let error = failure { try bigBatch(vault) }
        #expect(error?.code == .storageFailure)
        #expect(error?.message.contains("read-only") == true, "\(String(describing: error))")
        #expect(error?.message.contains("nothing was changed") == true)
        #expect(try vault.credentials.count() == 3)
        try expectIntact(vault.path)
    }

    @Test("disk full (max_page_count): storage failure that says what to do, the batch is rolled back")
    func diskFullAtPageLimit() throws {
        let directory = try TemporaryDirectory()
        let vault = try seededVault(in: directory)
        try vault.database.inDatabase { db in
            let pages = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
            try db.execute(sql: "PRAGMA max_page_count = \(pages + 2)")
        }
        let error = failure { try bigBatch(vault) }
        #expect(error?.code == .storageFailure)
        #expect(error?.message.contains("full: free some space") == true, "\(String(describing: error))")
        #expect(try vault.credentials.count() == 3)
        // The connection is still usable after the failure.
        try vault.credentials.upsert(server: "example.com", account: "user-0", password: SecureBytes(utf8: "pw-0"))
        try expectIntact(vault.path)
    }

    @Test(
        "a real full tmpfs: storage failure, nothing half-written, all data back once space is freed",
        .enabled(if: ScratchFilesystem.isAvailable, "needs the right to mount a tmpfs"))
    func realDiskFull() throws {
        let filesystem = try ScratchFilesystem(kibibytes: 2048)
        let path = filesystem.path("vault.sqlite")
        try seedVault(at: path)
        // Open before filling: the shared-memory file exists, so the WAL write is what fails.
        let openedBefore = try Support.open(path)
        let filler = filesystem.fill()
        let midTransaction = failure { try bigBatch(openedBefore) }
        // Open after filling: SQLite cannot even size the shared-memory file.
        let atOpen = failure { try bigBatch(try Support.open(path)) }
        for error in [midTransaction, atOpen] {
            #expect(error?.code == .storageFailure)
            #expect(error?.message.contains("full: free some space") == true, "\(String(describing: error))")
        }
        #expect(try openedBefore.credentials.count() == 3)
        try FileManager.default.removeItem(atPath: filler)
        try expectIntact(path)
    }

    @Test(
        "a read-only file system: storage failure, and every credential is there once writable again",
        .enabled(if: ScratchFilesystem.isAvailable, "needs the right to mount a tmpfs"))
    func realReadOnlyFilesystem() throws {
        let filesystem = try ScratchFilesystem(kibibytes: 4096)
        let path = filesystem.path("vault.sqlite")
        try seedVault(at: path)
        try filesystem.remount(readOnly: true)
        let error = failure {
            let vault = try Support.open(path)
            try bigBatch(vault)
        }
        #expect(error?.code == .storageFailure, "\(String(describing: error))")
        #expect(error?.message.contains("read-only") == true, "\(String(describing: error))")
        try filesystem.remount(readOnly: false)
        try expectIntact(path)
    }

    /// Creates a vault at `path` holding credentials `user-0` to `user-2` on example.com, and closes it.
    private func seedVault(at path: String) throws {
        let vault = try Vault.create(
            at: path, protection: .passphrase(SecureBytes(utf8: Support.passphrase), Support.fastKDF))
        for index in 0..<3 {
            try vault.credentials.upsert(
                server: "example.com", account: "user-\(index)", password: SecureBytes(utf8: "pw-\(index)"))
        }
    }
}
