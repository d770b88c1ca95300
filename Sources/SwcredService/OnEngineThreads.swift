import ServiceLifecycle
import SharedWebCredentials

/// Runs a listener's connections on the storage engine's threads.
///
/// Hummingbird runs each connection as a child task of its server's task, so a task executor
/// preference set around the server reaches every connection. Their requests then run on the
/// engine's threads from the start: the gated operations' transactions and audit entries run in
/// place, and the event loop hands a request to one thread, which hands the answer back, as for a
/// bare Hummingbird route, with no trip through Swift's cooperative threads in between (5.6
/// context switches per request in `swcred serve`, 11.5 before; a bare route makes 3.4). No
/// database call ever runs on a cooperative thread.
struct OnEngineThreads<Wrapped: Service>: Service {
    let wrapped: Wrapped
    let threads: EngineThreads

    func run() async throws {
        try await threads.inPlace { try await wrapped.run() }
    }
}
