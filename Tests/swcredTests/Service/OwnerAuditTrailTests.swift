import Foundation
import Testing

@testable import SharedWebCredentials
@testable import SwcredService
@testable import TestSupport

/// Failed unlocks happen while the vault is locked, when no entry can be sealed: the service keeps
/// the last 100 in memory, with a count of any before them, and appends them at the next unlock,
/// whose own entry counts them all.
@Suite("swcred serve: failed unlocks kept for the next unlock")
struct OwnerAuditTrailTests {
    @Test("102 failed unlocks: the last 100 are appended, oldest first, and the unlock counts 102")
    func failedUnlocksKept() async throws {
        let directory = try TemporaryDirectory()
        let vault = try Vault.create(at: directory.path("vault.sqlite"), protection: .rawKey(.random(count: 32)))
        let trail = OwnerAuditTrail()
        for attempt in 1...102 { trail.failedUnlock(peer: "peer \(attempt)") }
        try await trail.unlocked(vault, peer: "the owner")

        let failures = try vault.audit.entries(operation: .unlockFailed)
        #expect(failures.count == 100)
        #expect(
            failures.first?.event.detail?.hasSuffix(" from peer 3") == true, "\(String(describing: failures.first))")
        #expect(failures.last?.event.detail?.hasSuffix(" from peer 102") == true)
        let unlock = try #require(try vault.audit.entries(operation: .unlock).last)
        #expect(unlock.event.detail == "from the owner; after 102 failed attempts")

        // Appended, they are forgotten: the next unlock counts none.
        try await trail.unlocked(vault, peer: "the owner")
        #expect(try vault.audit.entries(operation: .unlockFailed).count == 100)
        #expect(try vault.audit.entries(operation: .unlock).last?.event.detail == "from the owner")
    }
}
