import Foundation
import Testing

@testable import SharedWebCredentials

/// Changes that another writer races: the confirmation closure below changes the credential
/// behind the change's back every time it is asked, the widest window a loaded machine can open
/// between a change's decision and its write. A change waits its turn, is named by what its own
/// write found, and goes back to its caller only for a kind of change not yet confirmed.
extension GatedOperationsTests {
    /// A confirmation that records what it was asked and then, as another writer would, adds the
    /// credential if it is missing (with `competing`) or deletes it if it is there.
    private final class Competitor: @unchecked Sendable {
        private(set) var asked: [CredentialChange.Kind] = []
        let vault: Vault
        let competing: String
        init(vault: Vault, competing: String = "Competing-Pass9") {
            self.vault = vault
            self.competing = competing
        }

        func confirm(_ change: CredentialChange) throws -> Bool {
            asked.append(change.kind)
            let store = vault.credentials
            if try store.find(server: change.domain.host, account: change.account).isEmpty {
                try store.upsert(
                    server: change.domain.host, account: change.account, password: SecureBytes(utf8: competing))
            } else {
                try store.delete(server: change.domain.host, account: change.account)
            }
            return true
        }
    }

    /// The app's entries for changes (not the verdicts its first change fetched).
    private func appEntries() throws -> [AuditEntry] {
        try vault.audit.entries(actor: .app(Self.app)).filter { [.add, .update, .delete].contains($0.event.operation) }
    }

    @Test(
        "a save that another writer turns from an add into an update and back is confirmed for each kind, once, and made"
    )
    func saveRacedBothWays() async throws {
        try await withFacade { facade in
            let competitor = Competitor(vault: vault)
            let outcome = try await facade.add(
                domain: Self.shop, account: "alice", password: SecureBytes(utf8: "Mine-Pass1"),
                confirm: competitor.confirm)
            #expect(outcome == .added)
            #expect(competitor.asked == [.add, .update])
            let saved = try vault.credentials.find(server: "shop.example", account: "alice")
            #expect(saved.map { $0.password.exposedString() } == ["Mine-Pass1"])
            let entries = try appEntries()
            #expect(entries.map(\.event.operation) == [.add])
            #expect(entries.first?.event.outcome == .done && entries.first?.event.detail == nil)
        }
    }

    @Test("a delete whose credential another writer replaced is made without asking again")
    func deleteOfReplacedCredential() async throws {
        try await withFacade { facade in
            try vault.credentials.upsert(
                server: "shop.example", account: "bob", password: SecureBytes(utf8: "Old-Pass1"))
            var asked: [CredentialChange.Kind] = []
            let outcome = try await facade.delete(domain: Self.shop, account: "bob") { change in
                asked.append(change.kind)
                try vault.credentials.upsert(
                    server: "shop.example", account: "bob", password: SecureBytes(utf8: "Replaced-Pass2"))
                return true
            }
            #expect(outcome == .deleted)
            #expect(asked == [.delete])
            #expect(try vault.credentials.find(server: "shop.example", account: "bob").isEmpty)
        }
    }

    @Test("a delete whose credential another writer deleted first is nothing to delete, recorded as such")
    func deleteRacedByDelete() async throws {
        try await withFacade { facade in
            try vault.credentials.upsert(
                server: "shop.example", account: "carol", password: SecureBytes(utf8: "Old-Pass1"))
            let competitor = Competitor(vault: vault)
            let outcome = try await facade.delete(domain: Self.shop, account: "carol", confirm: competitor.confirm)
            #expect(outcome == .nothingToDelete)
            #expect(competitor.asked == [.delete])
            let entries = try appEntries()
            #expect(entries.map(\.event.operation) == [.delete])
            #expect(entries.first?.event.detail == SharedWebCredentials.nothingToDeleteDetail)
        }
    }

    @Test("an update that another writer makes first, with the same password, is unchanged")
    func updateRacedBySameUpdate() async throws {
        try await withFacade { facade in
            try vault.credentials.upsert(
                server: "shop.example", account: "dan", password: SecureBytes(utf8: "Old-Pass1"))
            let outcome = try await facade.add(
                domain: Self.shop, account: "dan", password: SecureBytes(utf8: "New-Pass2")
            ) { _ in
                try vault.credentials.upsert(
                    server: "shop.example", account: "dan", password: SecureBytes(utf8: "New-Pass2"))
                return true
            }
            #expect(outcome == .unchanged)
            #expect(try appEntries().first?.event.detail == SharedWebCredentials.unchangedDetail)
        }
    }

    @Test("a change another writer turns into a kind the caller then declines is refused, and nothing is written")
    func declinedSecondKind() async throws {
        try await withFacade { facade in
            var asked: [CredentialChange.Kind] = []
            let code = await VaultTestSupport.errorCode {
                try await facade.add(domain: Self.shop, account: "erin", password: SecureBytes(utf8: "Mine-Pass1")) {
                    change in
                    asked.append(change.kind)
                    guard change.kind == .add else { return false }
                    try vault.credentials.upsert(
                        server: "shop.example", account: "erin", password: SecureBytes(utf8: "Theirs-Pass2"))
                    return true
                }
            }
            #expect(code == .declined)
            #expect(asked == [.add, .update])
            let saved = try vault.credentials.find(server: "shop.example", account: "erin")
            #expect(saved.map { $0.password.exposedString() } == ["Theirs-Pass2"])
            let entries = try appEntries()
            #expect(entries.map(\.event.operation) == [.update])
            #expect(entries.first?.event.outcome == .refused(.declined))
        }
    }
}
