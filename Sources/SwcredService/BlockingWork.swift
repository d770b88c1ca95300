import NIOPosix

/// Synchronous library work the service cannot avoid (an unlock's key derivation, the owner's
/// and the background re-verifier's reads and writes) run on NIO's blocking thread pool, not on
/// Swift's cooperative threads: there are only as many of those as cores, and one that waits for
/// a disk or an Argon2id run stalls every request scheduled on it. The gated requests do not need
/// this: their reads and audit entries already run on the storage engine's own threads.
enum BlockingWork {
    /// Runs `body` on the blocking pool; the caller suspends until it returns or throws.
    static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await NIOThreadPool.singleton.runIfActive(body)
    }
}
