import Foundation
import SharedWebCredentialsTransfer
import TestSupport
import Testing

@testable import SharedWebCredentials

/// Passkeys through CXF (issue 26): exported from one vault, imported into a new one, and still
/// signing assertions that py_webauthn and python-fido2 verify against the public key of the
/// original registration; and passkeys written by another implementation (pyca/cryptography's
/// PKCS#8, python-fido2's COSE keys) imported and used the same way.
@Suite("Passkeys exported and imported as CXF, verified by relying-party libraries")
struct PasskeyTransferTests {
    typealias Support = PasskeyTestSupport
    typealias Verifier = RelyingPartyVerifier

    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// A new vault in which the Apple app is approved for the test site.
    func approvedVault(_ name: String) throws -> Vault {
        let vault = try VaultTestSupport.makeVault(in: directory, name: name)
        try vault.apps.register(
            Support.appleApp, entitlements: Entitlements(strings: ["webcredentials:\(Support.rpID)"]), at: Date())
        try VaultTestSupport.approve(Support.appleApp, for: ["webcredentials:\(Support.rpID)"], in: vault)
        return vault
    }

    func facade(_ vault: Vault) -> SharedWebCredentials {
        SharedWebCredentials(app: Support.appleApp, vault: vault, verifier: nil)
    }

    func exportCXF(_ vault: Vault, to name: String) throws -> (path: String, counts: CredentialExport.Counts) {
        let path = directory.path(name)
        let descriptor = try CredentialExport.createFile(at: path)
        defer { close(descriptor) }
        return (path, try CredentialExport(format: .cxf).write(vault, to: descriptor))
    }

    func importFile(_ path: String, into vault: Vault, policy: ConflictPolicy = .skip) throws -> ImportSummary {
        try CredentialImport(path: path, format: nil, policy: policy, skipInvalid: false)
            .run(into: vault.credentials) { _ in true }
    }

    /// An assertion by `vault` for `credentialID`, as the check both libraries run against `publicKey`.
    func assertionCheck(_ vault: Vault, credentialID: String, publicKey: String) async throws -> [String: Any] {
        let challenge = Support.challenge()
        let assertion = try await facade(vault).getPasskey(
            optionsJSON: Support.requestJSON(challenge: challenge, allow: [Support.unb64(credentialID)])
        ) { .standingConsent }
        #expect(assertion.id == credentialID)
        return Verifier.authentication(
            try Verifier.object(assertion.jsonBytes()), challenge: challenge, origin: Support.appleOrigin,
            rpID: Support.rpID, publicKey: publicKey, credentialID: credentialID)
    }

    @Test("ES256 and Ed25519 passkeys survive export and import: the new vault signs for the original public keys")
    func roundTrip() async throws {
        let source = try approvedVault("source.sqlite")
        var registered: [(id: String, publicKey: String)] = []
        for algorithm in [-7, -8] {
            let challenge = Support.challenge()
            let response = try await facade(source).createPasskey(
                optionsJSON: Support.creationJSON(challenge: challenge, algorithms: [algorithm])
            ) { .standingConsent }
            let verdict = try #require(
                try Verifier.verify([
                    Verifier.registration(
                        try Verifier.object(response.jsonBytes()), challenge: challenge, origin: Support.appleOrigin,
                        rpID: Support.rpID)
                ]).first)
            #expect(verdict.bothVerified, "\(verdict.summary)")
            registered.append((response.id, try #require(verdict.pyWebAuthn["credential_public_key"] as? String)))
        }
        try source.credentials.batch { batch in
            try batch.upsert(server: Support.rpID, account: "alice", password: SecureBytes(utf8: "Pw-of-alice-1"))
        }

        let (path, counts) = try exportCXF(source, to: "export.cxf.json")
        #expect((counts.credentials, counts.passkeys) == (1, 2))
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.components(separatedBy: "\"type\":\"passkey\"").count - 1 == 2)

        let destination = try approvedVault("destination.sqlite")
        let summary = try importFile(path, into: destination)
        #expect(summary.format == .cxf && summary.detected)
        #expect(summary.entries == 3)
        #expect((summary.added, summary.passkeysAdded, summary.skipped.count) == (1, 2, 0))
        // Everything but the creation time's fraction of a second (CXF keeps whole seconds), in an
        // order of their own: `all()` orders by creation time, and two passkeys made within one
        // second tie once the fraction is gone.
        func summaries(_ vault: Vault) throws -> [String] {
            try vault.passkeys.all().map {
                [
                    $0.credentialID, $0.rpID, $0.userName, $0.userDisplayName, $0.userHandle, $0.algorithm,
                    $0.publicKey, "\(Int($0.created.timeIntervalSince1970))",
                ].joined(separator: " ")
            }.sorted()
        }
        #expect(try summaries(destination) == summaries(source))
        #expect(try destination.integrityReport().isIntact)

        var checks: [[String: Any]] = []
        for (id, publicKey) in registered {
            checks.append(try await assertionCheck(destination, credentialID: id, publicKey: publicKey))
        }
        for verdict in try Verifier.verify(checks) {
            #expect(verdict.bothVerified, "\(verdict.summary)")
        }

        // The same file again changes nothing.
        let again = try importFile(path, into: destination)
        #expect((again.passkeysAdded, again.passkeysUnchanged, again.changesVault) == (0, 2, false))
    }

    @Test(
        "passkeys another implementation wrote (OpenSSL's PKCS#8) sign for its public keys; RSA and P-384 are listed, not imported"
    )
    func foreignPasskeys() async throws {
        let made = try Self.foreignCXF(kinds: ["ES256", "Ed25519", "RSA", "P-384"])
        let path = directory.path("foreign.json")
        try JSONSerialization.data(withJSONObject: made.cxf).write(to: URL(fileURLWithPath: path))
        let vault = try approvedVault("vault.sqlite")
        let summary = try importFile(path, into: vault)
        #expect(summary.passkeysAdded == 2)
        #expect(summary.skipped.map(\.location) == ["item 3", "item 4"])
        #expect(
            summary.skipped.map(\.reason.description) == [
                "a passkey for login.example.com with an RSA key: swcred signs only with ES256 (P-256) and Ed25519",
                "a passkey for login.example.com with a key on the elliptic curve P-384: swcred signs only with ES256 (P-256) and Ed25519",
            ])
        let stored = try vault.passkeys.all()
        #expect(Set(stored.map(\.userHandle)) == Set(made.passkeys.prefix(2).map(\.userHandle)))

        var checks: [[String: Any]] = []
        for passkey in made.passkeys.prefix(2) {
            checks.append(
                try await assertionCheck(
                    vault, credentialID: passkey.credentialID, publicKey: try #require(passkey.publicKey)))
        }
        for verdict in try Verifier.verify(checks) {
            #expect(verdict.bothVerified, "\(verdict.summary)")
        }
    }

    @Test(
        "a passkey whose credential ID is already saved: skip keeps it, newer compares times, replace takes the file's")
    func conflicts() async throws {
        let made = try Self.foreignCXF(kinds: ["ES256"])
        let path = directory.path("first.json")
        try JSONSerialization.data(withJSONObject: made.cxf).write(to: URL(fileURLWithPath: path))
        let vault = try approvedVault("vault.sqlite")
        #expect(try importFile(path, into: vault).passkeysAdded == 1)

        // The same credential ID with another key (a re-made passkey, or a forgery in the file).
        var changed = made.cxf
        var accounts = try #require(changed["accounts"] as? [[String: Any]])
        var items = try #require(accounts[0]["items"] as? [[String: Any]])
        var credentials = try #require(items[0]["credentials"] as? [[String: Any]])
        let other = try Self.foreignCXF(kinds: ["ES256"])
        let otherKey = try #require(
            (((other.cxf["accounts"] as? [[String: Any]])?[0]["items"] as? [[String: Any]])?[0]["credentials"]
                as? [[String: Any]])?[0]["key"])
        credentials[0]["key"] = otherKey
        items[0]["credentials"] = credentials
        accounts[0]["items"] = items
        changed["accounts"] = accounts
        let changedPath = directory.path("changed.json")
        try JSONSerialization.data(withJSONObject: changed).write(to: URL(fileURLWithPath: changedPath))

        let skipped = try importFile(changedPath, into: vault, policy: .skip)
        #expect(skipped.skipped.map(\.reason) == [.exists])
        // The item was modified an hour ago, the saved passkey created a day ago: newer replaces it.
        let newer = try importFile(changedPath, into: vault, policy: .newer)
        #expect(newer.passkeysReplaced == 1)
        let replaced = try importFile(path, into: vault, policy: .replace)
        #expect(replaced.passkeysReplaced == 1)
        #expect(try vault.passkeys.count() == 1)
        #expect(try vault.integrityReport().isIntact)
        let check = try await assertionCheck(
            vault, credentialID: made.passkeys[0].credentialID, publicKey: try #require(made.passkeys[0].publicKey))
        #expect(try Verifier.verify([check]).first?.bothVerified == true)
    }

    @Test("a malformed passkey fails the import naming the item and the member; --skip-invalid skips it")
    func malformed() throws {
        let made = try Self.foreignCXF(kinds: ["ES256"])
        let vault = try approvedVault("vault.sqlite")
        let cases: [(String, Any?, String)] = [
            ("rpId", "co.uk", "the RP ID \"co.uk\" is a public suffix"),
            ("rpId", "192.0.2.1", "the RP ID \"192.0.2.1\" is an IP address"),
            ("credentialId", "c2hvcnQ", "has a \"credentialId\" of 5 bytes; swcred keeps 16 to 1023"),
            ("userHandle", nil, "has no \"userHandle\" (a base64url text)"),
            ("key", "not base64url!", "has a \"key\" that is not base64url"),
            ("key", "MAA", "cannot be used: its key is not a PKCS#8 private key: its version is missing"),
        ]
        for (index, (member, value, problem)) in cases.enumerated() {
            var document = made.cxf
            var accounts = try #require(document["accounts"] as? [[String: Any]])
            var items = try #require(accounts[0]["items"] as? [[String: Any]])
            var credentials = try #require(items[0]["credentials"] as? [[String: Any]])
            credentials[0][member] = value
            items[0]["credentials"] = credentials
            accounts[0]["items"] = items
            document["accounts"] = accounts
            let path = directory.path("bad-\(index).json")
            try JSONSerialization.data(withJSONObject: document).write(to: URL(fileURLWithPath: path))
            do {
                _ = try importFile(path, into: vault)
                Issue.record("\(member) = \(String(describing: value)) was imported")
            } catch let error as SharedWebCredentialsError {
                #expect(error.message.hasPrefix("item 1 of \(path): its passkey "), "\(error.message)")
                #expect(error.message.contains(problem), "\(error.message)")
                #expect(
                    error.message.hasSuffix(
                        "Nothing was imported; fix the file, or pass --skip-invalid to import the other rows"))
            }
            let skipped = try CredentialImport(path: path, format: .cxf, policy: .skip, skipInvalid: true)
                .run(into: vault.credentials) { _ in true }
            #expect(skipped.skipped.count == 1 && skipped.passkeysAdded == 0)
        }
        #expect(try vault.passkeys.count() == 0)
    }

    // MARK: Passkeys made by Tests/Passkeys/cxf_passkeys.py

    struct ForeignPasskey {
        let credentialID: String
        let userHandle: String
        let publicKey: String?
    }

    /// A CXF document from pyca/cryptography and python-fido2, with the passkeys it holds.
    static func foreignCXF(kinds: [String]) throws -> (cxf: [String: Any], passkeys: [ForeignPasskey]) {
        let answer = try PasskeyTools.run("cxf_passkeys.py", input: ["rp_id": Support.rpID, "passkeys": kinds])
        let passkeys = try #require(answer["passkeys"] as? [[String: Any]]).map {
            ForeignPasskey(
                credentialID: $0["credential_id"] as? String ?? "", userHandle: $0["user_handle"] as? String ?? "",
                publicKey: $0["cose_public_key"] as? String)
        }
        return (try #require(answer["cxf"] as? [String: Any]), passkeys)
    }
}
