import CSodium

/// Comparisons whose running time does not depend on where the inputs differ.
enum ConstantTime {
    /// Whether two buffers hold the same bytes. Lengths are compared first (lengths are not secret).
    static func equals(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Bool {
        guard lhs.count == rhs.count else { return false }
        guard let left = lhs.baseAddress, let right = rhs.baseAddress else { return true }
        return sodium_memcmp(left, right, lhs.count) == 0
    }
}
