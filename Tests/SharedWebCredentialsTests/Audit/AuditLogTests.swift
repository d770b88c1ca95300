import Foundation
import GRDB
import TestSupport
import Testing

@testable import SharedWebCredentials

/// Issue 13: every gated and owner operation leaves exactly one audit entry with the right
/// outcome; the entries are sealed and chained so that tampering with the raw file is detected.
@Suite("Audit log: one entry per operation, sealed and chained")
struct AuditLogTests {
    static let app = try! ApplicationIdentifier("ABCDE12345.com.example.app")
    static let shop = try! DomainTarget("shop.example")

    let directory: TemporaryDirectory
    let vault: Vault
    let facade: SharedWebCredentials

    init() throws {
        directory = try TemporaryDirectory()
        vault = try VaultTestSupport.makeVault(in: directory)
        try vault.apps.register(
            Self.app,
            entitlements: Entitlements(strings: ["webcredentials:shop.example", "webcredentials:unverified.example"]),
            at: Date())
        try VaultTestSupport.approve(Self.app, for: ["webcredentials:shop.example"], in: vault)
        facade = SharedWebCredentials(app: Self.app, vault: vault, verifier: nil)
    }

    private func entries() throws -> [AuditEntry] { try vault.audit.entries() }

    /// Runs `body` and returns the one entry it appended (failing the test unless exactly one).
    private func onlyEntry(_ body: () async throws -> Void) async throws -> AuditEvent? {
        let before = try entries().count
        try await body()
        let after = try entries()
        #expect(after.count == before + 1, "exactly one entry: \(after.dropFirst(before).map(\.event))")
        return after.last?.event
    }

    private func app(
        _ operation: AuditOperation, domain: String? = "shop.example", account: String? = "alice",
        released: [AuditCredential] = [], _ outcome: AuditOutcome = .done, detail: String? = nil
    ) -> AuditEvent {
        AuditEvent(
            actor: .app(Self.app), operation: operation, domain: domain, account: account, released: released,
            outcome: outcome, detail: detail)
    }

    private func password(_ text: String) -> SecureBytes { SecureBytes(utf8: text) }

    @Test("every gated operation appends exactly one entry: released, done or refused with its code")
    func gatedOperations() async throws {
        let yes: (CredentialChange) -> Bool = { _ in true }
        let no: (CredentialChange) -> Bool = { _ in false }
        #expect(
            try await onlyEntry { _ = try? await facade.request(domain: Self.shop, account: "alice") }
                == app(.request, .refused(.itemNotFound)))
        #expect(
            try await onlyEntry {
                try await facade.add(domain: Self.shop, account: "alice", password: password("a1"), confirm: yes)
            }
                == app(.add))
        #expect(
            try await onlyEntry {
                try await facade.add(domain: Self.shop, account: "alice", password: password("a1"), confirm: yes)
            }
                == app(.update, detail: "unchanged: the same password"),
            "the same password again: nothing changed, still recorded, and said")
        #expect(
            try await onlyEntry {
                _ = try? await facade.add(domain: Self.shop, account: "alice", password: password("a2"), confirm: no)
            }
                == app(.update, .refused(.declined)))
        #expect(
            try await onlyEntry {
                try await facade.add(domain: Self.shop, account: "alice", password: password("a2"), confirm: yes)
            }
                == app(.update))
        #expect(
            try await onlyEntry { _ = try await facade.request(domain: Self.shop) }
                == app(.request, account: nil, released: [AuditCredential(domain: "shop.example", account: "alice")]))
        #expect(
            try await onlyEntry { _ = try await facade.request() }
                == app(
                    .request, domain: nil, account: nil,
                    released: [AuditCredential(domain: "shop.example", account: "alice")]))
        #expect(
            try await onlyEntry { _ = try? await facade.request(domain: DomainTarget("unverified.example")) }
                == app(.request, domain: "unverified.example", account: nil, .refused(.networkFailure)),
            "offline and never verified")
        #expect(
            try await onlyEntry { _ = try? await facade.request(domain: DomainTarget("elsewhere.example")) }
                == app(.request, domain: "elsewhere.example", account: nil, .refused(.missingEntitlement)))
        #expect(
            try await onlyEntry { _ = try await facade.generatePassword(for: Self.shop) }
                == app(.generate, account: nil))
        #expect(
            try await onlyEntry { try await facade.delete(domain: Self.shop, account: "alice", confirm: yes) }
                == app(.delete))
        #expect(
            try await onlyEntry { try await facade.delete(domain: Self.shop, account: "alice", confirm: yes) }
                == app(.delete, detail: "nothing to delete"), "nothing to delete: done, recorded, and said")
        #expect(
            try await onlyEntry {
                _ = try? await facade.add(domain: Self.shop, account: "", password: password("x"), confirm: yes)
            }
                == app(.add, account: "", .refused(.invalidInput)))
        #expect(try vault.audit.verify().isIntact)
    }

    @Test("every owner change appends exactly one entry as the owner")
    func ownerOperations() async throws {
        let other = try ApplicationIdentifier("ZZZZZ99999.com.example.other")
        let owner = { (operation: AuditOperation, domain: String?, account: String?, app: String?) in
            AuditEvent(actor: .owner, operation: operation, domain: domain, account: account, app: app)
        }
        #expect(
            try await onlyEntry {
                try vault.items.set(server: "Shop.Example", port: 8443, account: "bob", password: password("b"))
            }
                == owner(.itemSet, "shop.example:8443", "bob", nil))
        #expect(
            try await onlyEntry {
                try vault.items.rename(server: "shop.example", port: 8443, account: "bob", to: "robert")
            }
                == owner(.itemRename, "shop.example:8443", "robert", nil))
        #expect(
            try await onlyEntry { try vault.items.remove(server: "shop.example", port: 8443, account: "robert") }
                == owner(.itemRemove, "shop.example:8443", "robert", nil))
        #expect(
            try await onlyEntry {
                try vault.apps.register(
                    other, entitlements: Entitlements(strings: ["webcredentials:x.example"]), at: Date())
            } == owner(.appAdd, nil, nil, other.description))
        #expect(try await onlyEntry { try vault.apps.remove(other) } == owner(.appRemove, nil, nil, other.description))
        #expect(
            try await onlyEntry { try vault.changePassphrase(to: password("new passphrase")) }
                == owner(.passwd, nil, nil, nil))
        #expect(try await onlyEntry { try vault.rotateKey() } == owner(.rekey, nil, nil, nil))
        #expect(try vault.audit.verify().isIntact, "the chain was re-keyed with the vault key")
        let reopened = try Vault.open(at: vault.path, secret: .passphrase(password("new passphrase")))
        #expect(
            try reopened.audit.verify()
                == AuditVerification(entriesChecked: try entries().count, firstBadEntry: nil, problem: nil))
        #expect(try reopened.audit.entries(actor: .owner, operation: .rekey).count == 1)
    }

    @Test("a change whose audit entry cannot be written is not made, and a release is not returned")
    func failClosed() async throws {
        try vault.credentials.upsert(server: "shop.example", account: "alice", password: password("kept"))
        let attacker = Attacker(path: vault.path)
        // A sealed head that fails authentication: no entry can be appended.
        try attacker.execute("UPDATE vault_meta SET audit_head = zeroblob(72)")
        let released = await failure { _ = try await facade.request(domain: Self.shop) }
        #expect(released?.code == .integrityFailure, "\(String(describing: released))")
        let changed = await failure {
            try await facade.add(domain: Self.shop, account: "alice", password: password("changed")) { _ in true }
        }
        #expect(changed?.code == .integrityFailure)
        #expect(
            failure { try vault.items.set(server: "shop.example", account: "bob", password: password("b")) }?.code
                == .integrityFailure)
        #expect(try vault.credentials.all().map(\.passwordText) == ["kept"], "nothing was changed")
    }

    @Test("a read-only connection: the request fails with a storage failure and releases nothing")
    func readOnlyStorage() async throws {
        try vault.credentials.upsert(server: "shop.example", account: "alice", password: password("kept"))
        try vault.database.inDatabase { db in try db.execute(sql: "PRAGMA query_only = ON") }
        let released = await failure { _ = try await facade.request(domain: Self.shop) }
        #expect(released?.code == .storageFailure, "\(String(describing: released))")
        let deleted = await failure { try await facade.delete(domain: Self.shop, account: "alice") { _ in true } }
        #expect(deleted?.code == .storageFailure)
        try vault.database.inDatabase { db in try db.execute(sql: "PRAGMA query_only = OFF") }
        #expect(try vault.credentials.all().map(\.passwordText) == ["kept"])
        #expect(try vault.audit.verify().isIntact)
    }

    @Test("a full disk: the request fails with a storage failure and releases nothing")
    func fullDisk() async throws {
        try vault.credentials.upsert(server: "shop.example", account: "alice", password: password("kept"))
        try vault.database.inDatabase { db in
            // Cap the file where it is: the entries fill the free space left in its pages, then fail.
            let pages = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
            try db.execute(sql: "PRAGMA max_page_count = \(pages)")
        }
        var refused: SharedWebCredentialsError?
        for _ in 0..<200 where refused == nil {
            refused = await failure { _ = try await facade.request(domain: Self.shop) }
        }
        #expect(refused?.code == .storageFailure, "\(String(describing: refused))")
        #expect(try vault.audit.verify().isIntact)
    }

    // MARK: Tampering

    /// Five entries, then `tamper` on the raw file; returns what verify says.
    private func verifyAfter(_ tamper: (Attacker) throws -> Void) throws -> AuditVerification {
        for index in 1...5 {
            try vault.items.set(server: "shop.example", account: "user\(index)", password: password("p\(index)"))
        }
        // Entry 1 is the app registration; the five sets are 2...6.
        try tamper(Attacker(path: vault.path))
        // What a process that never saw this vault finds: the file alone (``StateHighWater``
        // refuses a head set back in the process that saw it, `headRolledBackWhileSeen`).
        StateHighWater.forget(vault.path)
        return try VaultTestSupport.open(vault.path).audit.verify()
    }

    @Test("an entry deleted from the middle is detected at the entry after it")
    func deletion() throws {
        let result = try verifyAfter { try $0.execute("DELETE FROM audit_log WHERE seq = 3") }
        #expect(result.firstBadEntry == 4 && result.problem?.contains("#3") == true, "\(result)")
    }

    @Test("an altered entry is detected")
    func alteration() throws {
        let result = try verifyAfter {
            try $0.execute("UPDATE audit_log SET outcome = 'refused', error_code = 'declined' WHERE seq = 4")
        }
        #expect(result.firstBadEntry == 4, "\(result)")
    }

    @Test("an entry given to another actor is detected")
    func otherActor() throws {
        let result = try verifyAfter {
            try $0.execute("UPDATE audit_log SET actor = 'ZZZZZ99999.com.evil' WHERE seq = 5")
        }
        #expect(result.firstBadEntry == 5, "\(result)")
    }

    @Test("two entries swapped are detected")
    func swap() throws {
        let result = try verifyAfter { attacker in
            try attacker.execute("UPDATE audit_log SET seq = 1000 WHERE seq = 3")
            try attacker.execute("UPDATE audit_log SET seq = 3 WHERE seq = 4")
            try attacker.execute("UPDATE audit_log SET seq = 4 WHERE seq = 1000")
        }
        #expect(result.firstBadEntry == 3, "\(result)")
    }

    @Test("entries cut off the end are detected by the sealed head")
    func truncation() throws {
        let result = try verifyAfter { try $0.execute("DELETE FROM audit_log WHERE seq >= 5") }
        #expect(result.firstBadEntry == 5 && result.problem?.contains("cut off the end") == true, "\(result)")
    }

    @Test("entries cut off the start without a prune are detected by the sealed anchor")
    func truncationAtStart() throws {
        let result = try verifyAfter { try $0.execute("DELETE FROM audit_log WHERE seq <= 2") }
        #expect(result.firstBadEntry == 3, "\(result)")
    }

    @Test("a sealed head copied back from an older state is detected: entries run past it")
    func headRolledBack() throws {
        let head = try Attacker(path: vault.path).rows("SELECT audit_head FROM vault_meta")[0][0] as Data
        let result = try verifyAfter { try $0.execute("UPDATE vault_meta SET audit_head = ?", arguments: [head]) }
        #expect(result.firstBadEntry == 2 && result.problem?.contains("is not the sealed head") == true, "\(result)")
    }

    @Test("entries cut off the end with the head and its seal set back: refused by the process that saw them")
    func headRolledBackWhileSeen() throws {
        let before = try Attacker(path: vault.path).rows("SELECT audit_head, state_seal FROM vault_meta")[0]
        for index in 1...3 {
            try vault.items.set(server: "shop.example", account: "user\(index)", password: password("p\(index)"))
        }
        // The entries cut off, the head and its seal put back as they were before them.
        try Attacker(path: vault.path).execute("DELETE FROM audit_log WHERE seq > 1")
        try Attacker(path: vault.path).execute(
            "UPDATE vault_meta SET audit_head = ?, state_seal = ?",
            arguments: [before["audit_head"] as Data, before["state_seal"] as Data])
        // The file alone: the seal no longer matches the record commitment beside it.
        #expect(try !vault.integrityReport().stateSealMatches)
        // The process that saw entry 4 refuses the vault at unlock and refuses every write.
        let reopened = failure { _ = try VaultTestSupport.open(vault.path) }
        #expect(reopened?.code == .integrityFailure, "\(String(describing: reopened))")
        #expect(
            reopened?.message.contains("audit log's head went back from entry") == true,
            "\(String(describing: reopened))")
        let write = failure {
            try vault.items.set(server: "shop.example", account: "after", password: password("p"))
        }
        #expect(write?.code == .integrityFailure, "\(String(describing: write))")
    }

    @Test("an entry spliced in from a copy of the vault is detected: each tag covers the one before")
    func splice() throws {
        for index in 1...3 {
            try vault.items.set(server: "shop.example", account: "user\(index)", password: password("p\(index)"))
        }
        let copy = directory.path("copy.sqlite")
        try VaultTestSupport.rawDatabase(vault.path).writeWithoutTransaction { db in
            try db.execute(sql: "VACUUM INTO ?", arguments: [copy])
        }
        try vault.items.set(server: "shop.example", account: "original-5", password: password("o5"))
        try vault.items.set(server: "shop.example", account: "original-6", password: password("o6"))
        try VaultTestSupport.open(copy).items.set(server: "shop.example", account: "copy-5", password: password("c5"))
        // Entry #5 of the copy is authentic in its own chain, which shares entries #1 to #4.
        let spliced = try Attacker(path: copy).rows("SELECT * FROM audit_log WHERE seq = 5")[0]
        try Attacker(path: vault.path).execute(
            "UPDATE audit_log SET at = ?, actor = ?, operation = ?, outcome = ?, error_code = ?, sealed = ?, tag = ? WHERE seq = 5",
            arguments: StatementArguments(
                ["at", "actor", "operation", "outcome", "error_code", "sealed", "tag"].map {
                    spliced[$0] as DatabaseValue
                }))
        let result = try VaultTestSupport.open(vault.path).audit.verify()
        #expect(result.firstBadEntry == 6, "\(result)")
    }

    @Test(
        "each column an entry's tag covers, changed alone, is detected at that entry",
        arguments: [
            ("at", "UPDATE audit_log SET at = at - 86400000 WHERE seq = 4"),
            ("actor", "UPDATE audit_log SET actor = 'ZZZZZ99999.com.evil' WHERE seq = 4"),
            ("operation", "UPDATE audit_log SET operation = 'item-remove' WHERE seq = 4"),
            ("sealed", "UPDATE audit_log SET sealed = (SELECT sealed FROM audit_log WHERE seq = 5) WHERE seq = 4"),
        ])
    func everyCoveredColumn(column: String, edit: String) throws {
        let result = try verifyAfter { try $0.execute(edit) }
        #expect(result.firstBadEntry == 4, "\(column): \(result)")
        #expect(result.problem?.contains("entry #4 failed authentication") == true, "\(column): \(result)")
    }

    /// The schema ties `outcome` to `error_code` (refused exactly when there is a code), so the
    /// one column that changes alone is the code of a refused entry.
    @Test("a refused entry's error code changed alone is detected at that entry")
    func errorCodeAlone() async throws {
        _ = try? await facade.request(domain: Self.shop, account: "nobody")
        try vault.items.set(server: "shop.example", account: "after", password: password("p"))
        #expect(try entries().map(\.event.outcome) == [.done, .refused(.itemNotFound), .done])
        try Attacker(path: vault.path).execute("UPDATE audit_log SET error_code = 'declined' WHERE seq = 2")
        let result = try VaultTestSupport.open(vault.path).audit.verify()
        #expect(result.firstBadEntry == 2, "\(result)")
        #expect(result.problem?.contains("entry #2 failed authentication") == true, "\(result)")
    }

    /// Issue 30: with the head's and the anchor's MACs not saying which of the two they are,
    /// emptying the log and copying one over the other went unnoticed.
    @Test("the whole log deleted and the sealed head copied over the anchor is detected, and prune refuses")
    func headCopiedOverAnchor() throws {
        let result = try verifyAfter { attacker in
            try attacker.execute("DELETE FROM audit_log")
            try attacker.execute("UPDATE vault_meta SET audit_anchor = audit_head")
        }
        #expect(!result.isIntact, "\(result)")
        #expect(result.problem?.contains("sealed anchor") == true, "\(result)")
        let reopened = try VaultTestSupport.open(vault.path)
        #expect(try reopened.integrityReport().auditLogProblem?.contains("sealed anchor") == true)
        let refused = failure { try reopened.audit.prune(before: Date()) }
        #expect(refused?.code == .integrityFailure, "\(String(describing: refused))")
    }

    @Test("the whole log deleted and the sealed anchor copied over the head is detected, and every write refused")
    func anchorCopiedOverHead() throws {
        let result = try verifyAfter { attacker in
            try attacker.execute("DELETE FROM audit_log")
            try attacker.execute("UPDATE vault_meta SET audit_head = audit_anchor")
        }
        #expect(!result.isIntact, "\(result)")
        #expect(result.problem?.contains("sealed head") == true, "\(result)")
        let reopened = try VaultTestSupport.open(vault.path)
        let refused = failure {
            try reopened.items.set(server: "shop.example", account: "after", password: password("p"))
        }
        #expect(refused?.code == .integrityFailure, "\(String(describing: refused))")
        #expect(try reopened.credentials.find(server: "shop.example", account: "after").isEmpty, "nothing written")
    }

    @Test(
        "a byte changed in the sealed head's or anchor's sequence number or tag fails that link's own MAC",
        arguments: [("audit_head", "head"), ("audit_anchor", "anchor")], [0, 8, 39])
    func alteredLink(column: (String, String), offset: Int) throws {
        let (name, what) = column
        let result = try verifyAfter { attacker in
            var link = try #require(try attacker.rows("SELECT \(name) FROM vault_meta")[0][0] as Data?)
            link[offset] ^= 1
            try attacker.execute("UPDATE vault_meta SET \(name) = ?", arguments: [link])
        }
        #expect(
            result.problem?.contains("sealed \(what)") == true
                && result.problem?.contains("failed authentication") == true, "\(name)[\(offset)]: \(result)")
    }

    @Test("status --verify reports a broken audit log")
    func integrityReport() throws {
        _ = try verifyAfter { try $0.execute("DELETE FROM audit_log WHERE seq = 3") }
        let report = try VaultTestSupport.open(vault.path).integrityReport()
        #expect(!report.isIntact && report.auditLogProblem?.contains("entry #4") == true, "\(report)")
    }

    // MARK: Prune

    @Test("prune drops old entries and keeps the rest verifiable; it refuses a broken chain")
    func prune() throws {
        for index in 1...3 {
            try vault.items.set(server: "shop.example", account: "user\(index)", password: password("p\(index)"))
        }
        let cutoff = Date().addingTimeInterval(1)
        #expect(try vault.audit.prune(before: Date(timeIntervalSince1970: 0)) == 0)
        #expect(try vault.audit.prune(before: cutoff) == 5, "app-add, three sets and the first prune")
        let kept = try entries()
        #expect(kept.map(\.event.operation) == [.auditPrune], "only the prune itself")
        #expect(kept.first?.sequence == 6)
        try vault.items.set(server: "shop.example", account: "user4", password: password("p4"))
        #expect(
            try VaultTestSupport.open(vault.path).audit.verify()
                == AuditVerification(entriesChecked: 2, firstBadEntry: nil, problem: nil))
        try Attacker(path: vault.path).execute("UPDATE audit_log SET at = at + 1 WHERE seq = 7")
        let refused = failure { try vault.audit.prune(before: cutoff.addingTimeInterval(60)) }
        #expect(
            refused?.code == .integrityFailure && refused?.message.contains("entry #7") == true,
            "\(String(describing: refused))")
        #expect(try Attacker(path: vault.path).rows("SELECT seq FROM audit_log").count == 2, "nothing dropped")
    }

    // MARK: Confidentiality

    @Test("no account name or domain appears in plaintext in the audit table or the file")
    func sealed() async throws {
        let account = "very-distinctive-account-name"
        // A server that only a wildcard covers appears nowhere else in plaintext either.
        try vault.apps.register(
            Self.app, entitlements: Entitlements(strings: ["webcredentials:*.wildcard-only.example"]), at: Date())
        try VaultTestSupport.approve(Self.app, for: ["webcredentials:*.wildcard-only.example"], in: vault)
        let target = try DomainTarget("login.secret-subdomain.wildcard-only.example")
        try await facade.add(domain: target, account: account, password: password("pw")) { _ in true }
        _ = try await facade.request()
        _ = try? await facade.request(domain: target, account: "\(account)-missing")
        try vault.items.rename(server: target.host, account: account, to: "\(account)-renamed")
        try await vault.database.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
        let rows = try Attacker(path: vault.path).rows("SELECT * FROM audit_log")
        #expect(rows.count >= 5)
        var tableBytes = Data()
        for row in rows {
            for value in row.databaseValues {
                switch value.storage {
                case .blob(let data): tableBytes += data
                case .string(let text): tableBytes += Data(text.utf8)
                default: break
                }
            }
        }
        let file = VaultTestSupport.fileBytes(vault.path).values.reduce(Data(), +)
        for needle in [account, "secret-subdomain"] {
            #expect(tableBytes.range(of: Data(needle.utf8)) == nil, "\(needle) in the audit table")
            #expect(file.range(of: Data(needle.utf8)) == nil, "\(needle) in the vault file")
        }
        #expect(try entries().contains { $0.event.account == account }, "but the owner reads it")
    }
}
