/// The CBOR (RFC 8949) values WebAuthn's authenticator needs, and their deterministic encoding:
/// integers, byte strings, text strings, arrays and maps; no floats, tags or indefinite lengths.
///
/// The encoding is RFC 8949 §4.2.1's core deterministic encoding, which CTAP2's canonical form
/// agrees with for every map written here: each head in its shortest form, and map entries sorted
/// by the bytes of their encoded keys (`1, 3, -1, -2, -3` for a COSE key; `fmt`, `attStmt`,
/// `authData` for an attestation object). Duplicate keys are a programming error.
package indirect enum CBOR: Sendable {
    /// An integer, major type 0 (non-negative) or 1 (negative).
    case integer(Int64)
    /// A byte string, major type 2.
    case bytes([UInt8])
    /// A UTF-8 text string, major type 3.
    case text(String)
    /// An array, major type 4.
    case array([CBOR])
    /// A map, major type 5; the order given does not matter, the encoding sorts it.
    case map([(CBOR, CBOR)])

    /// The deterministic encoding.
    package var encoded: [UInt8] {
        var output: [UInt8] = []
        encode(into: &output)
        return output
    }

    private func encode(into output: inout [UInt8]) {
        switch self {
        case .integer(let value):
            if value >= 0 {
                Self.appendHead(major: 0, UInt64(value), to: &output)
            } else {
                // -1 - n, computed without overflow for Int64.min.
                Self.appendHead(major: 1, UInt64(bitPattern: ~value), to: &output)
            }
        case .bytes(let bytes):
            Self.appendHead(major: 2, UInt64(bytes.count), to: &output)
            output += bytes
        case .text(let text):
            Self.appendHead(major: 3, UInt64(text.utf8.count), to: &output)
            output += text.utf8
        case .array(let items):
            Self.appendHead(major: 4, UInt64(items.count), to: &output)
            for item in items { item.encode(into: &output) }
        case .map(let entries):
            let encodedEntries = entries.map { (key: $0.0.encoded, value: $0.1.encoded) }
                .sorted { $0.key.lexicographicallyPrecedes($1.key) }
            for (first, second) in zip(encodedEntries, encodedEntries.dropFirst()) {
                precondition(first.key != second.key, "a CBOR map repeats a key")
            }
            Self.appendHead(major: 5, UInt64(encodedEntries.count), to: &output)
            for entry in encodedEntries {
                output += entry.key
                output += entry.value
            }
        }
    }

    /// The initial byte and argument in their shortest form (RFC 8949 §3 and §4.2.1).
    private static func appendHead(major: UInt8, _ argument: UInt64, to output: inout [UInt8]) {
        let type = major << 5
        switch argument {
        case 0..<24:
            output.append(type | UInt8(argument))
        case 24...0xFF:
            output += [type | 24, UInt8(argument)]
        case 0x100...0xFFFF:
            output.append(type | 25)
            output += bigEndian(argument, bytes: 2)
        case 0x1_0000...0xFFFF_FFFF:
            output.append(type | 26)
            output += bigEndian(argument, bytes: 4)
        default:
            output.append(type | 27)
            output += bigEndian(argument, bytes: 8)
        }
    }

    private static func bigEndian(_ value: UInt64, bytes: Int) -> [UInt8] {
        (0..<bytes).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }
}
