import NIOPosix
import Synchronization

/// A storage engine's own threads: where its `async` transactions run their synchronous work, so
/// that no cooperative thread ever waits for the database.
///
/// A transaction started from any other thread is handed over and back (the caller suspends): two
/// thread wake-ups. A task can instead run on these threads itself, as a task executor
/// (``inPlace(_:)``): its transactions then run in place, on the thread the task is on, and a
/// request's read and its audit entry's commit cost no hand-off at all. That thread blocks while
/// the transaction runs, which is what these threads are for.
package final class EngineThreads: TaskExecutor, Sendable {
    /// The SQLite engine's threads: one writer at a time, and reads side by side.
    package static let sqlite = EngineThreads(numberOfThreads: 4)

    private let pool: NIOThreadPool
    /// Set on each of the pool's threads by the first job it runs (``isCurrent``).
    private let member = ThreadSpecificVariable<Member>()

    private final class Member: Sendable {}

    /// Starts `numberOfThreads` threads, kept for the life of the process.
    init(numberOfThreads: Int) {
        pool = NIOThreadPool(numberOfThreads: numberOfThreads)
        pool.start()
    }

    /// Counts the hand-offs to engine threads (``run(_:)`` from another thread, ``submit(_:)``)
    /// that the task binding it makes, its child tasks included: how tests and benchmarks see
    /// whether a task's transactions ran in place.
    @TaskLocal package static var handOffs: HandOffCount?

    /// A count of hand-offs (``handOffs``).
    package final class HandOffCount: Sendable {
        private let count = Atomic<Int>(0)
        /// No hand-off counted yet.
        package init() {}
        /// The hand-offs counted so far.
        package var value: Int { count.load(ordering: .relaxed) }
        fileprivate func increment() { count.add(1, ordering: .relaxed) }
    }

    /// Whether the calling thread is one of these.
    package var isCurrent: Bool { member.currentValue != nil }

    /// Runs `body` on one of these threads: in place when the caller is on one already, else
    /// handed over while the caller suspends until it returns or throws.
    package func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        if isCurrent { return try body() }
        Self.handOffs?.increment()
        return try await pool.runIfActive {
            self.markCurrent()
            return try body()
        }
    }

    /// Starts `work` on one of these threads and returns at once.
    package func submit(_ work: @escaping @Sendable () -> Void) {
        Self.handOffs?.increment()
        pool.submit { state in
            guard case .active = state else { return }
            self.markCurrent()
            work()
        }
    }

    /// Runs `body` as a task that prefers these threads, so that the transactions it awaits run
    /// in place (``run(_:)``); the caller's task comes back to its own executor afterwards.
    package func inPlace<T>(_ body: () async throws -> T) async rethrows -> T {
        try await withTaskExecutorPreference(self, operation: body)
    }

    /// Runs a job of a task that prefers these threads (``inPlace(_:)``) on one of them.
    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        pool.submit { state in
            // The pool lives as long as the process; were it stopped, the job would still run
            // (where the pool runs it), never be dropped, but its thread would not count as ours.
            if case .active = state { self.markCurrent() }
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }

    private func markCurrent() {
        if member.currentValue == nil { member.currentValue = Member() }
    }
}
