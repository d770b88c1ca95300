import Foundation
import GRDB
import TestSupport
import Testing

@testable import SharedWebCredentials

/// The passphrase KDF is Argon2id v1.3 exactly, and every one of its inputs matters: the
/// passphrase, the salt, the pass count (opslimit) and the memory (memlimit). The test vaults use
/// the cheapest parameters, so without these tests a KDF that ignored memlimit would go unnoticed.
@Suite("Argon2id: known answers, and the key depends on every parameter")
struct KDFKnownAnswerTests {
    typealias Support = VaultTestSupport

    /// One Argon2id output: passes, memory in KiB (libsodium's memlimit is in bytes), the key.
    struct Vector: Sendable, CustomTestStringConvertible {
        let opslimit: UInt64
        let memoryKiB: UInt64
        let key: String
        var testDescription: String { "t=\(opslimit), m=\(memoryKiB) KiB" }
    }

    static let passphrase = "correct horse battery staple"
    static let salt = [UInt8](0..<16)

    /// Computed with the reference implementation of Argon2 (argon2-cffi 25.1.0 from PyPI, whose
    /// C code is the Argon2 team's, not libsodium's), for `passphrase` and the salt bytes 0...15:
    ///
    ///     from argon2.low_level import hash_secret_raw, Type
    ///     hash_secret_raw(b"correct horse battery staple", bytes(range(16)), time_cost=T,
    ///         memory_cost=M, parallelism=1, hash_len=32, type=Type.ID, version=19).hex()
    ///
    /// Neighbouring vectors differ in one parameter only, so each parameter is seen to matter.
    static let vectors = [
        Vector(opslimit: 2, memoryKiB: 64, key: "2df47ede6358ed17a9976d4fcedb897a10036d432a4acef17d263bfc98bd20ac"),
        Vector(opslimit: 2, memoryKiB: 128, key: "95099ce7ace62c65a6eb989ddb6ad25a665fb4f73c370a91e6fd8045c495e7b1"),
        Vector(opslimit: 3, memoryKiB: 64, key: "bc240e180a205bd2e782cdc64983f247e76aeb8fb2133aec1570b70cccd68bff"),
        Vector(opslimit: 1, memoryKiB: 8, key: "d17ea6341ca93da6079ea2f64dc4aa31dd1aaf9caa67fb42ac4afd0714706f26"),
    ]

    private static func derive(
        _ passphrase: String = passphrase, salt: [UInt8] = salt, opslimit: UInt64, memlimit: UInt64
    ) throws -> String {
        let key = try PasswordHashing.deriveKey(
            length: 32, passphrase: SecureBytes(utf8: passphrase), salt: salt,
            parameters: KDFParameters(opslimit: opslimit, memlimit: memlimit))
        return key.withUnsafeBytes { $0.map { String(format: "%02x", $0) }.joined() }
    }

    @Test("the derived key equals the reference implementation's", arguments: vectors)
    func knownAnswer(_ vector: Vector) throws {
        #expect(try Self.derive(opslimit: vector.opslimit, memlimit: vector.memoryKiB << 10) == vector.key)
    }

    @Test("changing the passphrase, the salt, opslimit or memlimit alone changes the key")
    func everyParameterMatters() throws {
        let base = try Self.derive(opslimit: 1, memlimit: 16 << 10)
        var others: [String: String] = [
            "passphrase": try Self.derive("correct horse battery stapl", opslimit: 1, memlimit: 16 << 10),
            "salt": try Self.derive(salt: [UInt8](1...16), opslimit: 1, memlimit: 16 << 10),
            "opslimit": try Self.derive(opslimit: 2, memlimit: 16 << 10),
            "memlimit": try Self.derive(opslimit: 1, memlimit: 32 << 10),
        ]
        others["memlimit (minimum)"] = try Self.derive(opslimit: 1, memlimit: KDFParameters.minimumMemlimit)
        for (changed, key) in others {
            #expect(key != base, "changing \(changed) did not change the key")
        }
        #expect(Set(others.values).count == others.count)
    }

    @Test("a vault unlocks only with the KDF parameters it was made with; altered metadata locks it")
    func vaultBindsItsParameters() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.sqlite")
        let parameters = try KDFParameters(opslimit: 2, memlimit: 64 << 10)
        do {
            let vault = try Vault.create(
                at: path, protection: .passphrase(SecureBytes(utf8: Support.passphrase), parameters))
            try vault.credentials.upsert(server: "example.com", account: "a", password: SecureBytes(utf8: "pw"))
        }
        #expect(try Vault.inspect(at: path).protection == .passphrase(parameters))
        #expect(try Support.open(path).credentials.count() == 1)
        let original = try Support.rawDatabase(path).read { db in
            try #require(try Row.fetchOne(db, sql: "SELECT * FROM vault_meta"))
        }
        let alterations: [(column: String, value: any DatabaseValueConvertible)] = [
            ("kdf_memlimit", Int64(KDFParameters.minimumMemlimit)), ("kdf_memlimit", Int64(128 << 10)),
            ("kdf_opslimit", Int64(1)), ("kdf_opslimit", Int64(3)),
            ("kdf_salt", Data((original["kdf_salt"] as Data).map { $0 ^ 1 })),
            ("key_id", Data((original["key_id"] as Data).map { $0 ^ 1 })),
        ]
        for (column, value) in alterations {
            try Support.rawDatabase(path).write { db in
                try db.execute(sql: "UPDATE vault_meta SET \(column) = ?", arguments: [value])
            }
            #expect(Support.errorCode { _ = try Support.open(path) } == .vaultLocked, "altered \(column)")
            try Support.rawDatabase(path).write { db in
                try db.execute(
                    sql: "UPDATE vault_meta SET \(column) = ?", arguments: [original[column] as DatabaseValue])
            }
        }
        #expect(try Support.open(path).credentials.count() == 1)
    }

    @Test("two vaults with one passphrase get different salts, so different wrapping keys")
    func freshSaltPerVault() throws {
        let directory = try TemporaryDirectory()
        _ = try Support.makeVault(in: directory, name: "one.sqlite")
        _ = try Support.makeVault(in: directory, name: "two.sqlite")
        let salts = try ["one.sqlite", "two.sqlite"].map { name in
            try Support.rawDatabase(directory.path(name)).read { db in
                try Data.fetchOne(db, sql: "SELECT kdf_salt FROM vault_meta")
            }
        }
        #expect(salts[0]?.count == PasswordHashing.saltLength)
        #expect(salts[0] != salts[1])
        let vault = try Support.open(directory.path("one.sqlite"))
        try vault.changePassphrase(to: SecureBytes(utf8: Support.passphrase))
        let changed = try Support.rawDatabase(directory.path("one.sqlite")).read { db in
            try Data.fetchOne(db, sql: "SELECT kdf_salt FROM vault_meta")
        }
        #expect(changed != salts[0], "a passphrase change draws a new salt")
    }
}
