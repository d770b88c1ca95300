import Foundation
import Testing

@testable import SharedWebCredentials

@Suite("Passkey payload: versioned, strict")
struct PasskeyPayloadTests {
    static func passkey(_ algorithm: PasskeyAlgorithm) throws -> Passkey {
        Passkey(
            credentialID: Array(repeating: 0x42, count: 16), rpID: try RelyingPartyID("login.example.com"),
            userHandle: Array("user-1234".utf8), userName: "alice@example.com", userDisplayName: "Alice Ünïcode",
            privateKey: PasskeyPrivateKey.generate(algorithm), created: Date(timeIntervalSince1970: 1_764_000_000.123))
    }

    static func bytes(_ secure: SecureBytes) -> [UInt8] { secure.withUnsafeBytes { Array($0) } }

    static func decodeError(_ bytes: [UInt8]) -> String? {
        do {
            _ = try PasskeyPayload.decode(SecureBytes(copying: bytes))
            return nil
        } catch let error as SharedWebCredentialsError {
            #expect(error.code == .integrityFailure)
            return error.message
        } catch {
            Issue.record("not a SharedWebCredentialsError: \(error)")
            return "\(error)"
        }
    }

    @Test("every field round-trips, and the key still signs the same", arguments: PasskeyAlgorithm.allCases)
    func roundTrip(_ algorithm: PasskeyAlgorithm) throws {
        let original = try Self.passkey(algorithm)
        let encoded = PasskeyPayload.encode(original)
        #expect(Self.bytes(encoded).first == 1)
        let decoded = try PasskeyPayload.decode(encoded)
        #expect(decoded.credentialID == original.credentialID)
        #expect(decoded.rpID == original.rpID)
        #expect(decoded.userHandle == original.userHandle)
        #expect(decoded.userName == original.userName)
        #expect(decoded.userDisplayName == original.userDisplayName)
        #expect(decoded.algorithm == algorithm)
        #expect(decoded.privateKey.secret.isEqual(to: original.privateKey.secret))
        #expect(decoded.created == original.created)
        #expect(try decoded.privateKey.cosePublicKey() == (try original.privateKey.cosePublicKey()))
    }

    @Test("an unknown version or algorithm, trailing or missing bytes, bad sizes and bad text are refused")
    func strict() throws {
        let good = Self.bytes(PasskeyPayload.encode(try Self.passkey(.es256)))
        #expect(Self.decodeError(good) == nil)
        var version2 = good
        version2[0] = 2
        #expect(Self.decodeError(version2)?.contains("version 2") == true)
        #expect(Self.decodeError(good + [0])?.contains("follow its last field") == true)
        #expect(Self.decodeError(Array(good.dropLast())) != nil)
        #expect(Self.decodeError([]) != nil)
        var algorithm = good
        algorithm[1] = 0xF9  // -7 -> -263 (0xFFFFFEF9)
        algorithm[2] = 0xFE
        #expect(Self.decodeError(algorithm)?.contains("algorithm") == true)
        // Every prefix is refused: no field may be cut short.
        for length in 0..<good.count {
            #expect(Self.decodeError(Array(good.prefix(length))) != nil, "prefix \(length)")
        }
    }

    /// A payload written field by field, to break one field at a time.
    static func payload(
        version: UInt8 = 1, algorithm: Int32 = -7, credentialID: [UInt8] = Array(repeating: 1, count: 16),
        rpID: [UInt8] = Array("login.example.com".utf8), userHandle: [UInt8] = [1], userName: [UInt8] = [0x61],
        displayName: [UInt8] = [0x41], key: [UInt8] = Array(repeating: 0x11, count: 32)
    ) -> [UInt8] {
        func field(_ bytes: [UInt8]) -> [UInt8] {
            withUnsafeBytes(of: UInt32(bytes.count).littleEndian, Array.init) + bytes
        }
        return [version] + withUnsafeBytes(of: algorithm.littleEndian, Array.init) + field(credentialID) + field(rpID)
            + field(userHandle) + field(userName) + field(displayName) + field(key)
            + withUnsafeBytes(of: Int64(0).littleEndian, Array.init)
    }

    @Test("each field's rule is enforced")
    func fieldRules() {
        #expect(Self.decodeError(Self.payload()) == nil)
        #expect(Self.decodeError(Self.payload(credentialID: Array(repeating: 1, count: 15))) != nil)
        #expect(Self.decodeError(Self.payload(rpID: Array("Login.Example.com".utf8))) != nil)
        #expect(Self.decodeError(Self.payload(rpID: Array("127.0.0.1".utf8))) != nil)
        #expect(Self.decodeError(Self.payload(userHandle: [])) != nil)
        #expect(Self.decodeError(Self.payload(userHandle: Array(repeating: 1, count: 65))) != nil)
        #expect(Self.decodeError(Self.payload(userName: [0xFF])) != nil)
        #expect(Self.decodeError(Self.payload(key: Array(repeating: 0x11, count: 31))) != nil)
        // The P-256 order n and above are not scalars; zero is not one either.
        #expect(Self.decodeError(Self.payload(key: Array(repeating: 0xFF, count: 32))) != nil)
        #expect(Self.decodeError(Self.payload(key: Array(repeating: 0, count: 32))) != nil)
        #expect(Self.decodeError(Self.payload(algorithm: -8, key: Array(repeating: 0, count: 32))) == nil)
    }
}
