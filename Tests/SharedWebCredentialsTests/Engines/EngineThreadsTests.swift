import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedWebCredentials

/// Where the `async` transactions run (`EngineThreads`): never on the caller's cooperative thread;
/// handed over to the engine's threads from anywhere else, and in place, with no hand-off, for a
/// task already running on them (a request, and the audit entry it commits).
@Suite("The engine's threads: transactions handed over, or run in place")
struct EngineThreadsTests {
    static let app = try! ApplicationIdentifier("ABCDE12345.com.example.app")

    let directory: TemporaryDirectory
    let vault: Vault

    init() throws {
        directory = try TemporaryDirectory()
        vault = try VaultTestSupport.makeVault(in: directory)
    }

    /// Runs `body`, counting the hand-offs to engine threads it makes.
    private func handOffs(_ body: () async throws -> Void) async throws -> Int {
        let count = EngineThreads.HandOffCount()
        try await EngineThreads.$handOffs.withValue(count) { try await body() }
        return count.value
    }

    @Test("an async read or write runs on the engine's threads, never on the caller's thread")
    func handedOver() async throws {
        let threads = vault.storage.threads
        #expect(!threads.isCurrent)
        var onEngine: [Bool] = []
        let count = try await handOffs {
            onEngine.append(try await vault.storage.read { _ in threads.isCurrent })
            onEngine.append(try await vault.storage.write(durability: .synced) { _ in threads.isCurrent })
        }
        #expect(onEngine == [true, true])
        #expect(count == 2)
        #expect(!threads.isCurrent)
    }

    @Test("a task on the engine's threads reads, writes and commits its audit entry in place")
    func inPlace() async throws {
        let threads = vault.storage.threads
        let before = try vault.audit.verify().entriesChecked
        let count = try await handOffs {
            try await threads.inPlace {
                #expect(threads.isCurrent)
                _ = try await vault.storage.read { db in try db.row("SELECT 1", []) }
                _ = try await vault.storage.write(durability: .ordered) { db in try db.row("SELECT 1", []) }
                try await vault.audit.append(AuditEvent(actor: .owner, operation: .export))
            }
        }
        #expect(count == 0)
        // The same from the test's own task: each one handed over (the entry to a leader).
        let outside = try await handOffs {
            _ = try await vault.storage.read { db in try db.row("SELECT 1", []) }
            try await vault.audit.append(AuditEvent(actor: .owner, operation: .export))
        }
        #expect(outside == 2)
        #expect(try vault.audit.verify().entriesChecked == before + 2)
        #expect(vault.audit.commitStatistics.entries == 2)
    }

    @Test("a gated request, from any task, reads and commits its audit entry with no hand-off")
    func requestInPlace() async throws {
        let entries = ["webcredentials:shop.example"]
        try vault.apps.register(Self.app, entitlements: Entitlements(strings: entries), at: Date())
        try VaultTestSupport.approve(Self.app, for: entries, in: vault)
        try vault.credentials.upsert(server: "shop.example", account: "alice", password: SecureBytes(utf8: "pw"))
        let facade = SharedWebCredentials(app: Self.app, vault: vault, verifier: nil)
        var released: [Credential] = []
        let count = try await handOffs {
            released = try await facade.request(domain: DomainTarget("shop.example"))
        }
        #expect(released.map(\.account) == ["alice"])
        #expect(count == 0)
        let last = try #require(try vault.audit.entries(operation: .request).last)
        #expect(last.event.actor == .app(Self.app))
    }

    @Test("tasks appending side by side in place: every entry committed once, in one chain, none left waiting")
    func inPlaceSideBySide() async throws {
        let threads = vault.storage.threads
        let before = try vault.audit.verify().entriesChecked
        let (tasks, perTask) = (32, 40)
        // Unstructured tasks started on the engine's threads, and a deadline, rather than a task
        // group: an entry left waiting for a leader forever must fail this test, not hang the run.
        // Started there, not on the cooperative threads, which other suites' synchronous tests can
        // hold for a minute in a loaded run (CI's guarded one).
        let finished = Finished()
        for _ in 0..<tasks {
            Task(executorPreference: threads) { [vault] in
                for _ in 0..<perTask {
                    try await vault.audit.append(AuditEvent(actor: .owner, operation: .export))
                }
                finished.count.add(1, ordering: .relaxed)
            }
        }
        let deadline = ContinuousClock.now + .seconds(120)
        while finished.count.load(ordering: .relaxed) < tasks, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        try #require(
            finished.count.load(ordering: .relaxed) == tasks,
            "after 120 s, \(finished.count.load(ordering: .relaxed)) of \(tasks) tasks done, \(vault.audit.commitStatistics.entries) entries committed"
        )
        #expect(try vault.audit.verify().entriesChecked == before + tasks * perTask)
        let statistics = vault.audit.commitStatistics
        #expect(statistics.entries == tasks * perTask)
        #expect(statistics.commits <= tasks * perTask)
    }

    /// How many of the side-by-side tasks have finished.
    private final class Finished: Sendable {
        let count = Atomic<Int>(0)
    }
}
