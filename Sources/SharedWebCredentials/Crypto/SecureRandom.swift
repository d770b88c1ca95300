import CSodium

/// A cryptographically secure source of uniform random choices on libsodium.
///
/// Random bytes come in blocks of ``bufferSize`` so that generating a password makes no system call
/// per character. Each block is ChaCha20 output (`randombytes_buf_deterministic`) under a 32-byte
/// key; the block's last 32 bytes become the next key and are wiped at once ("fast key erasure"), so
/// a later memory disclosure cannot reveal earlier output. The key is drawn from the operating system
/// (`randombytes_buf`) at creation and again every ``reseedInterval`` blocks.
///
/// Every choice is unbiased: bounds are mapped with Lemire's multiply-and-reject method (a product's
/// high half is the result; low halves in the biased zone are rejected), so no raw random value is
/// ever reduced with `%`. Each byte is wiped as it is consumed, and the whole buffer and key when the
/// source is released.
///
/// A non-copyable value, so its buffer has exactly one owner and its hot path needs no reference
/// counting or dynamic exclusivity checks. Not thread-safe: give each thread its own instance.
public struct SecureRandom: ~Copyable {
    /// How many random bytes are made at a time.
    public static let bufferSize = 16_384
    /// How many blocks are made before the key is drawn from the operating system again.
    public static let reseedInterval = 64

    private static let keySize = 32
    /// `bufferSize` bytes of output, then the next key.
    private let buffer: UnsafeMutableRawBufferPointer
    private var position: Int
    private var blocksSinceReseed: Int

    /// Creates a source keyed from the operating system; libsodium is initialised on first use.
    public init() {
        Sodium.ensureInitialized()
        buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.bufferSize + Self.keySize, alignment: 16)
        randombytes_buf(buffer.baseAddress! + Self.bufferSize, Self.keySize)
        position = Self.bufferSize
        blocksSinceReseed = 0
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

    /// Makes the next block from the current key, and replaces the key (from the block's tail, or
    /// from the operating system every `reseedInterval` blocks).
    private mutating func refill() {
        let base = buffer.baseAddress!
        let key = base.assumingMemoryBound(to: UInt8.self) + Self.bufferSize
        if blocksSinceReseed == Self.reseedInterval {
            randombytes_buf(key, Self.keySize)
            blocksSinceReseed = 0
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.keySize) { seed in
            seed.baseAddress!.update(from: key, count: Self.keySize)
            randombytes_buf_deterministic(base, buffer.count, seed.baseAddress!)
            sodium_memzero(seed.baseAddress!, Self.keySize)
        }
        blocksSinceReseed += 1
        position = 0
    }
}
