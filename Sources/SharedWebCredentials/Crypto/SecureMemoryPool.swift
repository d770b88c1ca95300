import CSodium
import Synchronization

/// Hands out small secret buffers carved from large `sodium_malloc` slabs.
///
/// `sodium_malloc` maps guard pages and locks memory for every call, which costs tens of
/// microseconds; a vault lookup must stay far below that. The pool keeps the properties that
/// matter for secrets (memory locked into RAM so it is never swapped, with failures recorded in
/// ``SecretMemory``, zeroed the moment a
/// buffer is released) and pays the system-call cost once per 64 KiB slab. Buffers larger than
/// the biggest size class get their own `sodium_malloc` allocation with guard pages.
///
/// Built with the `GuardedSecrets` trait there are no slabs: every buffer is its own
/// `sodium_malloc` allocation, ending at a guard page and preceded by a canary, so a test run
/// turns any out-of-bounds access to a secret into a crash.
final class SecureMemoryPool: Sendable {
    /// The process-wide pool.
    static let shared = SecureMemoryPool()

    /// Chunk sizes served from slabs; requests round up to the next one.
    #if GuardedSecrets
        private static let sizeClasses: [Int] = []
    #else
        private static let sizeClasses = [64, 256, 1024, 4096]
    #endif
    private static let slabSize = 64 * 1024

    /// Free chunk addresses per size class (stored as integers, which are `Sendable`).
    private struct FreeLists: ~Copyable {
        var chunks: [[UInt]] = Array(repeating: [], count: SecureMemoryPool.sizeClasses.count)
    }

    private let freeLists = Mutex(FreeLists())

    private init() {}

    /// Allocates `count` bytes of locked, zero-filled memory. `count` may be zero.
    func allocate(count: Int) -> UnsafeMutableRawBufferPointer {
        Sodium.ensureInitialized()
        let requested = max(count, 1)
        guard let sizeClass = Self.sizeClasses.firstIndex(where: { $0 >= requested }) else {
            guard let pointer = sodium_malloc(requested) else {
                fatalError("sodium_malloc failed: out of memory for a secret buffer")
            }
            SecretMemory.lock(pointer, count: requested)
            sodium_memzero(pointer, requested)
            return UnsafeMutableRawBufferPointer(start: pointer, count: count)
        }
        let address = freeLists.withLock { lists -> UInt in
            if lists.chunks[sizeClass].isEmpty {
                let chunkSize = Self.sizeClasses[sizeClass]
                guard let slab = sodium_malloc(Self.slabSize) else {
                    fatalError("sodium_malloc failed: out of memory for a secret buffer")
                }
                SecretMemory.lock(slab, count: Self.slabSize)
                sodium_memzero(slab, Self.slabSize)
                for offset in stride(from: 0, to: Self.slabSize, by: chunkSize) {
                    lists.chunks[sizeClass].append(UInt(bitPattern: slab + offset))
                }
            }
            return lists.chunks[sizeClass].removeLast()
        }
        return UnsafeMutableRawBufferPointer(start: UnsafeMutableRawPointer(bitPattern: address), count: count)
    }

    /// Zeroes a buffer from ``allocate(count:)`` and returns it to the pool (or to libsodium).
    func release(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let pointer = buffer.baseAddress else { return }
        let requested = max(buffer.count, 1)
        guard let sizeClass = Self.sizeClasses.firstIndex(where: { $0 >= requested }) else {
            sodium_free(pointer)  // zeroes before unmapping
            return
        }
        sodium_memzero(pointer, Self.sizeClasses[sizeClass])
        let address = UInt(bitPattern: pointer)
        freeLists.withLock { $0.chunks[sizeClass].append(address) }
    }
}
