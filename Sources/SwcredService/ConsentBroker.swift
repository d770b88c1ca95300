import Foundation
import SwcredAPI
import Synchronization

/// The owner's consent for tokens made with `--consent ask`: a change or a release waits here
/// until the owner answers in `swcred consent`, or the consent timeout passes (a decline).
///
/// Requests are shown one at a time, oldest first. Like the rest of the owner's routes this is
/// served on the Unix socket to the service's own uid only: it asks for the owner's intent, it is
/// not a barrier against code already running as the owner (which could read the service's
/// memory anyway).
final class ConsentBroker: Sendable {
    /// One request waiting for the owner, as `GET /v1/consent/next` shows it.
    typealias Pending = Components.Schemas.ConsentRequest
    /// What a request would do: add, update, delete or release.
    typealias Operation = Components.Schemas.ConsentRequest.OperationPayload

    private struct State {
        var pending: [Pending] = []
        var answers: [String: Bool] = [:]
    }

    private let state = Mutex(State())
    /// How long a request waits for an answer.
    let timeout: Duration
    private let pollInterval: Duration = .milliseconds(20)

    init(timeout: Duration) {
        self.timeout = timeout
    }

    /// Puts a request to the owner; true only if they approve it before the timeout.
    func ask(app: String, operation: Operation, domain: String, account: String?) async -> Bool {
        let request = Pending(
            id: UUID().uuidString.lowercased(), app: app, operation: operation, domain: domain, account: account)
        state.withLock { $0.pending.append(request) }
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline && !Task.isCancelled {
            if let answer = state.withLock({ $0.answers.removeValue(forKey: request.id) }) { return answer }
            try? await Task.sleep(for: pollInterval)
        }
        return state.withLock { state in
            state.pending.removeAll { $0.id == request.id }
            return state.answers.removeValue(forKey: request.id) ?? false
        }
    }

    /// The oldest request still waiting, waiting up to `wait` for one to arrive.
    func next(wait: Duration) async -> Pending? {
        let deadline = ContinuousClock.now + wait
        repeat {
            if let first = state.withLock({ $0.pending.first }) { return first }
            try? await Task.sleep(for: pollInterval)
        } while ContinuousClock.now < deadline && !Task.isCancelled
        return nil
    }

    /// Records the owner's answer; false when no such request waits (answered or timed out).
    func answer(id: String, approve: Bool) -> Bool {
        state.withLock { state in
            guard let index = state.pending.firstIndex(where: { $0.id == id }) else { return false }
            state.pending.remove(at: index)
            state.answers[id] = approve
            return true
        }
    }
}
