import Foundation
import GRDB
import TestSupport
import Testing

@testable import SharedWebCredentials

@Suite("Vault: credential store on a real SQLite file")
struct VaultTests {
    typealias Support = VaultTestSupport

    @Test("upsert adds, updates, or leaves unchanged; find, servers, count and delete")
    func credentialStoreRoundTrip() throws {
        let directory = try TemporaryDirectory()
        let vault = try Support.makeVault(in: directory)
        let store = vault.credentials
        #expect(try store.upsert(server: "Example.COM", account: "alice", password: SecureBytes(utf8: "one")) == .added)
        #expect(
            try store.upsert(server: "example.com", account: "alice", password: SecureBytes(utf8: "one")) == .unchanged)
        #expect(
            try store.upsert(server: "example.com", account: "alice", password: SecureBytes(utf8: "two")) == .updated)
        try store.upsert(
            server: "example.com", account: "bob", password: SecureBytes(utf8: "bob-pw"),
            details: CredentialDetails(label: "work"))
        try store.upsert(server: "example.com", port: 8443, account: "alice", password: SecureBytes(utf8: "alt"))
        try store.upsert(server: "example.com", port: 443, account: "carol", password: SecureBytes(utf8: "c"))
        try store.upsert(server: "other.example", account: "alice", password: SecureBytes(utf8: "x"))

        #expect(try store.count() == 5)
        let atDefaultPort = try store.find(server: "EXAMPLE.com")
        #expect(atDefaultPort.map(\.account) == ["alice", "bob", "carol"])
        #expect(atDefaultPort.map(\.passwordText) == ["two", "bob-pw", "c"])
        #expect(atDefaultPort[1].label == "work" && atDefaultPort[0].label == nil)
        #expect(atDefaultPort.allSatisfy { $0.port == nil && $0.server == "example.com" })
        #expect(atDefaultPort[0].created <= atDefaultPort[0].modified)
        let alt = try store.find(server: "example.com", port: 8443)
        #expect(alt.map(\.passwordText) == ["alt"] && alt.first?.port == 8443)
        #expect(try store.find(server: "example.com", account: "bob").map(\.passwordText) == ["bob-pw"])
        #expect(try store.find(server: "example.com", account: "Bob").isEmpty)
        #expect(try store.find(server: "nowhere.example").isEmpty)
        #expect(
            try store.servers()
                == [
                    CredentialServer(server: "example.com", port: nil, scheme: .https),
                    CredentialServer(server: "example.com", port: 8443, scheme: .https),
                    CredentialServer(server: "other.example", port: nil, scheme: .https),
                ])
        #expect(try store.delete(server: "example.com", account: "alice"))
        #expect(try !store.delete(server: "example.com", account: "alice"))
        #expect(try store.count() == 4)
    }

    @Test("bad credential inputs are rejected with invalid-input")
    func badCredentialInputs() throws {
        let directory = try TemporaryDirectory()
        let store = try Support.makeVault(in: directory).credentials
        let password = SecureBytes(utf8: "pw")
        #expect(Support.errorCode { try store.upsert(server: "", account: "a", password: password) } == .invalidInput)
        #expect(
            Support.errorCode { try store.upsert(server: "a b.com", account: "a", password: password) } == .invalidInput
        )
        #expect(
            Support.errorCode { try store.upsert(server: "a.com", port: 70000, account: "a", password: password) }
                == .invalidInput)
        let long = String(repeating: "x", count: Credential.maximumFieldBytes + 1)
        #expect(
            Support.errorCode { try store.upsert(server: "a.com", account: long, password: password) } == .invalidInput)
        #expect(
            Support.errorCode {
                try store.upsert(server: "a.com", account: "a", password: password, details: .init(notes: long))
            } == .invalidInput)
        #expect(
            Support.errorCode { try store.upsert(server: "a.com", account: "a", password: SecureBytes(utf8: "")) }
                == .invalidInput)
        #expect(try store.count() == 0)
    }

    @Test("a batch is one transaction: a failure inside rolls every change back")
    func batchIsAtomic() throws {
        let directory = try TemporaryDirectory()
        let store = try Support.makeVault(in: directory).credentials
        #expect(
            Support.errorCode {
                try store.batch { batch in
                    try batch.upsert(server: "a.example", account: "one", password: SecureBytes(utf8: "1"))
                    try batch.upsert(server: "a.example", account: "two", password: SecureBytes(utf8: ""))
                }
            } == .invalidInput)
        #expect(try store.count() == 0)
    }

    @Test("reopened with the right passphrase every record reads; a wrong one is vault-locked and changes nothing")
    func reopenAndWrongPassphrase() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.sqlite")
        do {
            let vault = try Support.makeVault(in: directory)
            try vault.credentials.upsert(server: "example.com", account: "alice", password: SecureBytes(utf8: "pw1"))
        }
        let before = Support.fileBytes(path)
        #expect(Support.errorCode { _ = try Support.open(path, passphrase: "wrong") } == .vaultLocked)
        #expect(Support.errorCode { _ = try Support.open(path, passphrase: "") } == .vaultLocked)
        #expect(
            Support.errorCode { _ = try Vault.open(at: path, secret: .key(SecureBytes.random(count: 32))) }
                == .vaultLocked)
        #expect(Support.fileBytes(path) == before)
        let reopened = try Support.open(path)
        #expect(try reopened.credentials.find(server: "example.com").map(\.passwordText) == ["pw1"])
    }

    @Test("missing vault, existing vault, wrong-size keys")
    func createAndOpenErrors() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.sqlite")
        #expect(Support.errorCode { _ = try Support.open(path) } == .vaultNotFound)
        #expect(Support.errorCode { _ = try Vault.inspect(at: path) } == .vaultNotFound)
        _ = try Support.makeVault(in: directory)
        #expect(Support.errorCode { _ = try Support.makeVault(in: directory) } == .vaultExists)
        #expect(try Support.open(path).credentials.count() == 0)
        #expect(
            Support.errorCode {
                _ = try Vault.create(
                    at: directory.path("raw.sqlite"), protection: .rawKey(SecureBytes.random(count: 16)))
            } == .invalidInput)
        #expect(!FileManager.default.fileExists(atPath: directory.path("raw.sqlite")))
        #expect(
            FileManager.default.createFile(
                atPath: directory.path("short.key"), contents: Data(repeating: 1, count: 31),
                attributes: [.posixPermissions: 0o600]))
        #expect(Support.errorCode { _ = try KeyFile.read(at: directory.path("short.key")) } == .invalidInput)
        #expect(Support.errorCode { _ = try KeyFile.read(at: directory.path("absent.key")) } == .invalidInput)
    }

    @Test("a key-file vault: key file is 0600, never overwritten, and unlocks the vault")
    func keyFileVault() throws {
        let directory = try TemporaryDirectory()
        let keyPath = directory.path("vault.key")
        let path = directory.path("vault.sqlite")
        do {
            let vault = try Vault.create(at: path, protection: .newKeyFile(path: keyPath))
            try vault.credentials.upsert(server: "example.com", account: "a", password: SecureBytes(utf8: "k-pw"))
        }
        let attributes = try FileManager.default.attributesOfItem(atPath: keyPath)
        #expect(attributes[.posixPermissions] as? Int == 0o600)
        #expect(attributes[.size] as? Int == 32)
        let keyBytes = try Data(contentsOf: URL(fileURLWithPath: keyPath))
        #expect(
            Support.errorCode {
                _ = try Vault.create(at: directory.path("second.sqlite"), protection: .newKeyFile(path: keyPath))
            } == .vaultExists)
        #expect(try Data(contentsOf: URL(fileURLWithPath: keyPath)) == keyBytes)
        #expect(!FileManager.default.fileExists(atPath: directory.path("second.sqlite")))
        let vault = try Vault.open(at: path, secret: .key(KeyFile.read(at: keyPath)))
        #expect(try vault.credentials.find(server: "example.com").first?.passwordText == "k-pw")
        #expect(Support.errorCode { _ = try Support.open(path) } == .vaultLocked)
        #expect(Support.errorCode { try vault.changePassphrase(to: SecureBytes(utf8: "p")) } == .invalidInput)
    }

    @Test("the vault file is 0600 in a 0700 directory, WAL with synchronous=FULL")
    func fileModesAndPragmas() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("nested/deeper/vault.sqlite")
        let vault = try Vault.create(
            at: path, protection: .passphrase(SecureBytes(utf8: "p"), Support.fastKDF))
        let fileMode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        let directoryMode =
            try FileManager.default.attributesOfItem(atPath: directory.path("nested/deeper"))[
                .posixPermissions] as? Int
        #expect(fileMode == 0o600 && directoryMode == 0o700)
        let pragmas = try vault.database.read { db in
            (
                try String.fetchOne(db, sql: "PRAGMA journal_mode"), try Int.fetchOne(db, sql: "PRAGMA synchronous"),
                try Int.fetchOne(db, sql: "PRAGMA foreign_keys")
            )
        }
        #expect(pragmas.0 == "wal" && pragmas.1 == 2 && pragmas.2 == 1)
        // An ordered commit (an audit entry's) runs at NORMAL, the next ones too, and a synced
        // commit after them at FULL again, each time.
        for _ in 0..<3 {
            let ordered = try (0..<2).map { _ in
                try vault.storage.write(durability: .ordered) { db in try db.integer("PRAGMA synchronous") }
            }
            let synced = try vault.storage.write(durability: .synced) { db in try db.integer("PRAGMA synchronous") }
            let after = try vault.database.read { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }
            #expect(ordered == [1, 1] && synced == 2 && after == 2, "\(String(describing: (ordered, synced, after)))")
        }
        try vault.credentials.upsert(server: "a.example", account: "a", password: SecureBytes(utf8: "p"))
        let walMode = try FileManager.default.attributesOfItem(atPath: path + "-wal")[.posixPermissions] as? Int
        #expect(walMode == 0o600)
    }

    @Test("distinctive accounts, passwords and hosts never appear in the vault file, its WAL or shm")
    func noPlaintextOnDisk() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.sqlite")
        let vault = try Support.makeVault(in: directory)
        let secrets = [
            "zebra-account-7f3a", "Quokka-Password-91c2", "marker-host-55d1.example", "Label-Wombat-0b",
            "Notes-Narwhal-4d2e", "otpauth://totp/Okapi-9a1c?secret=JBSWY3DPEHPK3PXP",
        ]
        try vault.credentials.upsert(
            server: "secret-server-3e8c.example", account: secrets[0], password: SecureBytes(utf8: secrets[1]),
            details: CredentialDetails(label: secrets[3], notes: secrets[4], otpAuth: secrets[5]))
        try vault.neverSave.mark(secrets[2])
        var checked = Support.fileBytes(path)
        #expect(checked.keys.contains(path + "-wal"))
        let closedVault = try Support.open(path)
        try closedVault.credentials.upsert(
            server: "secret-server-3e8c.example", account: secrets[0], password: SecureBytes(utf8: secrets[1] + "x"))
        checked.merge(Support.fileBytes(path)) { first, _ in first }
        for (file, bytes) in checked {
            for secret in secrets + ["secret-server-3e8c"] {
                #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(secret) found in \(file)")
                #expect(bytes.range(of: Data(secret.utf8.reversed())) == nil)
            }
        }
    }

    @Test("a flipped byte in one record's sealed blob fails that record only")
    func flippedByteFailsOneRecord() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.sqlite")
        do {
            let vault = try Support.makeVault(in: directory)
            for name in ["a", "b", "c"] {
                try vault.credentials.upsert(
                    server: "example.com", account: name, password: SecureBytes(utf8: "pw-\(name)"))
            }
        }
        let rowIDs = try Support.rowIDs(path)
        try Support.rawDatabase(path).write { db in
            let sealed = try #require(
                try Data.fetchOne(db, sql: "SELECT sealed FROM credentials WHERE id = ?", arguments: [rowIDs[1]]))
            var damaged = sealed
            damaged[sealed.count / 2] ^= 0x20
            try db.execute(sql: "UPDATE credentials SET sealed = ? WHERE id = ?", arguments: [damaged, rowIDs[1]])
        }
        let vault = try Support.open(path)
        var failures = 0
        for name in ["a", "b", "c"] {
            if Support.errorCode({ _ = try vault.credentials.find(server: "example.com", account: name) })
                == .integrityFailure
            {
                failures += 1
            } else {
                #expect(
                    try vault.credentials.find(server: "example.com", account: name).first?.passwordText == "pw-\(name)"
                )
            }
        }
        #expect(failures == 1)
        #expect(try vault.credentials.verify() == (checked: 3, damaged: 1))
        #expect(Support.errorCode { _ = try vault.credentials.find(server: "example.com") } == .integrityFailure)
        #expect(Support.errorCode { _ = try vault.credentials.servers() } == .integrityFailure)
    }

    @Test("a sealed blob copied onto another row fails on both rows")
    func copiedBlobFails() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.sqlite")
        do {
            let vault = try Support.makeVault(in: directory)
            try vault.credentials.upsert(server: "example.com", account: "alice", password: SecureBytes(utf8: "pa"))
            try vault.credentials.upsert(server: "example.com", account: "bob", password: SecureBytes(utf8: "pb"))
            try vault.credentials.upsert(server: "example.com", account: "carol", password: SecureBytes(utf8: "pc"))
        }
        let vault = try Support.open(path)
        let ids = try Support.rowIDs(path)
        // Swap the blobs of two rows: each is now authentic ciphertext sitting on the wrong row.
        try Support.rawDatabase(path).write { db in
            let first = try Data.fetchOne(db, sql: "SELECT sealed FROM credentials WHERE id = ?", arguments: [ids[0]])
            let second = try Data.fetchOne(db, sql: "SELECT sealed FROM credentials WHERE id = ?", arguments: [ids[1]])
            try db.execute(sql: "UPDATE credentials SET sealed = ? WHERE id = ?", arguments: [second, ids[0]])
            try db.execute(sql: "UPDATE credentials SET sealed = ? WHERE id = ?", arguments: [first, ids[1]])
        }
        let outcomes = ["alice", "bob", "carol"].map { name in
            Support.errorCode { _ = try vault.credentials.find(server: "example.com", account: name) }
        }
        #expect(outcomes.filter { $0 == .integrityFailure }.count == 2)
        #expect(outcomes.filter { $0 == nil }.count == 1)
        #expect(try vault.credentials.verify().damaged == 2)
    }

    @Test("passphrase change keeps every record; the old passphrase stops working")
    func changePassphrase() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.sqlite")
        let vault = try Support.makeVault(in: directory)
        try vault.credentials.upsert(server: "example.com", account: "alice", password: SecureBytes(utf8: "pa"))
        let newKDF = try KDFParameters(opslimit: 2, memlimit: 16384)
        try vault.changePassphrase(to: SecureBytes(utf8: "new passphrase"), parameters: newKDF)
        #expect(Support.errorCode { _ = try Support.open(path) } == .vaultLocked)
        let reopened = try Support.open(path, passphrase: "new passphrase")
        #expect(try reopened.credentials.find(server: "example.com").first?.passwordText == "pa")
        #expect(try Vault.inspect(at: path).protection == .passphrase(newKDF))
        #expect(Support.errorCode { try vault.changePassphrase(to: SecureBytes(utf8: "")) } == .vaultLocked)
    }

    @Test("key rotation re-encrypts every record and marker under a new key; old ciphertexts are gone")
    func rotateKey() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.sqlite")
        let vault = try Support.makeVault(in: directory)
        for index in 0..<20 {
            try vault.credentials.upsert(
                server: "host\(index % 3).example", account: "user\(index)", password: SecureBytes(utf8: "pw\(index)"))
        }
        try vault.neverSave.mark("never.example")
        let before = try Support.rawDatabase(path).read { db in
            try Data.fetchAll(db, sql: "SELECT sealed FROM credentials")
                + Data.fetchAll(db, sql: "SELECT account_index FROM credentials")
        }
        try vault.rotateKey()
        let after = try Support.rawDatabase(path).read { db in
            try Data.fetchAll(db, sql: "SELECT sealed FROM credentials")
                + Data.fetchAll(db, sql: "SELECT account_index FROM credentials")
        }
        #expect(Set(before).isDisjoint(with: Set(after)))
        for current in [vault, try Support.open(path)] {
            #expect(try current.credentials.count() == 20)
            for index in 0..<20 {
                let found = try current.credentials.find(server: "host\(index % 3).example", account: "user\(index)")
                #expect(found.map(\.passwordText) == ["pw\(index)"])
            }
            #expect(try current.neverSave.hosts() == ["never.example"])
            #expect(try current.neverSave.isMarked("NEVER.example"))
        }
    }

    @Test("a rotation that hits a damaged record changes nothing: the old key keeps working")
    func interruptedRotationKeepsOldKey() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.sqlite")
        let vault = try Support.makeVault(in: directory)
        for name in ["a", "b", "c"] {
            try vault.credentials.upsert(
                server: "example.com", account: name, password: SecureBytes(utf8: "pw-\(name)"))
        }
        let ids = try Support.rowIDs(path)
        try Support.rawDatabase(path).write { db in
            try db.execute(sql: "UPDATE credentials SET sealed = zeroblob(80) WHERE id = ?", arguments: [ids[2]])
        }
        let snapshot = try Support.rawDatabase(path).read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM credentials ORDER BY id")
        }
        #expect(Support.errorCode { try vault.rotateKey() } == .integrityFailure)
        let unchanged = try Support.rawDatabase(path).read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM credentials ORDER BY id")
        }
        #expect(snapshot == unchanged)
        let reopened = try Support.open(path)
        #expect(try reopened.credentials.verify() == (checked: 3, damaged: 1))
    }

    @Test("a process holding the old key picks up another's rotation, but not another's passphrase change")
    func staleKeyAfterRotation() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.sqlite")
        let first = try Support.makeVault(in: directory)
        try first.credentials.upsert(server: "example.com", account: "a", password: SecureBytes(utf8: "pa"))
        let second = try Support.open(path)
        try second.rotateKey()
        try first.credentials.upsert(server: "example.com", account: "b", password: SecureBytes(utf8: "pb"))
        #expect(try second.credentials.find(server: "example.com").map(\.account) == ["a", "b"])
        try second.changePassphrase(to: SecureBytes(utf8: "another passphrase"), rotatingKey: true)
        #expect(
            Support.errorCode {
                try first.credentials.upsert(server: "example.com", account: "c", password: SecureBytes(utf8: "pc"))
            }
                == .vaultLocked)
        #expect(try second.credentials.find(server: "example.com").map(\.account) == ["a", "b"])
    }

    @Test("a writer blocked past the busy timeout fails with vault-busy and changes nothing")
    func busyTimeout() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.sqlite")
        _ = try Support.makeVault(in: directory)
        var configuration = VaultConfiguration()
        configuration.busyTimeout = 0.2
        let vault = try Vault.open(
            at: path, secret: .passphrase(SecureBytes(utf8: Support.passphrase)), configuration: configuration)
        let blocker = try Support.rawDatabase(path)
        try blocker.inTransaction(.immediate) { _ in
            #expect(
                Support.errorCode {
                    try vault.credentials.upsert(server: "a.example", account: "a", password: SecureBytes(utf8: "p"))
                } == .vaultBusy)
            return .rollback
        }
        try vault.credentials.upsert(server: "a.example", account: "a", password: SecureBytes(utf8: "p"))
        #expect(try vault.credentials.count() == 1)
    }

    @Test("never-save markers: mark, query, list, clear")
    func neverSave() throws {
        let directory = try TemporaryDirectory()
        let markers = try Support.makeVault(in: directory).neverSave
        try markers.mark("Example.com")
        try markers.mark("example.com")
        try markers.mark("b.example")
        #expect(try markers.isMarked("example.COM"))
        #expect(try !markers.isMarked("c.example"))
        #expect(try markers.hosts() == ["b.example", "example.com"])
        #expect(try markers.clear("example.com"))
        #expect(try !markers.clear("example.com"))
        #expect(try markers.hosts() == ["b.example"])
    }

    @Test("a file that is not a vault is reported, not mistaken for a locked vault")
    func notAVault() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("junk.sqlite")
        try Data(repeating: 0x42, count: 4096).write(to: URL(fileURLWithPath: path))
        #expect(Support.errorCode { _ = try Support.open(path) } == .integrityFailure)
        let empty = directory.path("empty.sqlite")
        _ = try DatabaseQueue(path: empty).write { db in try db.execute(sql: "CREATE TABLE t (x)") }
        #expect(Support.errorCode { _ = try Support.open(empty) } == .integrityFailure)
    }
}
