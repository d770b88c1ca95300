import Foundation
import Testing

@testable import SharedWebCredentials
@testable import TestSupport

/// A change seals each instance chain's head in the checkpoint; a prune that drops every entry of
/// a chain makes its head the anchor (the last entry dropped) and seals it there. The anchor keeps the entry's tag, so a rekey
/// must keep the mark's tag as it is there: given a new one, `audit verify` would call an intact
/// chain set back.
@Suite("Audit log: a checkpoint's mark on a chain's anchor")
struct AuditCheckpointAnchorTests {
    private static let release = InstanceChainVaults.release

    @Test(
        "a mark the prune made the anchor holds through a rekey, and the chain goes on",
        arguments: StorageEngine.allCases)
    func markOnAnchorThroughRekey(engine: StorageEngine) async throws {
        let directory = try TemporaryDirectory()
        let vaults = try InstanceChainVaults(engine, in: directory)
        let (owner, instance) = (vaults.owner, vaults.instance)
        for _ in 0..<3 { try await instance.audit.append(Self.release) }
        // The prune drops every entry: #3, the head, becomes the anchor, and the prune (a change)
        // seals the head in the checkpoint: the mark is on the anchor.
        _ = try owner.audit.prune(before: Date().addingTimeInterval(60))
        #expect(try owner.audit.entries(operation: .request).isEmpty)
        let pruned = try owner.audit.verify()
        #expect(pruned.isIntact, "\(String(describing: pruned.problem))")

        _ = try owner.rotateKey()
        let rotated = try owner.audit.verify()
        #expect(rotated.isIntact, "\(String(describing: rotated.problem))")
        try await instance.audit.append(Self.release)
        #expect(try owner.audit.entries(operation: .request).map(\.sequence) == [4])
        #expect(try owner.audit.verify().isIntact)
    }
}
