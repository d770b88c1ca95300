import Foundation

/// The plaintext inside a passkey's sealed blob, like ``CredentialPayload`` for passwords:
/// length-prefixed fields written straight into locked memory.
///
/// Layout (integers little-endian): version u8 = 1, algorithm i32 (COSE: -7 or -8), then credential
/// ID, RP ID, user handle, user name, user display name and private key as (u32 length, bytes),
/// then created as i64 milliseconds since 1970.
///
/// The decoder is strict: an unknown version or algorithm, a field of the wrong size (credential ID
/// 16...1023 bytes, user handle 1...64, private key 32), text that is not UTF-8, an RP ID that is
/// not in normalised form, or bytes after the last field all refuse the payload. Authentication
/// of the sealed blob makes such a payload a bug or a newer format, never an attacker's, so the
/// refusal is an integrity failure.
public enum PasskeyPayload {
    /// The version written.
    public static let version: UInt8 = 1

    /// Encodes a passkey into locked memory.
    public static func encode(_ passkey: Passkey) -> SecureBytes {
        let fields: [[UInt8]] = [
            passkey.credentialID, Array(passkey.rpID.value.utf8), passkey.userHandle, Array(passkey.userName.utf8),
            Array(passkey.userDisplayName.utf8),
        ]
        let count = 1 + 4 + fields.reduce(0) { $0 + 4 + $1.count } + 4 + passkey.privateKey.secret.count + 8
        return SecureBytes(count: count) { buffer in
            var writer = PayloadWriter(buffer: buffer)
            writer.append(version)
            writer.append(Int32(passkey.algorithm.rawValue))
            for field in fields { field.withUnsafeBytes { writer.appendField($0) } }
            passkey.privateKey.secret.withUnsafeBytes { writer.appendField($0) }
            writer.append(Int64((passkey.created.timeIntervalSince1970 * 1000).rounded()))
            precondition(writer.offset == count, "passkey payload size mismatch")
        }
    }

    /// Decodes a payload, or throws `integrity-failure` naming what is wrong.
    public static func decode(_ payload: SecureBytes) throws -> Passkey {
        func malformed(_ what: String) -> SharedWebCredentialsError {
            SharedWebCredentialsError(.integrityFailure, "a passkey record is malformed: \(what)")
        }
        return try payload.withUnsafeBytes { bytes throws -> Passkey in
            var reader = PayloadReader(bytes: bytes)
            guard let payloadVersion = reader.readInteger(UInt8.self) else { throw malformed("it is empty") }
            guard payloadVersion == version else {
                throw malformed("its version \(payloadVersion) is unknown (this swcred reads version \(version))")
            }
            guard let rawAlgorithm = reader.readInteger(Int32.self) else { throw malformed("it is truncated") }
            guard let algorithm = PasskeyAlgorithm(rawValue: Int(rawAlgorithm)) else {
                throw malformed("its algorithm \(rawAlgorithm) is unknown")
            }
            guard let credentialID = reader.readField().map(Array.init), (16...1023).contains(credentialID.count) else {
                throw malformed("its credential ID is missing or not 16 to 1023 bytes")
            }
            guard let rpText = try reader.readText(), let rpID = RelyingPartyID(storedValue: rpText) else {
                throw malformed("its RP ID is missing or not a normalised domain name")
            }
            guard let userHandle = reader.readField().map(Array.init), (1...64).contains(userHandle.count) else {
                throw malformed("its user handle is missing or not 1 to 64 bytes")
            }
            guard let userName = try reader.readText(), let displayName = try reader.readText() else {
                throw malformed("it is truncated")
            }
            guard let keyBytes = reader.readField(), keyBytes.count == algorithm.privateKeyByteCount else {
                throw malformed("its private key is missing or not \(algorithm.privateKeyByteCount) bytes")
            }
            let privateKey = try PasskeyPrivateKey(algorithm: algorithm, secret: SecureBytes(copying: keyBytes))
            guard let created = reader.readInteger(Int64.self) else { throw malformed("it is truncated") }
            guard reader.offset == bytes.count else {
                throw malformed("\(bytes.count - reader.offset) bytes follow its last field")
            }
            return Passkey(
                credentialID: credentialID, rpID: rpID, userHandle: userHandle, userName: userName,
                userDisplayName: displayName, privateKey: privateKey,
                created: Date(timeIntervalSince1970: Double(created) / 1000))
        }
    }
}

/// Writes fixed-width integers and length-prefixed fields into a buffer sized in advance.
struct PayloadWriter {
    let buffer: UnsafeMutableRawBufferPointer
    var offset = 0

    mutating func append<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { append(bytes: $0) }
    }

    mutating func appendField(_ bytes: UnsafeRawBufferPointer) {
        append(UInt32(bytes.count))
        append(bytes: bytes)
    }

    mutating func append(bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<(offset + bytes.count)]).copyMemory(from: bytes)
        offset += bytes.count
    }

    mutating func append(bytes: [UInt8]) {
        bytes.withUnsafeBytes { append(bytes: $0) }
    }
}

/// Reads what ``PayloadWriter`` writes; every read is bounds-checked and nil past the end.
struct PayloadReader {
    let bytes: UnsafeRawBufferPointer
    var offset = 0

    mutating func readInteger<T: FixedWidthInteger>(_: T.Type) -> T? {
        let size = MemoryLayout<T>.size
        guard offset + size <= bytes.count else { return nil }
        var value = T.zero
        withUnsafeMutableBytes(of: &value) {
            $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + size)]))
        }
        offset += size
        return T(littleEndian: value)
    }

    /// A field as UTF-8 text: nil when it is missing, throws when it is not valid UTF-8.
    mutating func readText() throws -> String? {
        guard let field = readField() else { return nil }
        guard let text = String(validating: field, as: UTF8.self) else {
            throw SharedWebCredentialsError(.integrityFailure, "a passkey record is malformed: a text is not UTF-8")
        }
        return text
    }

    mutating func readField() -> UnsafeRawBufferPointer? {
        guard let length = readInteger(UInt32.self).map(Int.init), offset + length <= bytes.count else { return nil }
        defer { offset += length }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)])
    }
}
