import CSodium

/// Secret bytes (a key, a passphrase, a password) held in locked memory and zeroed on release.
///
/// The bytes are written once, when the value is made, and never change afterwards, so the
/// value can be shared between threads. Turn them into a Swift `String` only at the edge where a
/// caller needs one, with ``exposedString()``: a `String` cannot be wiped.
public final class SecureBytes: @unchecked Sendable {
    private let buffer: UnsafeMutableRawBufferPointer

    /// Makes `count` bytes and lets `initializer` fill them. If it throws, the bytes are wiped.
    public init(count: Int, initializer: (UnsafeMutableRawBufferPointer) throws -> Void) rethrows {
        let buffer = SecureMemoryPool.shared.allocate(count: count)
        do {
            try initializer(buffer)
        } catch {
            SecureMemoryPool.shared.release(buffer)
            throw error
        }
        self.buffer = buffer
    }

    /// Copies bytes that are already in memory (for example a password given as a `String`).
    /// Wipe the source yourself if you own it.
    public convenience init(copying bytes: some Collection<UInt8>) {
        self.init(count: bytes.count) { buffer in
            // One copy of contiguous bytes (an array, a buffer, a native string's UTF-8), not a
            // byte-by-byte walk of the collection, which cost 14 instructions a byte.
            let copied: Void? = bytes.withContiguousStorageIfAvailable {
                buffer.copyMemory(from: UnsafeRawBufferPointer($0))
            }
            if copied == nil { _ = buffer.initializeMemory(as: UInt8.self, from: bytes) }
        }
    }

    /// Copies the UTF-8 bytes of a string. The string itself stays in ordinary memory.
    public convenience init(utf8 string: String) {
        self.init(copying: string.utf8)
    }

    /// `count` bytes from libsodium's CSPRNG.
    public static func random(count: Int) -> SecureBytes {
        SecureBytes(count: count) { buffer in
            if let base = buffer.baseAddress { randombytes_buf(base, buffer.count) }
        }
    }

    /// The number of bytes.
    public var count: Int { buffer.count }

    /// Whether there are no bytes.
    public var isEmpty: Bool { buffer.isEmpty }

    /// Reads the bytes. Do not let the pointer escape `body`.
    public func withUnsafeBytes<Result, Failure: Error>(
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try body(UnsafeRawBufferPointer(buffer))
    }

    /// The bytes as a Swift `String` (invalid UTF-8 is repaired). Call only at the edge where a
    /// caller asked for the secret, such as printing a released password.
    public func exposedString() -> String {
        String(decoding: UnsafeRawBufferPointer(buffer), as: UTF8.self)
    }

    /// Compares with other secret bytes in constant time (for equal lengths).
    public func isEqual(to other: SecureBytes) -> Bool {
        withUnsafeBytes { mine in
            other.withUnsafeBytes { theirs in ConstantTime.equals(mine, theirs) }
        }
    }

    deinit {
        SecureMemoryPool.shared.release(buffer)
    }
}
