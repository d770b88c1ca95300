import Synchronization

/// Slows down repeated failed authentications on one connection: the first failure is answered
/// at once, each later one after a delay that doubles, up to a few seconds, so that guessing
/// tokens or passphrases over a kept-alive connection is slow. A success resets the count; a
/// closed connection forgets it.
final class FailedAuthenticationThrottle: Sendable {
    private let failures = Mutex<[ObjectIdentifier: Int]>([:])
    private let baseDelay: Duration
    private let maximumDelay: Duration

    init(baseDelay: Duration = .milliseconds(100), maximumDelay: Duration = .seconds(5)) {
        self.baseDelay = baseDelay
        self.maximumDelay = maximumDelay
    }

    /// Records a failure on `connection` and waits for its penalty.
    func failed(on connection: ObjectIdentifier) async {
        let count = failures.withLock { table in
            table[connection, default: 0] += 1
            return table[connection]!
        }
        guard count > 1 else { return }
        let delay = min(baseDelay * (1 << min(count - 2, 16)), maximumDelay)
        try? await Task.sleep(for: delay)
    }

    /// Forgets the failures of `connection` (after a success, or when it closes).
    func reset(_ connection: ObjectIdentifier) {
        _ = failures.withLock { $0.removeValue(forKey: connection) }
    }
}
