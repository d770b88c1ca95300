import Foundation

/// The plaintext inside a credential's sealed blob, encoded as length-prefixed fields straight
/// into locked memory (no intermediate `String` or `Data` copies of the password).
///
/// Layout (integers little-endian): version u8 = 3, then server, account, password, label,
/// notes and otpauth URI as (u32 length, bytes; empty = none), then port u32 (0 = none), created
/// and modified as i64 milliseconds since 1970, then the scheme as u8 (0 = https, 1 = http).
/// Version 2, written before schemes were kept, lacks the scheme and is https; version 1,
/// written before notes and otpauth URIs existed, lacks those two fields as well. Both are still
/// read, and written back as version 3. The scheme is sealed here and in the blind indexes that
/// the associated data binds, so a store that changes a record's scheme fails its authentication.
enum CredentialPayload {
    private static let version: UInt8 = 3
    private static let versionWithoutScheme: UInt8 = 2
    private static let versionWithoutNotes: UInt8 = 1

    /// Encodes a credential's fields.
    static func encode(
        scheme: CredentialScheme, server: String, port: Int?, account: String, password: SecureBytes,
        details: CredentialDetails,
        created: Date, modified: Date
    ) -> SecureBytes {
        let serverBytes = Array(server.utf8)
        let accountBytes = Array(account.utf8)
        let detailFields = [details.label, details.notes, details.otpAuth].map { Array(($0 ?? "").utf8) }
        let count =
            1 + 4 * 6 + serverBytes.count + accountBytes.count + password.count
            + detailFields.reduce(0) { $0 + $1.count } + 4 + 16 + 1
        return SecureBytes(count: count) { buffer in
            var writer = Writer(buffer: buffer)
            writer.append(version)
            writer.appendField(serverBytes)
            writer.appendField(accountBytes)
            password.withUnsafeBytes { writer.appendField($0) }
            for field in detailFields { writer.appendField(field) }
            writer.append(UInt32(port ?? 0))
            writer.append(Int64((created.timeIntervalSince1970 * 1000).rounded()))
            writer.append(Int64((modified.timeIntervalSince1970 * 1000).rounded()))
            writer.append(UInt8(scheme == .https ? 0 : 1))
            precondition(writer.offset == count, "credential payload size mismatch")
        }
    }

    /// Decodes a payload; nil if it is malformed (which authentication makes a bug, not an attack).
    static func decode(_ payload: SecureBytes) -> Credential? {
        payload.withUnsafeBytes { bytes -> Credential? in
            var reader = Reader(bytes: bytes)
            guard let payloadVersion = reader.readInteger(UInt8.self),
                (versionWithoutNotes...version).contains(payloadVersion),
                let server = reader.readText(),
                let account = reader.readText(),
                let password = reader.readField().map({ SecureBytes(copying: $0) }),
                let label = reader.readText(),
                let notes = payloadVersion > versionWithoutNotes ? reader.readText() : "",
                let otpAuth = payloadVersion > versionWithoutNotes ? reader.readText() : "",
                let port = reader.readInteger(UInt32.self),
                let created = reader.readInteger(Int64.self),
                let modified = reader.readInteger(Int64.self),
                let scheme = payloadVersion == version ? Self.scheme(reader.readInteger(UInt8.self)) : .https,
                reader.offset == bytes.count
            else { return nil }
            return Credential(
                scheme: scheme, server: server, port: port == 0 ? nil : Int(port), account: account, password: password,
                details: CredentialDetails(label: label, notes: notes, otpAuth: otpAuth),
                created: Date(timeIntervalSince1970: Double(created) / 1000),
                modified: Date(timeIntervalSince1970: Double(modified) / 1000))
        }
    }

    /// The scheme of a version-3 payload's last byte; nil for a byte that names none.
    private static func scheme(_ byte: UInt8?) -> CredentialScheme? {
        switch byte {
        case 0: .https
        case 1: .http
        default: nil
        }
    }

    private struct Writer {
        let buffer: UnsafeMutableRawBufferPointer
        var offset = 0

        mutating func append<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.littleEndian) { append(bytes: $0) }
        }

        mutating func appendField(_ bytes: [UInt8]) {
            bytes.withUnsafeBytes { appendField($0) }
        }

        mutating func appendField(_ bytes: UnsafeRawBufferPointer) {
            append(UInt32(bytes.count))
            append(bytes: bytes)
        }

        private mutating func append(bytes: UnsafeRawBufferPointer) {
            guard !bytes.isEmpty else { return }
            UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<(offset + bytes.count)]).copyMemory(from: bytes)
            offset += bytes.count
        }
    }

    private struct Reader {
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

        mutating func readText() -> String? {
            readField().map { $0.isEmpty ? "" : String(decoding: $0, as: UTF8.self) }
        }

        mutating func readField() -> UnsafeRawBufferPointer? {
            guard let length = readInteger(UInt32.self).map(Int.init), offset + length <= bytes.count else {
                return nil
            }
            defer { offset += length }
            return UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)])
        }
    }
}
