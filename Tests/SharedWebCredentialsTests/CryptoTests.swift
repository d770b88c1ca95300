import Foundation
import Testing

@testable import SharedWebCredentials

@Suite("Crypto layer over libsodium")
struct CryptoTests {
    private let key = SecureBytes.random(count: AuthenticatedEncryption.keyLength)

    @Test("seal then open returns the plaintext; each seal uses a fresh nonce")
    func sealOpenRoundTrip() throws {
        let plaintext = SecureBytes(utf8: "s3cret password")
        let first = AuthenticatedEncryption.seal(plaintext, key: key, associatedData: [1, 2, 3])
        let second = AuthenticatedEncryption.seal(plaintext, key: key, associatedData: [1, 2, 3])
        #expect(first != second)
        #expect(Array(first.prefix(24)) != Array(second.prefix(24)))
        let opened = try #require(AuthenticatedEncryption.open(first, key: key, associatedData: [1, 2, 3]))
        #expect(opened.exposedString() == "s3cret password")
    }

    @Test("a flipped byte, other associated data or another key fails to open")
    func tamperingFails() {
        let box = AuthenticatedEncryption.seal(SecureBytes(utf8: "payload"), key: key, associatedData: [7])
        for index in box.indices {
            var damaged = box
            damaged[index] ^= 0x01
            #expect(AuthenticatedEncryption.open(damaged, key: key, associatedData: [7]) == nil)
        }
        #expect(AuthenticatedEncryption.open(box, key: key, associatedData: [8]) == nil)
        let otherKey = SecureBytes.random(count: AuthenticatedEncryption.keyLength)
        #expect(AuthenticatedEncryption.open(box, key: otherKey, associatedData: [7]) == nil)
        #expect(AuthenticatedEncryption.open(Array(box.prefix(30)), key: key, associatedData: [7]) == nil)
    }

    @Test("an empty plaintext seals and opens")
    func emptyPlaintext() throws {
        let box = AuthenticatedEncryption.seal(SecureBytes(copying: []), key: key, associatedData: [])
        #expect(box.count == AuthenticatedEncryption.nonceLength + AuthenticatedEncryption.tagLength)
        #expect(try #require(AuthenticatedEncryption.open(box, key: key, associatedData: [])).isEmpty)
    }

    @Test("secure bytes copy contiguous and non-contiguous collections alike")
    func copyingCollections() {
        let expected: [UInt8] = [1, 2, 3, 250, 0, 7]
        let padded: [UInt8] = [9] + expected + [9]
        // An array and a slice of one are contiguous; a lazy map and a reversed view are not.
        let copies = [
            SecureBytes(copying: expected), SecureBytes(copying: padded[1...6]),
            SecureBytes(copying: expected.lazy.map { $0 }), SecureBytes(copying: expected.reversed().reversed()),
        ]
        for copy in copies { #expect(copy.withUnsafeBytes { Array($0) } == expected) }
        #expect(SecureBytes(utf8: "pässe").withUnsafeBytes { Array($0) } == Array("pässe".utf8))
    }

    @Test("Argon2id is deterministic for one salt and differs by passphrase, salt and parameters")
    func argon2id() throws {
        let salt = [UInt8](repeating: 1, count: PasswordHashing.saltLength)
        let fast = try KDFParameters(opslimit: 1, memlimit: 8192)
        func derive(_ passphrase: String, _ salt: [UInt8], _ parameters: KDFParameters) throws -> SecureBytes {
            try PasswordHashing.deriveKey(
                length: 32, passphrase: SecureBytes(utf8: passphrase), salt: salt, parameters: parameters)
        }
        let base = try derive("pass", salt, fast)
        #expect(try derive("pass", salt, fast).isEqual(to: base))
        #expect(!(try derive("pasS", salt, fast).isEqual(to: base)))
        #expect(!(try derive("pass", [UInt8](repeating: 2, count: 16), fast).isEqual(to: base)))
        #expect(!(try derive("pass", salt, try KDFParameters(opslimit: 2, memlimit: 8192)).isEqual(to: base)))
    }

    @Test("KDF parameters: default 3 / 64 MiB, presets, and bounds checked")
    func kdfParameters() {
        #expect(KDFParameters.default.opslimit == 3 && KDFParameters.default.memlimit == 64 << 20)
        #expect(KDFParameters(preset: "interactive") == .interactive)
        #expect(KDFParameters(preset: "moderate")?.memlimit == 256 << 20)
        #expect(KDFParameters(preset: "sensitive")?.opslimit == 4)
        #expect(KDFParameters(preset: "fast") == nil)
        #expect(throws: SharedWebCredentialsError.self) { try KDFParameters(opslimit: 0, memlimit: 8192) }
        #expect(throws: SharedWebCredentialsError.self) { try KDFParameters(opslimit: 1, memlimit: 8191) }
    }

    @Test("subkeys differ by purpose and are stable; blind indexes depend on the key and field boundaries")
    func subkeysAndBlindIndexes() {
        let master = SecureBytes.random(count: KeyDerivation.keyLength)
        let records = KeyDerivation.subkey(.recordEncryption, from: master)
        let indexes = KeyDerivation.subkey(.blindIndex, from: master)
        #expect(!records.isEqual(to: indexes))
        #expect(KeyDerivation.subkey(.blindIndex, from: master).isEqual(to: indexes))
        let digest = KeyedHash.digest(key: indexes, fields: [Array("ab".utf8), Array("c".utf8)])
        #expect(digest.count == 32)
        #expect(digest == KeyedHash.digest(key: indexes, fields: [Array("ab".utf8), Array("c".utf8)]))
        #expect(digest != KeyedHash.digest(key: indexes, fields: [Array("a".utf8), Array("bc".utf8)]))
        #expect(digest != KeyedHash.digest(key: records, fields: [Array("ab".utf8), Array("c".utf8)]))
    }

    @Test("keyed hash: BLAKE2b-256 keyed as Python's hashlib computes it, over length-prefixed fields")
    func keyedHashKnownAnswer() {
        // hashlib.blake2b(b"\x02\0\0\0ab\x01\0\0\0c", key=bytes(range(32)), digest_size=32)
        let key = SecureBytes(copying: Array(0..<32))
        let digest = KeyedHash.digest(key: key, fields: [Array("ab".utf8), Array("c".utf8)])
        let hex = digest.map { String($0, radix: 16) }.map { $0.count == 1 ? "0" + $0 : $0 }.joined()
        #expect(hex == "a7fb44ab4efc5847febbc7d17cb87d8721c9f5b553c1cf69d35a4cadcfef3544")
    }

    @Test("a row's MAC: one field per value, its storage class first, as stored MACs were made")
    func stateMACEncoding() {
        let keys = VaultKeys.generate(wrappingKey: SecureBytes.random(count: KeyDerivation.keyLength))
        let text = "naïve.example"
        let values: [StoreValue] = [.text(text), .integer(-2), .real(1.5), .null, .blob([9, 8]), .text(""), .blob([])]
        let fields: [[UInt8]] = [
            [3] + Array(text.utf8),
            [1, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
            [2] + withUnsafeBytes(of: (1.5).bitPattern.littleEndian) { Array($0) },
            [0],
            [4, 9, 8],
            [3],
            [4],
        ]
        let mac = keys.stateMAC(table: "associations", values: values)
        #expect(mac == keys.stateMAC(table: "associations", fields: fields))
        #expect(mac == KeyedHash.digest(key: keys.stateKey, fields: [Array("associations".utf8)] + fields))
        #expect(mac != keys.stateMAC(table: "apps", values: values))
        #expect(mac != keys.stateMAC(table: "associations", values: values.dropLast() + [.null]))
        #expect(keys.isAuthentic(table: "associations", values: values, mac: mac))
        #expect(!keys.isAuthentic(table: "associations", values: values, mac: nil))
    }

    @Test(
        "a row's MAC covers every column, NULLs too; only trailing NULLs of columns added later are left out, as rows made before them were"
    )
    func coveredColumns() {
        let keys = VaultKeys.generate(wrappingKey: SecureBytes.random(count: KeyDerivation.keyLength))
        // A denial never approved: its last three columns are NULL, and every one is covered.
        let verdict: [StoreValue] = [
            .text("webcredentials"), .text("ABCDE12345.com.example.app"), .text("shop.example"), .text("denied"),
            .integer(1), .integer(2), .null, .integer(0), .null, .null,
        ]
        #expect(
            AuthenticatedTable.associations.mac(verdict, keys: keys)
                == keys.stateMAC(table: "associations", values: verdict))
        // An app without certificate fingerprints, a column added later (Android apps): made as before it.
        let app: [StoreValue] = [.text("ABCDE12345.com.example.app"), .blob([1]), .integer(1), .null]
        #expect(
            AuthenticatedTable.apps.mac(app, keys: keys) == keys.stateMAC(table: "apps", values: Array(app.dropLast())))
    }

    @Test("secure bytes: constant-time equality, random fill, large buffers")
    func secureBytes() {
        #expect(SecureBytes(utf8: "abc").isEqual(to: SecureBytes(utf8: "abc")))
        #expect(!SecureBytes(utf8: "abc").isEqual(to: SecureBytes(utf8: "abd")))
        #expect(!SecureBytes(utf8: "abc").isEqual(to: SecureBytes(utf8: "abcd")))
        #expect(!SecureBytes.random(count: 32).isEqual(to: SecureBytes.random(count: 32)))
        let large = SecureBytes(copying: [UInt8](repeating: 0x41, count: 10_000))
        #expect(large.count == 10_000 && large.exposedString().allSatisfy { $0 == "A" })
    }
}
