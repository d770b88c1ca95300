import Foundation
import GRDB
import TestSupport
import Testing

@testable import SharedWebCredentials

/// Issue 28: the audit log sees the boundary. What grants or changes access appends an entry in
/// the transaction of the change (token create and revoke, never-save marks, verdict changes);
/// the entry's detail is sealed with its domain, and entries sealed before detail existed still
/// open and verify.
@Suite("Audit log: tokens, never-save, verdict changes and the sealed detail")
struct AuditBoundaryTests {
    static let app = try! ApplicationIdentifier("ABCDE12345.com.example.app")

    let directory: TemporaryDirectory
    let vault: Vault

    init() throws {
        directory = try TemporaryDirectory()
        vault = try VaultTestSupport.makeVault(in: directory)
    }

    private func entries() throws -> [AuditEntry] { try vault.audit.entries() }

    // MARK: Detail

    /// The sealed subject as swcred sealed it before detail existed: domain, account and app
    /// (presence byte, u32 length, bytes), then the released credentials (u32 count, each domain
    /// and account as u32 length and bytes), and nothing after.
    static func subjectBeforeDetail(
        domain: String?, account: String?, app: String?, released: [AuditCredential]
    ) -> [UInt8] {
        var bytes: [UInt8] = []
        func integer(_ value: Int) { withUnsafeBytes(of: UInt32(value).littleEndian) { bytes += $0 } }
        func text(_ value: String) {
            integer(value.utf8.count)
            bytes += value.utf8
        }
        for optional in [domain, account, app] {
            bytes.append(optional == nil ? 0 : 1)
            text(optional ?? "")
        }
        integer(released.count)
        for credential in released {
            text(credential.domain)
            text(credential.account)
        }
        return bytes
    }

    @Test("an entry sealed before detail existed opens and verifies, chained to a new one with a detail")
    func entrySealedBeforeDetail() throws {
        try vault.audit.append(AuditEvent(actor: .owner, operation: .export))
        // Entry #1 re-sealed in the old encoding and re-tagged, as swcred wrote it before detail.
        try vault.write { db, keys in
            let sealed = AuthenticatedEncryption.seal(
                SecureBytes(
                    copying: Self.subjectBeforeDetail(
                        domain: "old.example", account: "alice", app: nil,
                        released: [AuditCredential(domain: "old.example", account: "alice")])),
                key: keys.recordKey, associatedData: VaultKeys.auditAssociatedData(sequence: 1))
            let row = try #require(try db.row("\(AuditChain.columns) WHERE seq = 1"))
            var values = AuditChain.covered(row)
            values[3] = .text(AuditOperation.request.rawValue)
            values[6] = .blob(sealed)
            let tag = AuditScope.vault.tag(of: values, keys: keys, previous: AuditChain.Link.genesis.tag)
            try db.execute(
                "UPDATE audit_log SET operation = ?, sealed = ?, tag = ? WHERE seq = 1",
                [values[3], values[6], .blob(tag)])
            try AuditChain.store(AuditChain.Link(sequence: 1, tag: tag), as: .head, db: db, keys: keys)
            try StateSeal.reseal(db, keys: keys, path: vault.path)
        }
        let consented = AuditEvent(
            actor: .owner, operation: .consentApprove, domain: "new.example", app: Self.app.description,
            detail: "request for alice released after the owner approved")
        try vault.audit.append(consented)
        let reopened = try VaultTestSupport.open(vault.path)
        #expect(
            try reopened.audit.entries().map(\.event) == [
                AuditEvent(
                    actor: .owner, operation: .request, domain: "old.example", account: "alice",
                    released: [AuditCredential(domain: "old.example", account: "alice")]),
                consented,
            ])
        #expect(try reopened.audit.verify() == AuditVerification(entriesChecked: 2, firstBadEntry: nil, problem: nil))
        // A key rotation re-seals both, the detail with the rest.
        try reopened.rotateKey()
        #expect(try reopened.audit.entries().map(\.event.detail) == [nil, consented.detail, nil])
        #expect(try reopened.audit.verify().isIntact)
    }

    @Test("the detail is sealed: read back by the owner, nowhere in the file in plaintext")
    func detailSealed() async throws {
        let detail = "a-very-distinctive-detail-text"
        let event = AuditEvent(
            actor: .service, operation: .unlockFailed, outcome: .refused(.vaultLocked), detail: detail)
        try await vault.audit.append(event)
        #expect(try entries().map(\.event) == [event])
        #expect(try vault.audit.entries(actor: .service, operation: .unlockFailed).count == 1)
        try await vault.database.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
        let file = VaultTestSupport.fileBytes(vault.path).values.reduce(Data(), +)
        #expect(file.range(of: Data(detail.utf8)) == nil)
    }

    // MARK: Tokens

    @Test("token create and revoke append owner entries with the app and the grant, never the token")
    func tokens() throws {
        try vault.apps.register(
            Self.app, entitlements: Entitlements(strings: ["webcredentials:shop.example"]), at: Date())
        let expiry = Date(timeIntervalSince1970: 1_796_083_200)  // 2026-12-01T00:00:00Z
        let now = Date(timeIntervalSince1970: 1_790_000_000)
        let issued = try vault.appTokens.create(
            app: Self.app, permissions: [.add, .request], consent: .ask, expiresAt: expiry, now: now)
        let grant = "token \(issued.record.id); permissions request,add; expires 2026-12-01T00:00:00Z; consent ask"
        let lasting = try vault.appTokens.create(
            app: Self.app, permissions: [.generate], consent: .none, expiresAt: nil, now: now)
        #expect(try vault.appTokens.revoke(id: issued.record.id))
        #expect(try !vault.appTokens.revoke(id: issued.record.id), "nothing to revoke: nothing recorded")
        let owner = { (operation: AuditOperation, detail: String) in
            AuditEvent(actor: .owner, operation: operation, app: Self.app.description, detail: detail)
        }
        #expect(
            try entries().dropFirst().map(\.event) == [
                owner(.tokenCreate, grant),
                owner(.tokenCreate, "token \(lasting.record.id); permissions generate; expires never; consent none"),
                owner(.tokenRevoke, grant),
            ])
        let listed = try entries().map { "\($0.event)" }.joined()
        for token in [issued.token, lasting.token] {
            #expect(!listed.contains(token.exposedString()))
        }
        #expect(try vault.audit.verify().isIntact)
    }

    @Test("a token whose entry cannot be written is neither created nor revoked (one transaction)")
    func tokenFailClosed() throws {
        try vault.apps.register(
            Self.app, entitlements: Entitlements(strings: ["webcredentials:shop.example"]), at: Date())
        let issued = try vault.appTokens.create(
            app: Self.app, permissions: [.request], consent: .none, expiresAt: nil)
        try Attacker(path: vault.path).execute("UPDATE vault_meta SET audit_head = zeroblob(72)")
        #expect(
            failure {
                _ = try vault.appTokens.create(app: Self.app, permissions: [.add], consent: .none, expiresAt: nil)
            }?.code == .integrityFailure)
        #expect(failure { try vault.appTokens.revoke(id: issued.record.id) }?.code == .integrityFailure)
        #expect(try vault.appTokens.list().map(\.id) == [issued.record.id])
    }

    // MARK: Never-save

    @Test("never-save marks and clears append owner entries for the host, in their transaction")
    func neverSave() throws {
        try vault.neverSave.mark("Shop.Example")
        try vault.neverSave.mark("shop.example")
        #expect(try vault.neverSave.clear("shop.example"))
        #expect(try !vault.neverSave.clear("shop.example"))
        #expect(
            try entries().map(\.event) == [
                AuditEvent(actor: .owner, operation: .neverSaveAdd, domain: "shop.example"),
                AuditEvent(actor: .owner, operation: .neverSaveRemove, domain: "shop.example"),
            ], "a mark already there, or none to clear, changes nothing and records nothing")
        try Attacker(path: vault.path).execute("UPDATE vault_meta SET audit_head = zeroblob(72)")
        #expect(failure { try vault.neverSave.mark("other.example") }?.code == .integrityFailure)
        // This process saw entry 2: a head of 0 is refused at unlock; a process that did not see it
        // opens the vault and finds nothing was written.
        #expect(failure { _ = try VaultTestSupport.open(vault.path) }?.code == .integrityFailure)
        StateHighWater.forget(vault.path)
        #expect(try VaultTestSupport.open(vault.path).neverSave.hosts().isEmpty)
    }

    // MARK: Verdicts

    private func record(_ verdict: AssociationVerdict, domain: String = "shop.example") -> AssociationRecord {
        let now = Date()
        return AssociationRecord(
            service: .webcredentials, app: Self.app, domain: domain, verdict: verdict, checkedAt: now,
            nextCheck: now + 86_400, lastError: verdict == .approved ? nil : "not listed", retryCount: 0,
            documentDigest: nil, approvedAt: verdict == .approved ? now : nil)
    }

    @Test("a stored verdict that changed appends one entry as who stored it; an unchanged one appends nothing")
    func verdictChanges() throws {
        try vault.apps.register(
            Self.app,
            entitlements: Entitlements(strings: ["webcredentials:shop.example", "webcredentials:down.example"]),
            at: Date())
        try vault.associations.save(record(.approved), by: .service)
        try vault.associations.save([record(.approved), record(.unverified, domain: "down.example")], by: .service)
        try vault.associations.save(record(.denied))
        try Attacker(path: vault.path).execute("UPDATE associations SET retry_count = 7 WHERE domain = 'shop.example'")
        try vault.associations.save(record(.denied), by: .app(Self.app))
        let change = { (actor: AuditActor, domain: String, detail: String) in
            AuditEvent(
                actor: actor, operation: .verdictChange, domain: domain, app: Self.app.description, detail: detail)
        }
        #expect(
            try entries().dropFirst().map(\.event) == [
                change(.service, "shop.example", "webcredentials: none → approved"),
                change(.service, "down.example", "webcredentials: none → unverified"),
                change(.owner, "shop.example", "webcredentials: approved → denied"),
                change(.app(Self.app), "shop.example", "webcredentials: untrusted → denied"),
            ])
        #expect(try vault.audit.verify().isIntact)
    }
}
