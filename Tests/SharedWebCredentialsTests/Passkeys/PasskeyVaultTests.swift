import Crypto
import Foundation
import TestSupport
import Testing

@testable import SharedWebCredentials

/// Passkeys in the vault (issue 26): sealed like passwords, counted in the record commitment,
/// checked by the integrity report, re-sealed by key rotation, never stored in plaintext; and
/// created and used through the gated facade with the flags it documents.
@Suite("Passkeys in the vault and behind the facade's gate")
struct PasskeyVaultTests {
    typealias Support = PasskeyTestSupport
    static let app = Support.appleApp

    let directory: TemporaryDirectory
    let vault: Vault

    init() throws {
        directory = try TemporaryDirectory()
        vault = try VaultTestSupport.makeVault(in: directory)
        try vault.apps.register(
            Self.app,
            entitlements: Entitlements(strings: [
                "webcredentials:login.example.com", "webcredentials:*.example.org", "webcredentials:port.example:8443",
                "webcredentials:offline.example", "webcredentials:stale.example", "webcredentials:denied.example",
                "webcredentials:second.example",
            ]),
            at: Date())
        try VaultTestSupport.approve(
            Self.app,
            for: ["webcredentials:login.example.com", "webcredentials:*.example.org", "webcredentials:second.example"],
            in: vault)
        // Approved 31 days ago and not re-checked since: older than the 30 days an approval
        // survives failed re-checks.
        let monthAgo = Date() - 31 * 86_400
        try VaultTestSupport.store(
            Self.app, for: ["webcredentials:stale.example"], verdict: .approved, checkedAt: monthAgo,
            approvedAt: monthAgo, in: vault)
        try VaultTestSupport.store(
            Self.app, for: ["webcredentials:denied.example"], verdict: .denied, checkedAt: Date(), approvedAt: nil,
            lastError: "the file lists other apps only", in: vault)
    }

    /// The facade, offline: the stored verdicts decide.
    var facade: SharedWebCredentials { SharedWebCredentials(app: Self.app, vault: vault, verifier: nil) }

    func create(
        _ rpID: String = Support.rpID, presence: AuthenticatorSignals.Presence = .standingConsent
    )
        async throws -> RegistrationResponseJSON
    {
        try await facade.createPasskey(optionsJSON: Support.creationJSON(rpID: rpID, algorithms: [-7])) { presence }
    }

    func stored() throws -> [Passkey] {
        try vault.read { db, keys in
            try PasskeyStore.find(try RelyingPartyID(Support.rpID), db: db, keys: keys, vault: vault)
        }
    }

    @Test("the private key is sealed: not in the file; the row binds its indexes; audit entries for create and get")
    func sealedNotPlaintext() async throws {
        let response = try await create()
        let passkey = try #require(try stored().first)
        #expect(Base64URL.encode(passkey.credentialID) == response.id)
        let secret = passkey.privateKey.secret.withUnsafeBytes { Data($0) }
        for (name, bytes) in VaultTestSupport.fileBytes(vault.path) {
            #expect(bytes.range(of: secret) == nil, "the private scalar is in \(name) in plaintext")
            // (The RP ID itself is in the app's entitlement, which `apps` stores in plaintext.)
            #expect(bytes.range(of: Data("alice@example.com".utf8)) == nil, "the user name is in \(name) in plaintext")
        }
        let assertion = try await facade.getPasskey(optionsJSON: Support.requestJSON()) { .ownerConsented }
        #expect(assertion.id == response.id)
        let report = try vault.integrityReport()
        #expect(report.isIntact, "\(report.problems)")
        #expect(report.passkeysChecked == 1)
        let operations = try vault.audit.entries().map(\.event.operation)
        #expect(operations.filter { $0 == .passkeyCreate }.count == 1)
        #expect(operations.filter { $0 == .passkeyGet }.count == 1)

        // Another row's sealed blob moved onto this row does not open.
        _ = try await create()
        let raw = try VaultTestSupport.rawDatabase(vault.path)
        try await raw.write { db in
            try db.execute(sql: "UPDATE passkeys SET sealed = (SELECT sealed FROM passkeys ORDER BY id DESC LIMIT 1)")
        }
        #expect(try vault.integrityReport().damagedPasskeys == 1)
    }

    @Test(
        "two sites, a passkey each: a get for one is answered only with its own; a row moved to the other's index fails authentication"
    )
    func twoSitesKeptApart() async throws {
        let first = try await create()
        let second = try await create("second.example")
        func get(_ rpID: String, allow: [String] = []) async throws -> AuthenticationResponseJSON {
            try await facade.getPasskey(
                optionsJSON: Support.requestJSON(rpID: rpID, allow: allow.map(Support.unb64))
            ) { .ownerConsented }
        }
        func rpIDHash(_ response: AuthenticationResponseJSON) -> [UInt8] {
            Array(Support.unb64(response.response.authenticatorData).prefix(32))
        }
        let answered = try await get(Support.rpID)
        #expect(answered.id == first.id)
        #expect(rpIDHash(answered) == Array(SHA256.hash(data: Data(Support.rpID.utf8))))
        #expect(try await get("second.example").id == second.id)
        await #expect(throws: SharedWebCredentialsError.self, "the other site's credential ID named") {
            do {
                _ = try await get(Support.rpID, allow: [second.id])
            } catch let error as SharedWebCredentialsError {
                #expect(error.code == .itemNotFound, "\(error)")
                throw error
            }
        }

        // The first site's row given the second site's index, as someone with the file could.
        let (firstIndex, secondIndex) = try await vault.read { _, keys in
            (keys.passkeyRelyingPartyIndex(Support.rpID), keys.passkeyRelyingPartyIndex("second.example"))
        }
        let raw = try VaultTestSupport.rawDatabase(vault.path)
        try await raw.write { db in
            try db.execute(
                sql: "UPDATE passkeys SET rp_index = ? WHERE rp_index = ?",
                arguments: [Data(secondIndex), Data(firstIndex)])
        }
        // Its sealed blob does not open under the associated data the moved row gives.
        let opened = try await vault.read { db, keys in
            let row = try #require(
                try db.row(
                    "SELECT id, rp_index, credential_index, sealed, version FROM passkeys WHERE credential_index = ?",
                    [.blob(keys.passkeyCredentialIndex(Support.unb64(first.id)))]))
            #expect(row.blob(1) == secondIndex)
            return AuthenticatedEncryption.open(
                try #require(row.blob(3)), key: keys.recordKey,
                associatedData: VaultKeys.passkeyAssociatedData(
                    id: try #require(row.blob(0)), rpIndex: try #require(row.blob(1)),
                    credentialIndex: try #require(row.blob(2)), version: try #require(row.integer(4))))
        }
        #expect(opened == nil, "a passkey's sealed blob opens under another site's index")
        await #expect(throws: SharedWebCredentialsError.self, "the second site's get meets the moved row") {
            do {
                _ = try await get("second.example")
            } catch let error as SharedWebCredentialsError {
                #expect(error.code == .integrityFailure, "\(error)")
                throw error
            }
        }
        #expect(try vault.integrityReport().damagedPasskeys == 1)
    }

    @Test("read ahead with the token: the same assertion; a refusal met is thrown and audited; another RP's is unused")
    func readAheadWithToken() async throws {
        let created = try await create()
        let issued = try vault.appTokens.create(
            app: Self.app, permissions: [.passkeyGet], consent: .none, expiresAt: nil)
        func readAhead(_ rpID: String) async throws -> SharedWebCredentials.PrefetchedRelyingParty? {
            let prefetch = AppTokenStore.RelyingPartyPrefetch(relyingParty: rpID) { [vault] record in
                SharedWebCredentials(app: record.app, vault: vault, verifier: nil)
            }
            return try await vault.appTokens.authenticate(issued.token, prefetching: prefetch).prefetched
        }
        func get(_ rpID: String, readAheadFor other: String) async throws -> AuthenticationResponseJSON {
            try await facade.getPasskey(
                optionsJSON: Support.requestJSON(rpID: rpID), prefetched: try await readAhead(other)
            ) { .standingConsent }
        }

        #expect(try await get(Support.rpID, readAheadFor: Support.rpID).id == created.id)
        await #expect(throws: SharedWebCredentialsError.self) {
            do {
                _ = try await get("denied.example", readAheadFor: "denied.example")
            } catch let error as SharedWebCredentialsError {
                #expect(error.code == .notApproved, "\(error)")
                throw error
            }
        }
        // Options for another RP than the one read ahead: that read is not used.
        #expect(try await get(Support.rpID, readAheadFor: "denied.example").id == created.id)
        let outcomes = try vault.audit.entries().filter { $0.event.operation == .passkeyGet }.map(\.event.outcome)
        #expect(outcomes == [.done, .refused(.notApproved), .done])
    }

    @Test("a passkey deleted or brought back behind swcred's back breaks the record commitment")
    func commitment() async throws {
        _ = try await create()
        #expect(try vault.integrityReport().recordSetMatchesCommitment)
        let raw = try VaultTestSupport.rawDatabase(vault.path)
        try await raw.write { db in try db.execute(sql: "DELETE FROM passkeys") }
        let report = try vault.integrityReport()
        #expect(!report.recordSetMatchesCommitment)
        #expect(!report.isIntact)
    }

    @Test("key rotation re-seals passkeys: they still sign, and the vault stays intact")
    func rotation() async throws {
        let response = try await create()
        _ = try vault.rotateKey()
        #expect(try vault.integrityReport().isIntact)
        let assertion = try await facade.getPasskey(optionsJSON: Support.requestJSON()) { .standingConsent }
        #expect(assertion.id == response.id)
    }

    @Test("the owner lists and removes passkeys; the removal is audited and leaves the commitment matching")
    func ownerRemove() async throws {
        let response = try await create()
        #expect(try vault.passkeys.all().map(\.credentialID) == [response.id])
        #expect(try vault.passkeys.forRelyingParty(Support.rpID).count == 1)
        #expect(try vault.passkeys.remove(credentialID: response.id))
        #expect(try !vault.passkeys.remove(credentialID: response.id))
        #expect(try vault.passkeys.all().isEmpty)
        #expect(try vault.integrityReport().isIntact)
        let removals = try vault.audit.entries().filter { $0.event.operation == .passkeyRemove }
        #expect(removals.count == 1)
        #expect(removals.first?.event.domain == Support.rpID)
    }

    @Test("the flags: UP only with presence, never UV, BE without BS")
    func flags() async throws {
        for (presence, up) in [(AuthenticatorSignals.Presence.absent, false), (.standingConsent, true)] {
            let response = try await create(presence: presence)
            let data = Support.unb64(response.response.authenticatorData)
            #expect(data[32] & 0x01 == (up ? 0x01 : 0))
            #expect(data[32] & 0x04 == 0, "UV is never set")
            #expect(data[32] & 0x18 == 0x08, "BE set, BS clear")
        }
    }

    @Test(
        "refused: a wildcard or port entry, an unapproved host, no, a stale or a denied verdict offline, a public suffix, an IP address; each audited"
    )
    func refusals() async throws {
        for (rpID, code) in [
            ("sub.example.org", SharedWebCredentialsError.Code.notApproved),  // only *.example.org names it
            ("example.org", .notApproved),  // *.example.org covers it for passwords, never for passkeys
            ("port.example", .missingEntitlement),  // only with :8443
            ("offline.example", .networkFailure),  // never verified, and offline
            ("stale.example", .notApproved),  // an approval 31 days old, offline
            ("denied.example", .notApproved),  // the site's last answer left the app out
            ("unlisted.example", .missingEntitlement), ("com", .invalidInput), ("co.uk", .invalidInput),
            ("github.io", .invalidInput), ("192.0.2.1", .invalidInput),
        ] {
            await #expect(throws: SharedWebCredentialsError.self, "\(rpID)") {
                do {
                    _ = try await create(rpID)
                } catch let error as SharedWebCredentialsError {
                    #expect(error.code == code, "\(rpID): \(error)")
                    throw error
                }
            }
        }
        #expect(try vault.passkeys.all().isEmpty)
        let refused = try vault.audit.entries().filter {
            $0.event.operation == .passkeyCreate && $0.event.outcome != .done
        }
        #expect(refused.count == 11)
    }
}
