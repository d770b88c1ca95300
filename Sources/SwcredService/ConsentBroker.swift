import Foundation
import SwcredAPI
import Synchronization

/// The owner's consent for tokens made with `--consent ask`: a change or a release waits here
/// until the owner answers in `swcred consent`, or the consent timeout passes (a decline).
///
/// Requests are shown one at a time, oldest first, only to an owner session (``OwnerAuthority``):
/// an app, even one of the owner's uid, can neither see the queue nor answer its own request.
final class ConsentBroker: Sendable {
    /// One request waiting for the owner, as `GET /v1/consent/next` shows it.
    typealias Pending = Components.Schemas.ConsentRequest
    /// What a request would do: add, update, delete or release.
    typealias Operation = Components.Schemas.ConsentRequest.OperationPayload

    /// How a request ended.
    enum Decision: Sendable, Equatable {
        /// The owner approved it; `answeredBy` says from where.
        case approved(answeredBy: String)
        /// The owner declined it.
        case declined(answeredBy: String)
        /// Nobody answered within the timeout: a decline.
        case timedOut
    }

    /// What the owner said besides yes or no: a browser's name, and whether to remember.
    struct Details: Sendable, Equatable {
        var name: String?
        var remember = false
    }

    private struct State {
        var pending: [Pending] = []
        var answers: [String: (Decision, Details)] = [:]
    }

    private let state = Mutex(State())
    /// How long a request waits for an answer.
    let timeout: Duration
    private let pollInterval: Duration = .milliseconds(20)

    init(timeout: Duration) {
        self.timeout = timeout
    }

    /// Puts a request to the owner and waits for the answer, or the timeout.
    func ask(app: String, operation: Operation, domain: String, account: String?) async -> Decision {
        await askWithDetails(
            Pending(
                id: UUID().uuidString.lowercased(), app: app, operation: operation, domain: domain, account: account)
        ).0
    }

    /// Puts `request` (its `id` ignored) to the owner and waits for the answer and what came
    /// with it (a browser's name, whether to remember), or the timeout.
    func askWithDetails(_ request: Pending) async -> (Decision, Details) {
        var request = request
        request.id = UUID().uuidString.lowercased()
        let id = request.id
        state.withLock { $0.pending.append(request) }
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline && !Task.isCancelled {
            if let answer = state.withLock({ $0.answers.removeValue(forKey: id) }) { return answer }
            try? await Task.sleep(for: pollInterval)
        }
        return state.withLock { state in
            state.pending.removeAll { $0.id == id }
            return state.answers.removeValue(forKey: id) ?? (.timedOut, Details())
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

    /// Records the owner's answer, given from `answeredBy`; false when no such request waits
    /// (answered or timed out).
    func answer(id: String, approve: Bool, answeredBy: String, details: Details = Details()) -> Bool {
        state.withLock { state in
            guard let index = state.pending.firstIndex(where: { $0.id == id }) else { return false }
            state.pending.remove(at: index)
            state.answers[id] = (
                approve ? .approved(answeredBy: answeredBy) : .declined(answeredBy: answeredBy), details
            )
            return true
        }
    }

    /// The kind of the request `id` still waiting, if any (to check an answer's details against it).
    func waitingOperation(id: String) -> Operation? {
        state.withLock { $0.pending.first { $0.id == id }?.operation }
    }
}
