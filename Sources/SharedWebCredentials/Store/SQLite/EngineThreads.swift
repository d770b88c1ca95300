import NIOPosix

/// The SQLite engine's own threads: where its `async` transactions run their synchronous work,
/// so that a caller on Swift's cooperative threads suspends instead of blocking, at the cost of
/// two thread hand-offs (there and back) per transaction.
///
/// Running the whole transaction on one of these threads keeps GRDB's connection access
/// synchronous there (its `sync` dispatch runs the block on the calling thread), where GRDB's own
/// async accessors hand each transaction over three or four times (to the pool's queue, to the
/// connection's queue, back); on two busy cores each hand-off is a thread wake-up, and they were
/// most of a request's time. Four threads: one writer at a time, and reads side by side.
enum EngineThreads {
    /// The pool, started on first use and kept for the life of the process.
    static let pool: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: 4)
        pool.start()
        return pool
    }()

    /// Runs `body` on one of the engine's threads; the caller suspends until it returns or throws.
    static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await pool.runIfActive(body)
    }

    /// Starts `work` on one of the engine's threads and returns at once.
    static func submit(_ work: @escaping @Sendable () -> Void) {
        pool.submit { state in
            guard case .active = state else { return }
            work()
        }
    }
}
