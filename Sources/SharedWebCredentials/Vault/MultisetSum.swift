/// An incremental multiset hash (MSet-Add-Hash, Clarke et al., 2003): the sum mod 2^256 of
/// 32-byte elements, each a keyed hash of one member, so that adding or removing a member costs
/// O(1) whatever the size of the set. Without the key nobody can compute a member's element, so
/// a member inserted, deleted or put back behind swcred's back leaves a set whose sum differs.
///
/// The sum is only as good as where it is stored: its holders (``RecordCommitment``, ``GrantSet``)
/// keep it under a MAC and the state seal, so that an older sum cannot be put back either.
struct MultisetSum: Equatable {
    /// The sum as four 64-bit limbs, least significant first.
    private var limbs: [UInt64]

    /// The sum of the empty set.
    static let empty = MultisetSum(limbs: [0, 0, 0, 0])

    private init(limbs: [UInt64]) {
        self.limbs = limbs
    }

    /// The sum stored as `bytes` (32, little-endian), or nil when it is not 32 bytes long.
    init?(bytes: some Collection<UInt8>) {
        guard bytes.count == 32 else { return nil }
        let bytes = Array(bytes)
        var limbs = [UInt64](repeating: 0, count: 4)
        for limb in 0..<4 {
            for byte in 0..<8 { limbs[limb] |= UInt64(bytes[limb * 8 + byte]) << (8 * UInt64(byte)) }
        }
        self.limbs = limbs
    }

    /// The 32 bytes of the sum, little-endian.
    var bytes: [UInt8] {
        limbs.flatMap { limb in withUnsafeBytes(of: limb.littleEndian) { Array($0) } }
    }

    /// Adds a 32-byte element.
    mutating func insert(_ element: [UInt8]) {
        add(element, negated: false)
    }

    /// Subtracts a 32-byte element.
    mutating func remove(_ element: [UInt8]) {
        add(element, negated: true)
    }

    /// Adds (or subtracts) a 32-byte element mod 2^256.
    private mutating func add(_ element: [UInt8], negated: Bool) {
        precondition(element.count == 32, "a multiset element is 32 bytes")
        var carry: UInt64 = negated ? 1 : 0
        for limb in 0..<4 {
            var value: UInt64 = 0
            for byte in 0..<8 { value |= UInt64(element[limb * 8 + byte]) << (8 * UInt64(byte)) }
            // Subtracting x is adding its two's complement: ~x + 1, carried through the limbs.
            if negated { value = ~value }
            let (partial, overflow1) = limbs[limb].addingReportingOverflow(value)
            let (sum, overflow2) = partial.addingReportingOverflow(carry)
            limbs[limb] = sum
            carry = (overflow1 ? 1 : 0) + (overflow2 ? 1 : 0)
        }
    }

    /// Whether two sums are equal, in constant time.
    func matches(_ other: MultisetSum) -> Bool {
        bytes.withUnsafeBytes { mine in other.bytes.withUnsafeBytes { ConstantTime.equals(mine, $0) } }
    }
}
