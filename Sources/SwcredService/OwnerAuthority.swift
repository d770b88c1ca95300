import Foundation
import SharedWebCredentials
import Synchronization

/// Who may act as the vault's owner on the consent routes: whoever answers a single-use random
/// challenge with the owner proof (``Vault/ownerProof(answering:)``), which needs the vault key,
/// and so the passphrase or the key file. A success gives an owner session, a random secret sent
/// as a bearer token, which ends when the vault locks, when the service stops, or after
/// ``sessionLifetime``. An app token, a peer's uid or the socket alone is never the owner.
final class OwnerAuthority: Sendable {
    /// How long a challenge may be answered.
    static let challengeLifetime: Duration = .seconds(60)
    /// How long a session lasts, unless the vault locks first.
    static let sessionLifetime: Duration = .seconds(12 * 3600)
    /// The text before an owner session's base64url secret, so it is never mistaken for an app token.
    static let sessionPrefix = "owner_"
    /// At most this many challenges wait for one peer process: its own oldest goes first, never
    /// another peer's, so a flood of challenges cannot evict the one the owner is answering.
    static let maximumChallengesPerPeer = 4
    /// At most this many challenges wait in all; past that a new one is refused (503), not made
    /// by evicting another.
    static let maximumChallenges = 64
    /// At most this many sessions live; the oldest goes first.
    private static let maximumSessions = 16

    private struct Session {
        let secret: [UInt8]
        let generation: UInt64
        let expires: ContinuousClock.Instant
    }

    private struct State {
        var challenges: [(bytes: [UInt8], expires: ContinuousClock.Instant, peer: Int32)] = []
        var sessions: [Session] = []
    }

    private let state = Mutex(State())
    private let holder: VaultHolder
    /// Wrong proofs slow down every later attempt, as wrong unlocks do (the same throttle).
    let throttle: ServiceWideThrottle
    /// What time it is for the challenges' and sessions' expiry: the continuous clock, or a
    /// test's.
    private let now: @Sendable () -> ContinuousClock.Instant

    init(
        holder: VaultHolder, throttle: ServiceWideThrottle,
        now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }
    ) {
        self.holder = holder
        self.throttle = throttle
        self.now = now
    }

    /// A fresh challenge for the process `peer` (its pid); the vault must be unlocked, since only
    /// its key can check the answer. A peer with ``maximumChallengesPerPeer`` waiting loses its
    /// own oldest; when ``maximumChallenges`` wait in all, the request is refused.
    func challenge(for peer: Int32) throws(APIError) -> [UInt8] {
        _ = try holder.vault()
        let bytes = OwnerProof.randomBytes()
        let made = state.withLock { state -> Bool in
            let now = self.now()
            state.challenges.removeAll { $0.expires <= now }
            if state.challenges.count(where: { $0.peer == peer }) >= Self.maximumChallengesPerPeer,
                let oldest = state.challenges.firstIndex(where: { $0.peer == peer })
            {
                state.challenges.remove(at: oldest)
            }
            guard state.challenges.count < Self.maximumChallenges else { return false }
            state.challenges.append((bytes, now + Self.challengeLifetime, peer))
            return true
        }
        guard made else {
            var refusal = APIError(
                status: .serviceUnavailable, code: "too-many-challenges",
                message:
                    "\(Self.maximumChallenges) owner challenges from other processes are waiting to be answered; try again when they expire (within \(Self.challengeLifetime.components.seconds) s)"
            )
            refusal.retryAfterSeconds = Int(Self.challengeLifetime.components.seconds)
            throw refusal
        }
        return bytes
    }

    /// Checks `proof` for `challenge` (used up either way) and returns a new session's bearer text.
    func openSession(challenge: [UInt8], proof: [UInt8]) async throws -> String {
        try await throttle.waitForTurn()
        guard let (vault, generation) = holder.unlockedGeneration() else { throw APIError.locked }
        let issued = state.withLock { state -> Bool in
            let now = self.now()
            guard let index = state.challenges.firstIndex(where: { OwnerProof.matches($0.bytes, challenge) })
            else { return false }
            let expires = state.challenges.remove(at: index).expires
            return expires > now
        }
        guard issued, vault.isOwnerProof(proof, answering: challenge) else {
            await throttle.failed()
            throw APIError(
                status: .forbidden, code: "owner-proof-failed",
                message: issued
                    ? "the owner proof is wrong: it must come from the vault this service holds (check --vault), unlocked with its passphrase or key file"
                    : "that challenge is unknown, used or expired: ask POST /v1/owner/challenge for a new one and answer it within 60 seconds"
            )
        }
        await throttle.succeeded()
        let secret = OwnerProof.randomBytes()
        state.withLock { state in
            let now = self.now()
            state.sessions.removeAll { $0.expires <= now || $0.generation != generation }
            if state.sessions.count >= Self.maximumSessions { state.sessions.removeFirst() }
            state.sessions.append(Session(secret: secret, generation: generation, expires: now + Self.sessionLifetime))
        }
        return Self.sessionPrefix + OwnerProof.text(secret)
    }

    /// Checks the request's `Authorization: Bearer owner_…` header against the live sessions, in
    /// constant time for each; a session of an earlier unlock is dead.
    func requireSession(authorization: String?) throws(APIError) {
        guard let authorization else { throw Self.missingSession }
        guard authorization.count > 7, authorization.prefix(7).lowercased() == "bearer ",
            authorization.dropFirst(7).hasPrefix(Self.sessionPrefix),
            let secret = OwnerProof.bytes(fromText: authorization.dropFirst(7 + Self.sessionPrefix.count)),
            secret.count == OwnerProof.length
        else {
            throw Self.invalidSession(
                "this is not an owner session (an app token never is): the consent routes need the owner's proof; run `swcred consent`"
            )
        }
        guard let (_, generation) = holder.unlockedGeneration() else { throw APIError.locked }
        let live = state.withLock { state in
            let now = self.now()
            var found = false
            for session in state.sessions where session.expires > now && session.generation == generation {
                if OwnerProof.matches(session.secret, secret) { found = true }
            }
            return found
        }
        guard live else {
            throw Self.invalidSession(
                "the owner session is unknown or ended (the vault was locked, or 12 hours passed): run `swcred consent` again"
            )
        }
    }

    /// The answer to a consent route asked without any `Authorization`: 401, as HTTP answers a
    /// request that brings no credential, wherever it comes from (the middleware answers it before
    /// it refuses TCP and other uids, which bring a credential in vain, with 403 owner-only).
    static let missingSession = invalidSession(
        "the consent routes are the vault owner's, on the service's Unix socket only: prove it with `swcred consent` on the service's machine, as its user, which answers the service's challenge with a key derived from the passphrase"
    )

    private static func invalidSession(_ message: String) -> APIError {
        APIError(status: .unauthorized, code: "invalid-owner-session", message: message)
    }
}
