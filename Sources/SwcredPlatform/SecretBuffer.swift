import CSodium

/// A fixed-size secret (a key, a shared key, a decrypted message) in its own `sodium_malloc`
/// allocation: locked in memory where the kernel allows it, between guard pages, and wiped by
/// `sodium_free` when the buffer is released.
/// For the code that may not depend on the vault library (the browser bridge's protocol), whose
/// `SecureBytes` does the same job with its own slab allocator.
public final class SecretBuffer {
    /// The secret's bytes; never let the pointer escape a `with…` closure.
    private let pointer: UnsafeMutableRawPointer
    /// The number of bytes.
    public let count: Int

    /// Allocates `count` zeroed bytes. A failure to allocate is fatal: there is nothing safe to
    /// fall back on for a key.
    public init(count: Int) {
        _ = SodiumRuntime.ready
        guard let pointer = sodium_malloc(max(count, 1)) else {
            fatalError("sodium_malloc could not allocate \(count) bytes for a secret")
        }
        sodium_memzero(pointer, max(count, 1))
        self.pointer = pointer
        self.count = count
    }

    /// Lets `body` write the bytes.
    public func withUnsafeMutableBytes<Result, Failure: Error>(
        _ body: (UnsafeMutableRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try body(UnsafeMutableRawBufferPointer(start: pointer, count: count))
    }

    /// Lets `body` read the bytes.
    public func withUnsafeBytes<Result, Failure: Error>(
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try body(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// Zeroes the bytes now, before the buffer is released.
    public func wipe() {
        sodium_memzero(pointer, max(count, 1))
    }

    deinit {
        // sodium_free zeroes the allocation before it unmaps it.
        sodium_free(pointer)
    }
}
