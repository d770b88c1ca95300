import CSodium

/// Comparisons whose time does not depend on where two byte strings differ (`sodium_memcmp`).
public enum ConstantTimeBytes {
    /// Whether `lhs` and `rhs` hold the same bytes; lengths, which are not secret, are compared
    /// first.
    public static func equal(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        guard !lhs.isEmpty else { return true }
        return sodium_memcmp(lhs, rhs, lhs.count) == 0
    }
}
