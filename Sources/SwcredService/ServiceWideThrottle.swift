import Synchronization

/// Slows down guesses of the owner's secret (a wrong unlock passphrase, a wrong owner proof)
/// across the whole service, whatever connection they come on: after the n-th failure in a row,
/// every later attempt waits its turn, `baseDelay × 2^(n-1)` after the one before, up to
/// `maximumDelay`. Attempts sent side by side are spaced the same way, so opening more
/// connections does not guess faster. A success resets it.
final class ServiceWideThrottle: Sendable {
    private struct State {
        var failures = 0
        /// The earliest moment the next attempt may start.
        var notBefore = ContinuousClock.now
    }

    private let state = Mutex(State())
    private let baseDelay: Duration
    private let maximumDelay: Duration

    init(baseDelay: Duration = .milliseconds(250), maximumDelay: Duration = .seconds(30)) {
        self.baseDelay = baseDelay
        self.maximumDelay = maximumDelay
    }

    /// The failures in a row so far.
    var failures: Int { state.withLock { $0.failures } }

    /// Waits for this attempt's turn, and reserves the next turn after it.
    func waitForTurn() async {
        let start = state.withLock { state in
            let start = max(ContinuousClock.now, state.notBefore)
            state.notBefore = start + delay(after: state.failures)
            return start
        }
        if start > .now { try? await Task.sleep(until: start, clock: .continuous) }
    }

    /// Records a failed attempt: the next one waits longer.
    func failed() {
        state.withLock { state in
            state.failures += 1
            state.notBefore = max(state.notBefore, ContinuousClock.now + delay(after: state.failures))
        }
    }

    /// Records a success: the next attempt is served at once.
    func succeeded() {
        state.withLock { state in
            state.failures = 0
            state.notBefore = .now
        }
    }

    private func delay(after failures: Int) -> Duration {
        guard failures > 0 else { return .zero }
        return min(baseDelay * (1 << min(failures - 1, 16)), maximumDelay)
    }
}
