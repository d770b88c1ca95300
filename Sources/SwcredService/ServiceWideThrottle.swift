import Foundation
import SharedWebCredentials

/// Slows down guesses of the owner's secret (a wrong unlock passphrase or key, a wrong owner
/// proof) across the whole service, whatever connection they come on, and across every other
/// service of the vault: the vault's ``GuessThrottle``, whose count a restart does not reset.
///
/// Each guess reserves its turn in the vault before it is checked, counted as a failure until it
/// proves right, so the n-th of a burst sent side by side waits what the n-th in a row would.
final class ServiceWideThrottle: Sendable {
    private let throttle: GuessThrottle

    init(_ throttle: GuessThrottle) {
        self.throttle = throttle
    }

    /// Reserves this guess's turn and waits for it. Throws when the turn cannot be recorded, or
    /// when the request is cancelled while it waits: no guess is checked unrecorded or early.
    func waitForTurn() async throws {
        let turn: Date
        do {
            turn = try await BlockingWork.run { [throttle] in try throttle.reserveTurn() }
        } catch let error as SharedWebCredentialsError {
            throw APIError(error)
        }
        let wait = turn.timeIntervalSinceNow
        if wait > 0 { try await Task.sleep(for: .milliseconds(Int64((wait * 1000).rounded(.up)))) }
    }

    /// Records that this guess proved wrong: the next waits its delay from now. A failure that
    /// cannot be recorded leaves the turn reserved before the guess, which still counted it.
    func failed() async {
        _ = try? await BlockingWork.run { [throttle] in try throttle.recordFailure() }
    }

    /// Records a right guess: the next one is checked at once. A count that cannot be reset
    /// stays, which only slows the owner's next guess.
    func succeeded() async {
        _ = try? await BlockingWork.run { [throttle] in try throttle.reset() }
    }
}
