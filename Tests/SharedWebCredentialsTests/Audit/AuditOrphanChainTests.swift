import Foundation
import Testing

@testable import SharedWebCredentials
@testable import TestSupport

/// An instance chain whose row (its sealed head and anchor) is deleted while no change has sealed
/// it in the checkpoint yet: its entries are left without a head, and `audit verify` names the
/// chain and its first entry instead of skipping them.
@Suite("Audit log: an instance chain's row deleted")
struct AuditOrphanChainTests {
    private static let release = InstanceChainVaults.release

    @Test("entries left without their chain's row are found, from the first", arguments: StorageEngine.allCases)
    func entriesWithoutHead(engine: StorageEngine) async throws {
        let directory = try TemporaryDirectory()
        let vaults = try InstanceChainVaults(engine, in: directory)
        let (owner, instance) = (vaults.owner, vaults.instance)
        for _ in 0..<2 { try await instance.audit.append(Self.release) }
        let chain = try #require(try owner.audit.entries(operation: .request).first?.chain)
        #expect(try owner.audit.verify().isIntact)

        try GrantRollbackTests.Writer(store: vaults.store).execute("DELETE FROM audit_chains")
        let found = try owner.audit.verify()
        #expect(found.problem?.hasSuffix("has entries but no sealed head: its row was deleted") == true, "\(found)")
        #expect(found.firstBadEntry == 1, "\(found)")
        #expect(found.chain == chain, "\(found)")
    }
}
