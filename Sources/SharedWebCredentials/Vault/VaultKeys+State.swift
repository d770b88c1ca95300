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
    /// encoded with its storage class so that NULL, text, integer and blob never coincide.
    func stateMAC(table: String, values: [StoreValue]) -> [UInt8] {
        stateMAC(table: table, fields: values.map(Self.field))
    }

    /// Whether `mac` is the MAC of `values` in `table` (constant-time comparison).
    func isAuthentic(table: String, values: [StoreValue], mac: [UInt8]?) -> Bool {
        guard let mac else { return false }
        let expected = stateMAC(table: table, values: values)
        return mac.withUnsafeBytes { given in expected.withUnsafeBytes { ConstantTime.equals(given, $0) } }
    }

    private static func field(_ value: StoreValue) -> [UInt8] {
        switch value {
        case .null: return [0]
        case .integer(let integer): return [1] + withUnsafeBytes(of: integer.littleEndian) { Array($0) }
        case .real(let real): return [2] + withUnsafeBytes(of: real.bitPattern.littleEndian) { Array($0) }
        case .text(let text): return [3] + Array(text.utf8)
        case .blob(let bytes): return [4] + bytes
        }
    }
}
