import Foundation
import Synchronization

/// Blocking work (raw socket calls) on its own thread, so that it never holds one of the few
/// threads of Swift's cooperative pool while a test awaits something else.
public final class BackgroundWork<Result: Sendable>: Sendable {
    private let result = Mutex<Swift.Result<Result, any Error>?>(nil)

    /// Starts `body` on a new thread.
    public init(_ body: @escaping @Sendable () throws -> Result) {
        let thread = Thread { [self] in
            let outcome = Swift.Result { try body() }
            result.withLock { $0 = outcome }
        }
        thread.start()
    }

    /// Waits for the result without blocking the cooperative pool.
    public var value: Result {
        get async throws {
            while result.withLock({ $0 }) == nil { try await Task.sleep(for: .milliseconds(10)) }
            return try result.withLock { $0! }.get()
        }
    }
}
