/// MACs over state that is stored in plaintext: rows of `apps` and `associations` (and any other
/// table whose rows the gate trusts), and the record commitment.
extension VaultKeys {
    /// Keyed BLAKE2b (``KeyedHash``) under ``stateKey`` over `table` and the length-prefixed
    /// `fields`. Give the row's identity and every other column, so that no column can be changed
    /// and no row moved to another identity or table without the MAC failing.
    func stateMAC(table: String, fields: [[UInt8]]) -> [UInt8] {
        KeyedHash.digest(key: stateKey, fields: [Array(table.utf8)] + fields)
    }

    /// The MAC of a row given as the database values of its columns (identity first), each
    /// encoded with its storage class so that NULL, text, integer and blob never coincide: the
    /// same bytes as ``stateMAC(table:fields:)`` with one field per value, written into one buffer.
    func stateMAC(table: String, values: [StoreValue]) -> [UInt8] {
        var message = KeyedHash.Message(capacity: 4 + table.utf8.count + values.reduce(0) { $0 + 5 + Self.size($1) })
        message.append(field: table.utf8)
        for value in values {
            switch value {
            case .null: message.append(field: EmptyCollection(), taggedWith: 0)
            case .integer(let integer):
                withUnsafeBytes(of: integer.littleEndian) { message.append(field: $0, taggedWith: 1) }
            case .real(let real):
                withUnsafeBytes(of: real.bitPattern.littleEndian) { message.append(field: $0, taggedWith: 2) }
            case .text(let text): message.append(field: text.utf8, taggedWith: 3)
            case .blob(let bytes): message.append(field: bytes, taggedWith: 4)
            }
        }
        return KeyedHash.digest(key: stateKey, message: &message)
    }

    /// Whether `mac` is the MAC of `values` in `table` (constant-time comparison).
    func isAuthentic(table: String, values: [StoreValue], mac: [UInt8]?) -> Bool {
        guard let mac else { return false }
        let expected = stateMAC(table: table, values: values)
        return mac.withUnsafeBytes { given in expected.withUnsafeBytes { ConstantTime.equals(given, $0) } }
    }

    /// The bytes of `value`'s field after its storage class.
    private static func size(_ value: StoreValue) -> Int {
        switch value {
        case .null: 0
        case .integer, .real: 8
        case .text(let text): text.utf8.count
        case .blob(let bytes): bytes.count
        }
    }
}
