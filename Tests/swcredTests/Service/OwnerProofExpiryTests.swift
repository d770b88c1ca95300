import Foundation
import SharedWebCredentials
import Synchronization
import TestSupport
import Testing

@testable import SwcredService

/// The owner's proof and its expiry, on a clock the test moves: a challenge answered one second
/// before its 60 seconds end opens a session, one answered at or after the end does not; a session
/// works one second before its 12 hours end and not at the end.
@Suite("Owner proof: a challenge and a session expire to the second")
struct OwnerProofExpiryTests {
    let directory: TemporaryDirectory
    let vault: Vault
    let holder: VaultHolder
    let clock = MovedClock()

    /// A clock that stands still at the moment it was made, plus what the test sets.
    final class MovedClock: Sendable {
        let start = ContinuousClock.now
        let elapsed = Mutex<Duration>(.zero)
        var now: ContinuousClock.Instant { start + elapsed.withLock { $0 } }
    }

    init() throws {
        directory = try TemporaryDirectory()
        vault = try Vault.create(at: directory.path("vault.sqlite"), protection: .rawKey(SecureBytes.random(count: 32)))
        holder = VaultHolder(unlocked: vault, configuration: VaultConfiguration())
    }

    /// An authority on the test's clock.
    func authority() -> OwnerAuthority {
        OwnerAuthority(
            holder: holder,
            throttle: ServiceWideThrottle(GuessThrottle(store: holder.store, configuration: holder.configuration)),
            now: { [clock] in clock.now })
    }

    func at(_ seconds: Int64) { clock.elapsed.withLock { $0 = .seconds(seconds) } }

    /// A challenge made at `madeAt` and answered with the owner proof at `answeredAt`.
    func answer(_ owner: OwnerAuthority, madeAt: Int64, answeredAt: Int64) async throws -> String {
        at(madeAt)
        let challenge = try owner.challenge(for: 1)
        at(answeredAt)
        return try await owner.openSession(challenge: challenge, proof: vault.ownerProof(answering: challenge))
    }

    @Test("a challenge answered at 59 s opens a session; at 60 s and 61 s it is refused as expired")
    func challengeExpiry() async throws {
        let owner = authority()
        #expect(try await answer(owner, madeAt: 0, answeredAt: 59).hasPrefix(OwnerAuthority.sessionPrefix))
        for late: Int64 in [60, 61] {
            await #expect(throws: APIError.self, "answered at \(late) s") {
                do {
                    _ = try await answer(owner, madeAt: 0, answeredAt: late)
                } catch let error as APIError {
                    #expect(error.code == "owner-proof-failed" && error.message.contains("expired"), "\(error)")
                    throw error
                }
            }
        }
    }

    @Test("a session works until one second before its 12 hours end, and not at the end nor after")
    func sessionExpiry() async throws {
        let owner = authority()
        let session = try await answer(owner, madeAt: 0, answeredAt: 0)
        let lifetime = OwnerAuthority.sessionLifetime.components.seconds
        #expect(lifetime == 12 * 3600)
        at(lifetime - 1)
        try owner.requireSession(authorization: "Bearer " + session)
        for late in [lifetime, lifetime + 1] {
            at(late)
            #expect(throws: APIError.self, "used at \(late) s") {
                do {
                    try owner.requireSession(authorization: "Bearer " + session)
                } catch let error as APIError {
                    #expect(error.code == "invalid-owner-session", "\(error)")
                    throw error
                }
            }
        }
    }
}
