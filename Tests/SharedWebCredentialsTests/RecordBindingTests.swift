import Foundation
import GRDB
import TestSupport
import Testing

@testable import SharedWebCredentials

/// Every column of a credential row is bound to its sealed blob: whoever can write the vault
/// file but lacks the key cannot move a credential to another account, server or row and have
/// it answer a lookup. Each test rewrites one column as such an attacker would and checks that
/// the row fails authentication and that no lookup ever returns a credential for a server or
/// account other than the one asked for.
@Suite("Record binding: a sealed credential answers only for its own row, server and account")
struct RecordBindingTests {
    typealias Support = VaultTestSupport

    @Test("a credential's associated data is the format-3 layout, byte for byte, whichever way it is built")
    func associatedDataLayout() {
        // "swcred/credential", a zero byte, the format (little-endian UInt32), then the id, the
        // server index, the account index and the version, each after its length (UInt32).
        let id: [UInt8] = [0xA1, 0xA2]
        let serverIndex: [UInt8] = [0xB1]
        let accountIndex: [UInt8] = [0xC1, 0xC2, 0xC3]
        let expected: [UInt8] =
            Array("swcred/credential".utf8) + [0, 3, 0, 0, 0] + [2, 0, 0, 0, 0xA1, 0xA2] + [1, 0, 0, 0, 0xB1]
            + [3, 0, 0, 0, 0xC1, 0xC2, 0xC3] + [8, 0, 0, 0, 0x07, 0x01, 0, 0, 0, 0, 0, 0x80]
        let version: Int64 = -0x7FFF_FFFF_FFFF_FEF9
        #expect(VaultKeys.formatVersion == 3)
        #expect(
            VaultKeys.credentialAssociatedData(
                id: id, serverIndex: serverIndex, accountIndex: accountIndex, version: version)
                == expected)
        let inPlace = id.withUnsafeBytes { id in
            serverIndex.withUnsafeBytes { serverIndex in
                accountIndex.withUnsafeBytes { accountIndex in
                    VaultKeys.withCredentialAssociatedData(
                        id: id, serverIndex: serverIndex, accountIndex: accountIndex, version: version
                    ) { Array($0) }
                }
            }
        }
        #expect(inPlace == expected)
        // An empty part is its length alone.
        #expect(
            VaultKeys.credentialAssociatedData(id: [], serverIndex: [], accountIndex: [], version: 0, format: 2)
                == Array("swcred/credential".utf8) + [0, 2, 0, 0, 0] + [0, 0, 0, 0] + [0, 0, 0, 0] + [0, 0, 0, 0]
                + [8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])
    }

    /// A vault with alice and bob on `first.example` and carol on `second.example`.
    private func makeVault(_ directory: TemporaryDirectory) throws -> String {
        let vault = try Support.makeVault(in: directory)
        for (server, account) in [("first.example", "alice"), ("first.example", "bob"), ("second.example", "carol")] {
            try vault.credentials.upsert(server: server, account: account, password: SecureBytes(utf8: "pw-\(account)"))
        }
        return directory.path("vault.sqlite")
    }

    /// A row's columns, read with a raw connection, keyed by the account it was made for.
    private func rows(_ path: String) throws -> [String: Row] {
        let vault = try Support.open(path)
        let keys = vault.keys
        let rows = try Support.rawDatabase(path).read { db in
            try Row.fetchAll(db, sql: "SELECT id, server_index, account_index, sealed FROM credentials")
        }
        var byAccount: [String: Row] = [:]
        for (server, account) in [("first.example", "alice"), ("first.example", "bob"), ("second.example", "carol")] {
            let index = Data(keys.accountIndex(try CredentialKey(server: server, port: nil), account: account))
            byAccount[account] = try #require(rows.first { ($0["account_index"] as Data?) == index })
        }
        return byAccount
    }

    /// Every lookup an app or the owner can make returns only credentials for what was asked,
    /// or fails with an integrity error; never another row's credential.
    private func expectNoCrossedAnswers(_ path: String) throws {
        let vault = try Support.open(path)
        for (server, account) in [("first.example", "alice"), ("first.example", "bob"), ("second.example", "carol")] {
            for asked in [account, nil] {
                do {
                    let found = try vault.credentials.find(server: server, account: asked)
                    #expect(found.allSatisfy { $0.server == server }, "find(\(server)) returned \(found.map(\.server))")
                    if let asked {
                        #expect(found.allSatisfy { $0.account == asked }, "find(\(asked)) returned another account")
                    }
                    #expect(found.allSatisfy { $0.passwordText == "pw-\($0.account)" })
                } catch let error as SharedWebCredentialsError {
                    #expect(error.code == .integrityFailure)
                }
            }
        }
    }

    @Test("two rows whose account indexes are swapped both fail authentication")
    func swappedAccountIndexes() throws {
        let directory = try TemporaryDirectory()
        let path = try makeVault(directory)
        let rows = try rows(path)
        let alice = try #require(rows["alice"]), bob = try #require(rows["bob"])
        try Support.rawDatabase(path).write { db in
            // Through a placeholder: account_index is unique.
            let placeholder = Data(repeating: 0, count: 32)
            try db.execute(
                sql: "UPDATE credentials SET account_index = ? WHERE id = ?",
                arguments: [placeholder, alice["id"] as Data])
            try db.execute(
                sql: "UPDATE credentials SET account_index = ? WHERE id = ?",
                arguments: [alice["account_index"] as Data, bob["id"] as Data])
            try db.execute(
                sql: "UPDATE credentials SET account_index = ? WHERE id = ?",
                arguments: [bob["account_index"] as Data, alice["id"] as Data])
        }
        let vault = try Support.open(path)
        for account in ["alice", "bob"] {
            #expect(
                Support.errorCode { _ = try vault.credentials.find(server: "first.example", account: account) }
                    == .integrityFailure, "the row now found for \(account) holds the other account")
        }
        #expect(
            try vault.credentials.find(server: "second.example", account: "carol").map(\.passwordText) == ["pw-carol"])
        #expect(try vault.credentials.verify() == (checked: 3, damaged: 2))
        try expectNoCrossedAnswers(path)
    }

    @Test("a row moved under another server's index fails authentication")
    func movedToAnotherServer() throws {
        let directory = try TemporaryDirectory()
        let path = try makeVault(directory)
        let rows = try rows(path)
        let alice = try #require(rows["alice"]), carol = try #require(rows["carol"])
        try Support.rawDatabase(path).write { db in
            try db.execute(
                sql: "UPDATE credentials SET server_index = ? WHERE id = ?",
                arguments: [carol["server_index"] as Data, alice["id"] as Data])
        }
        let vault = try Support.open(path)
        #expect(
            Support.errorCode { _ = try vault.credentials.find(server: "second.example") } == .integrityFailure,
            "alice's credential for first.example must not answer for second.example")
        #expect(try vault.credentials.find(server: "first.example").map(\.account) == ["bob"])
        #expect(try vault.credentials.verify() == (checked: 3, damaged: 1))
        try expectNoCrossedAnswers(path)
    }

    @Test("a row given another row id fails authentication")
    func newRowID() throws {
        let directory = try TemporaryDirectory()
        let path = try makeVault(directory)
        let bob = try #require(try rows(path)["bob"])
        try Support.rawDatabase(path).write { db in
            try db.execute(
                sql: "UPDATE credentials SET id = ? WHERE id = ?",
                arguments: [Data(repeating: 7, count: 16), bob["id"] as Data])
        }
        let vault = try Support.open(path)
        #expect(
            Support.errorCode { _ = try vault.credentials.find(server: "first.example", account: "bob") }
                == .integrityFailure)
        #expect(try vault.credentials.verify() == (checked: 3, damaged: 1))
        try expectNoCrossedAnswers(path)
    }

    @Test("records and blind indexes use different subkeys, and neither is the vault or wrapping key")
    func subkeysAreSeparate() throws {
        let directory = try TemporaryDirectory()
        let keys = try Support.open(try makeVault(directory)).keys
        let all = [keys.vaultKey, keys.wrappingKey, keys.recordKey, keys.indexKey]
        for (first, key) in all.enumerated() {
            #expect(key.count == 32)
            for other in all[(first + 1)...] { #expect(!key.isEqual(to: other)) }
        }
    }
}
