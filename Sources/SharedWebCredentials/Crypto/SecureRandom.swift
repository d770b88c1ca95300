import CSodium

/// A cryptographically secure source of uniform random choices, backed by libsodium's
/// `randombytes_buf`.
///
/// Random bytes are drawn in blocks of ``bufferSize`` so that generating a password makes no system
/// call per character. Every choice is unbiased: bounds are mapped with Lemire's multiply-and-reject
/// method (a product's high half is the result; low halves in the biased zone are rejected), so no
/// raw random value is ever reduced with `%`. Each byte is wiped as it is consumed and the whole
/// buffer when the source is released, so no random bytes that became password characters linger.
///
/// A non-copyable value, so its buffer has exactly one owner and its hot path needs no reference
/// counting or dynamic exclusivity checks.
public struct SecureRandom: ~Copyable {
    /// How many random bytes are fetched from libsodium at a time.
    public static let bufferSize = 4096

    private let buffer: UnsafeMutableRawBufferPointer
    private var position: Int

    /// Creates a source; libsodium is initialised on first use.
    public init() {
        Sodium.ensureInitialized()
        buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.bufferSize, alignment: 16)
        position = Self.bufferSize
    }

    deinit {
        sodium_memzero(buffer.baseAddress!, buffer.count)
        buffer.deallocate()
    }

    /// One uniformly random byte.
    @inline(__always)
    public mutating func nextByte() -> UInt8 {
        if position == Self.bufferSize { refill() }
        let byte = buffer[position]
        buffer[position] = 0
        position += 1
        return byte
    }

    /// A uniformly random integer in `0..<upperBound`; `upperBound` must be in `1...2^32`.
    @inline(__always)
    public mutating func uniform(_ upperBound: Int) -> Int {
        precondition(upperBound > 0 && upperBound <= 1 << 32, "upper bound out of range")
        if upperBound <= 256 { return uniformSmall(UInt16(upperBound)) }
        return uniformLarge(UInt64(upperBound))
    }

    /// Lemire's method on one byte: `byte * n` spans `n` buckets of 256; the few low halves below
    /// `(256 - n) mod n` would make some buckets larger, so they are rejected and drawn again.
    @inline(__always)
    private mutating func uniformSmall(_ bound: UInt16) -> Int {
        var product = UInt16(nextByte()) &* bound
        if UInt16(truncatingIfNeeded: product) & 0xFF < bound {
            let threshold = (256 - bound) % bound
            while product & 0xFF < threshold {
                product = UInt16(nextByte()) &* bound
            }
        }
        return Int(product >> 8)
    }

    /// Lemire's method on a 32-bit word, for bounds above 256.
    private mutating func uniformLarge(_ bound: UInt64) -> Int {
        var product = UInt64(nextWord()) &* bound
        if UInt32(truncatingIfNeeded: product) < UInt32(truncatingIfNeeded: bound) {
            let threshold = UInt64((1 << 32) - bound) % bound
            while product & 0xFFFF_FFFF < threshold {
                product = UInt64(nextWord()) &* bound
            }
        }
        return Int(product >> 32)
    }

    private mutating func nextWord() -> UInt32 {
        var word: UInt32 = 0
        for _ in 0..<4 { word = word << 8 | UInt32(nextByte()) }
        return word
    }

    private mutating func refill() {
        randombytes_buf(buffer.baseAddress!, buffer.count)
        position = 0
    }
}
