import Foundation
import GRDB
import Synchronization
import TestSupport
import Testing

@testable import SharedWebCredentials

/// End-to-end tests across processes: the `swcred` binary and `VaultTestClient` children open the
/// same on-disk vault this process inspects.
@Suite("Vault across processes")
struct VaultProcessTests {
    typealias Support = VaultTestSupport

    private static let fastKDF = ["--kdf-opslimit", "1", "--kdf-memlimit", "8192"]
    private static let client = SwcredProcess.siblingExecutable(named: "VaultTestClient")

    private func client(_ arguments: [String], passphrase: String = Support.passphrase) throws -> SwcredProcess.Result {
        try SwcredProcess.run(arguments, environment: ["SWCRED_PASSPHRASE": passphrase], executable: Self.client)
    }

    @Test("init by the CLI, write in one process, read in another, rotate and change passphrase by the CLI")
    func roundTripAcrossProcesses() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.sqlite")
        let environment = ["SWCRED_PASSPHRASE": Support.passphrase]
        let created = try SwcredProcess.run(["init", "--vault", path] + Self.fastKDF, environment: environment)
        #expect(created.status == 0, "\(created.stderr)")
        #expect(try client(["write", path, "user", "3"]).status == 0)
        let read = try client(["read", path, "stress.example", "user-2"])
        #expect(read.status == 0 && read.stdout == "secret-user-2\n")

        let rekey = try SwcredProcess.run(["rekey", "--vault", path], environment: environment)
        #expect(rekey.status == 0 && rekey.stdout.contains("3 credentials"), "\(rekey.stderr)")
        #expect(try client(["read", path, "stress.example", "user-0"]).stdout == "secret-user-0\n")

        let passwd = try SwcredProcess.run(
            ["passwd", "--vault", path],
            environment: [
                "SWCRED_PASSPHRASE": Support.passphrase, "SWCRED_NEW_PASSPHRASE": "second correct horse battery staple",
            ])
        #expect(passwd.status == 0, "\(passwd.stderr)")
        #expect(try client(["read", path, "stress.example", "user-1"]).status == 7)
        let afterPasswd = try client(
            ["read", path, "stress.example", "user-1"], passphrase: "second correct horse battery staple")
        #expect(afterPasswd.stdout == "secret-user-1\n")
        let status = try SwcredProcess.run(
            ["status", "--verify", "--json", "--vault", path],
            environment: ["SWCRED_PASSPHRASE": "second correct horse battery staple"])
        #expect(status.status == 0)
        #expect(status.stdout.contains("\"credentials\" : 3") && status.stdout.contains("\"damaged\" : 0"))
    }

    @Test("a wrong passphrase exits 7 and changes no byte; the right one still works")
    func wrongPassphraseChangesNothing() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.sqlite")
        do {
            let vault = try Support.makeVault(in: directory)
            try vault.credentials.upsert(server: "example.com", account: "alice", password: SecureBytes(utf8: "pa"))
        }
        let before = Support.fileBytes(path)
        for command in [["rekey"], ["passwd"], ["status", "--verify"]] {
            let result = try SwcredProcess.run(
                command + ["--vault", path],
                environment: ["SWCRED_PASSPHRASE": "not it", "SWCRED_NEW_PASSPHRASE": "whatever"])
            #expect(result.status == 7, "\(command): \(result.stderr)")
            #expect(result.stderr.contains("Wrong passphrase"))
        }
        #expect(Support.fileBytes(path) == before)
        let good = try SwcredProcess.run(
            ["status", "--verify", "--vault", path], environment: ["SWCRED_PASSPHRASE": Support.passphrase])
        #expect(good.status == 0 && good.stdout.contains("credentials:  1"))
    }

    @Test("a damaged record: status --verify exits 9, the other records still read, rekey refuses")
    func integrityFailureExitsNine() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.sqlite")
        #expect(
            try {
                let vault = try Support.makeVault(in: directory)
                try vault.credentials.upsert(
                    server: "stress.example", account: "user-0", password: SecureBytes(utf8: "p0"))
                try vault.credentials.upsert(
                    server: "stress.example", account: "user-1", password: SecureBytes(utf8: "p1"))
                return try vault.credentials.count()
            }() == 2)
        let damagedAccountIndex = try Support.rawDatabase(path).write { db -> Data? in
            let row = try #require(
                try Row.fetchOne(db, sql: "SELECT id, account_index, sealed FROM credentials LIMIT 1"))
            var sealed = row["sealed"] as Data
            sealed[sealed.count - 1] ^= 0x01
            try db.execute(
                sql: "UPDATE credentials SET sealed = ? WHERE id = ?", arguments: [sealed, row["id"] as Data])
            return row["account_index"]
        }
        #expect(damagedAccountIndex != nil)
        let environment = ["SWCRED_PASSPHRASE": Support.passphrase]
        let status = try SwcredProcess.run(["status", "--verify", "--vault", path], environment: environment)
        #expect(status.status == 9)
        #expect(status.stdout.contains("damaged:      1") && status.stderr.contains("failed authentication"))
        let reads = try ["user-0", "user-1"].map { try client(["read", path, "stress.example", $0]).status }
        #expect(reads.sorted() == [0, 9])
        let rekey = try SwcredProcess.run(["rekey", "--vault", path], environment: environment)
        #expect(rekey.status == 9 && rekey.stderr.contains("not rotated"))
        #expect(try client(["read", path, "stress.example", reads[0] == 0 ? "user-0" : "user-1"]).status == 0)
    }

    @Test("a forged token and browser row: status --verify exits 9 and names each table, as browser list does")
    func forgedGrantRowsExitNine() throws {
        let directory = try TemporaryDirectory()
        let vault = try Support.makeVault(in: directory)
        let app = try ApplicationIdentifier("ABCDE12345.com.example.app")
        try vault.apps.register(app, entitlements: Entitlements(strings: ["webcredentials:shop.example"]), at: Date())
        let issued = try vault.appTokens.create(app: app, permissions: [.request], consent: .none, expiresAt: nil)
        try vault.browsers.add(id: "firefox", identificationKey: Array(repeating: 7, count: 32))
        let path = vault.path
        let environment = ["SWCRED_PASSPHRASE": Support.passphrase]
        #expect(try SwcredProcess.run(["status", "--verify", "--vault", path], environment: environment).status == 0)
        try Support.rawDatabase(path).write { db in
            try db.execute(
                sql: "UPDATE app_tokens SET permissions = 'add,request' WHERE id = ?", arguments: [issued.record.id])
            try db.execute(sql: "UPDATE browser_associations SET allow_http = 1")
        }
        let status = try SwcredProcess.run(["status", "--verify", "--vault", path], environment: environment)
        #expect(status.status == 9, "\(status.stdout)\(status.stderr)")
        #expect(
            status.stdout.contains("unauthentic:  app_tokens 1, browser_associations 1 row(s) FAIL their MAC"),
            "\(status.stdout)")
        #expect(status.stderr.contains("1 app token(s) failed authentication"), "\(status.stderr)")
        #expect(status.stderr.contains("1 browser association(s) failed authentication"), "\(status.stderr)")
        let list = try SwcredProcess.run(["browser", "list", "--vault", path], environment: environment)
        #expect(list.status == 9, "\(list.stdout)\(list.stderr)")
    }

    @Test("four processes writing at once lose nothing and never report a locked database")
    func concurrentWriters() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.sqlite")
        _ = try Support.makeVault(in: directory)
        let writers = 4
        let perWriter = 40
        let results = Mutex<[SwcredProcess.Result?]>([])
        DispatchQueue.concurrentPerform(iterations: writers) { index in
            let result = try? client(["write", path, "writer\(index)", String(perWriter)])
            results.withLock { $0.append(result) }
        }
        let finished = results.withLock { $0 }
        #expect(finished.count == writers)
        for result in finished {
            #expect(result?.status == 0, "\(result?.stderr ?? "could not launch")")
            #expect(result?.stderr.contains("locked") == false)
        }
        let vault = try Support.open(path)
        #expect(try vault.credentials.count() == writers * perWriter)
        for index in 0..<writers {
            for item in [0, perWriter - 1] {
                let found = try vault.credentials.find(server: "stress.example", account: "writer\(index)-\(item)")
                #expect(found.map(\.passwordText) == ["secret-writer\(index)-\(item)"])
            }
        }
        #expect(try vault.credentials.verify() == (checked: writers * perWriter, damaged: 0))
    }
}
