import Foundation
import Testing

@testable import SharedWebCredentials
@testable import TestSupport

/// Issue 52: a running instance appends its entries to an audit chain of its own, writing no row
/// that another instance or a change writes (`vault_meta` above all), and `audit verify` still
/// finds entries altered, cut off, or a chain's head set back once a change sealed it.
@Suite("Audit log: instance chains")
struct AuditInstanceChainTests {
    private typealias Writer = GrantRollbackTests.Writer

    private static let release = InstanceChainVaults.release

    /// A vault on `engine`, a second handle on it that appends to a chain of its own (as the
    /// service does), and a writer behind swcred's back.
    private func makeVaults(
        _ engine: StorageEngine, in directory: TemporaryDirectory
    ) throws -> (
        owner: Vault, instance: Vault, writer: Writer
    ) {
        let vaults = try InstanceChainVaults(engine, in: directory)
        return (vaults.owner, vaults.instance, Writer(store: vaults.store))
    }

    /// `vault_meta`'s sealed columns and the vault chain's entries, as the writer sees them.
    private func vaultChainState(_ writer: Writer) throws -> [String] {
        try writer.copy("vault_meta", where: "id = 1") + writer.copy("audit_log", where: "1 = 1")
    }

    @Test(
        "an instance's entries write neither vault_meta nor the vault's chain, and verify",
        arguments: StorageEngine.allCases)
    func entriesWriteNoSharedRow(engine: StorageEngine) async throws {
        let directory = try TemporaryDirectory()
        let (owner, instance, writer) = try makeVaults(engine, in: directory)
        let before = try vaultChainState(writer)
        for _ in 0..<3 { try await instance.audit.append(Self.release) }
        #expect(try vaultChainState(writer) == before)
        #expect(try writer.copy("audit_chains", where: "1 = 1").count == 1)
        let entries = try owner.audit.entries(operation: .request)
        #expect(entries.map(\.sequence) == [1, 2, 3])
        #expect(Set(entries.map(\.chain)).count == 1 && entries[0].chain?.count == 32)
        #expect(entries[0].event.released == Self.release.released)
        let verification = try owner.audit.verify()
        #expect(verification.isIntact, "\(String(describing: verification.problem))")
        // A one-shot handle (the default) goes on writing the vault's chain.
        try await owner.audit.append(Self.release)
        #expect(try owner.audit.entries(operation: .request).filter { $0.chain == nil }.count == 1)
    }

    @Test(
        "a head set back with its tail cut is found once a change sealed it, and no later change or rekey blesses it",
        arguments: StorageEngine.allCases)
    func setBackHeadFound(engine: StorageEngine) async throws {
        let directory = try TemporaryDirectory()
        let (owner, instance, writer) = try makeVaults(engine, in: directory)
        for _ in 0..<3 { try await instance.audit.append(Self.release) }
        let headAtThree = try writer.copy("audit_chains", where: "1 = 1")
        for _ in 0..<2 { try await instance.audit.append(Self.release) }
        try owner.neverSave.mark("sealed.example")  // a change: seals the checkpoint at entry #5
        #expect(try owner.audit.verify().isIntact)

        try writer.execute("DELETE FROM audit_chain_log WHERE seq > 3")
        try writer.execute("DELETE FROM audit_chains")
        for statement in headAtThree { try writer.execute(statement) }
        let found = try owner.audit.verify()
        #expect(found.problem?.contains("entry #5 was sealed in it") == true, "\(String(describing: found.problem))")
        #expect(found.chain != nil)
        #expect(found.firstBadEntry == 4, "the first entry cut off")
        // The next change goes through (the owner is never stopped) and does not bless it.
        try owner.neverSave.mark("later.example")
        #expect(try owner.audit.verify().problem?.contains("entry #5 was sealed in it") == true)
        // The process that wrote entry #5 refuses to go on from #3.
        let refused = await failure { try await instance.audit.append(Self.release) }
        #expect(refused?.code == .integrityFailure && refused?.message.contains("went back from entry 5 to 3") == true)
        // Nor does a change of key: the mark moves to the new key only for an entry that held it.
        _ = try owner.rotateKey()
        #expect(try owner.audit.verify().problem?.contains("entry #5 was sealed in it") == true)
    }

    @Test("entries cut off an instance chain's end, or altered, are named", arguments: StorageEngine.allCases)
    func cutAndAlteredEntriesFound(engine: StorageEngine) async throws {
        let directory = try TemporaryDirectory()
        let (owner, instance, writer) = try makeVaults(engine, in: directory)
        for _ in 0..<4 { try await instance.audit.append(Self.release) }
        try writer.execute("UPDATE audit_chain_log SET actor = 'owner' WHERE seq = 2")
        let altered = try owner.audit.verify()
        #expect(altered.firstBadEntry == 2 && altered.problem?.contains("instance chain") == true)
        try writer.execute("DELETE FROM audit_chain_log WHERE seq >= 2")
        let cut = try owner.audit.verify()
        #expect(
            cut.problem?.contains("entries #2 to #4 were cut off the end") == true, "\(String(describing: cut.problem))"
        )
    }

    @Test("a chain's sealed head one byte short or one byte long, written past the schema's check, is named missing")
    func headOfWrongLength() async throws {
        // The schema checks the length; SQLite lets a writer switch its checks off without
        // changing the schema (PRAGMA ignore_check_constraints), so swcred checks it again.
        let directory = try TemporaryDirectory()
        let (owner, instance, writer) = try makeVaults(.sqlite, in: directory)
        for _ in 0..<2 { try await instance.audit.append(Self.release) }
        let sealed = try writer.copy("audit_chains", where: "1 = 1")
        for changed in ["substr(head, 1, 71)", "CAST(head || x'00' AS BLOB)"] {
            try writer.execute("PRAGMA ignore_check_constraints = ON; UPDATE audit_chains SET head = \(changed)")
            let verification = try owner.audit.verify()
            #expect(!verification.isIntact, "\(changed)")
            #expect(
                verification.problem?.contains("The sealed head of the audit log's instance chain") == true
                    && verification.problem?.contains("is missing") == true,
                "\(changed): \(String(describing: verification.problem))")
            try writer.execute("DELETE FROM audit_chains")
            for insert in sealed { try writer.execute(insert) }
            #expect(try owner.audit.verify().isIntact, "the sealed head put back")
        }
    }

    @Test(
        "entries the owner and an instance append in turn are listed in the order they were written",
        arguments: StorageEngine.allCases)
    func listingOfTwoWriters(engine: StorageEngine) async throws {
        let directory = try TemporaryDirectory()
        let (owner, instance, _) = try makeVaults(engine, in: directory)
        for _ in 0..<2 {
            try await owner.audit.append(Self.release)
            try await Task.sleep(for: .milliseconds(20))
            try await instance.audit.append(Self.release)
            try await Task.sleep(for: .milliseconds(20))
        }
        let entries = try owner.audit.entries(operation: .request)
        #expect(entries.map { $0.chain == nil ? "vault" : "instance" } == ["vault", "instance", "vault", "instance"])
        #expect(entries.map(\.date) == entries.map(\.date).sorted())
        let verification = try owner.audit.verify()
        #expect(verification.isIntact, "\(String(describing: verification.problem))")
        #expect(
            verification.entriesChecked == (try owner.audit.entries().count), "every entry of both chains, counted once"
        )
    }

    @Test("the listing merges the chains by time and keeps each chain's own order, even where its clock went back")
    func listingMergesByTime() throws {
        let at = { (seconds: Double) in Date(timeIntervalSince1970: 1_800_000_000 + seconds) }
        let entry = { (chain: String?, sequence: Int64, seconds: Double) in
            AuditEntry(chain: chain, sequence: sequence, date: at(seconds), event: Self.release)
        }
        let vault = [entry(nil, 1, 10), entry(nil, 2, 5), entry(nil, 3, 30)]
        let instance = [entry("a", 1, 1), entry("a", 2, 20)]
        let merged = AuditLog.merged([vault, instance]).map { "\($0.chain ?? "-")#\($0.sequence)" }
        #expect(merged == ["a#1", "-#1", "-#2", "a#2", "-#3"])
        #expect(AuditLog.merged([vault]) == vault)
    }

    @Test("a PostgreSQL trigger that keeps a chain's head from moving stops its service's releases, and commits none")
    func headKeptByTrigger() async throws {
        let directory = try TemporaryDirectory()
        let (owner, instance, writer) = try makeVaults(.postgresql, in: directory)
        for _ in 0..<2 { try await instance.audit.append(Self.release) }
        try writer.execute(
            "CREATE FUNCTION keep() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$; CREATE TRIGGER keep_head BEFORE UPDATE ON audit_chains FOR EACH ROW EXECUTE FUNCTION keep()"
        )
        let refused = await failure { try await instance.audit.append(Self.release) }
        #expect(refused?.code == .integrityFailure, "\(String(describing: refused))")
        #expect(refused?.message.contains("did not move with its entries") == true)
        #expect(try owner.audit.entries(operation: .request).map(\.sequence) == [1, 2])
        #expect(try owner.audit.verify().isIntact)
    }

    @Test("a chain's row deleted with its entries is found by its checkpoint", arguments: StorageEngine.allCases)
    func deletedChainFound(engine: StorageEngine) async throws {
        let directory = try TemporaryDirectory()
        let (owner, instance, writer) = try makeVaults(engine, in: directory)
        try await instance.audit.append(Self.release)
        try owner.neverSave.mark("sealed.example")
        try writer.execute("DELETE FROM audit_chain_log")
        try writer.execute("DELETE FROM audit_chains")
        let found = try owner.audit.verify()
        #expect(
            found.problem?.contains("sealed at entry #1, is missing") == true, "\(String(describing: found.problem))")
        let refused = await failure { try await instance.audit.append(Self.release) }
        #expect(refused?.code == .integrityFailure && refused?.message.contains("is gone") == true)
    }

    @Test(
        "rekey re-tags every chain and the checkpoint; prune moves each chain's anchor",
        arguments: StorageEngine.allCases)
    func rekeyAndPrune(engine: StorageEngine) async throws {
        let directory = try TemporaryDirectory()
        let (owner, instance, _) = try makeVaults(engine, in: directory)
        for _ in 0..<3 { try await instance.audit.append(Self.release) }
        try owner.neverSave.mark("sealed.example")
        _ = try owner.rotateKey()
        let rotated = try owner.audit.verify()
        #expect(rotated.isIntact, "\(String(describing: rotated.problem))")
        #expect(try owner.audit.entries(operation: .request).count == 3)
        // The instance follows the rotation (the default) and goes on in its chain.
        try await instance.audit.append(Self.release)
        #expect(try owner.audit.entries(operation: .request).map(\.sequence) == [1, 2, 3, 4])

        let dropped = try owner.audit.prune(before: Date().addingTimeInterval(60))
        #expect(dropped >= 4)
        #expect(try owner.audit.entries(operation: .request).isEmpty)
        let pruned = try owner.audit.verify()
        #expect(pruned.isIntact, "\(String(describing: pruned.problem))")
        try await instance.audit.append(Self.release)
        #expect(try owner.audit.entries(operation: .request).map(\.sequence) == [5])
        #expect(try owner.audit.verify().isIntact)
    }
}
