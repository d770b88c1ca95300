import HummingbirdCore
import Logging
import NIOCore
import SharedWebCredentials

/// Runs each connection of a listener on the storage engine's threads.
///
/// Hummingbird runs each connection as a child task of its server's task and calls ``handle(value:logger:)``
/// there; the task executor preference set around that call makes the connection's requests run on
/// the engine's threads from their first byte: the gated operations' transactions and audit entries
/// run in place, and the event loop hands a request to one thread, which hands the answer back, as
/// for a bare Hummingbird route, with no trip through Swift's cooperative threads in between. No
/// database call ever runs on a cooperative thread.
///
/// The preference is set per connection, not around the whole `Application`: there it also reached
/// the service group Hummingbird runs inside, whose `merge` (swift-async-algorithms 1.1.4) holds a
/// lock while its task is moved to the preferred executor. A cancellation arriving then (the
/// listener failing to bind, a shutdown) left `swcred serve` deadlocked in its exit
/// (apple/swift-async-algorithms#430 and #341).
struct OnEngineThreadsChannel<Wrapped: ServerChildChannel>: ServerChildChannel {
    let wrapped: Wrapped
    let threads: EngineThreads

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Wrapped.Value> {
        wrapped.setup(channel: channel, logger: logger)
    }

    func handle(value: Wrapped.Value, logger: Logger) async {
        await threads.inPlace { await wrapped.handle(value: value, logger: logger) }
    }
}
