import Foundation
import GRDB
import TestSupport
import Testing

@testable import SharedWebCredentials

@Suite("app tokens: keyed hashes, row MACs, expiry, revocation")
struct AppTokenStoreTests {
    let directory: TemporaryDirectory
    let vault: Vault
    let app = try! ApplicationIdentifier("ABCDE12345.com.example.app")
    let otherApp = try! ApplicationIdentifier("ZZZZZ99999.com.example.other")
    let now = Date(timeIntervalSince1970: 1_900_000_000)

    init() throws {
        directory = try TemporaryDirectory()
        vault = try VaultTestSupport.makeVault(in: directory)
        let entitlements = try Entitlements(strings: ["webcredentials:shop.example"])
        try vault.apps.register(app, entitlements: entitlements, at: now)
        try vault.apps.register(otherApp, entitlements: entitlements, at: now)
    }

    private func code(_ body: () throws -> Void) -> SharedWebCredentialsError.Code? {
        VaultTestSupport.errorCode(body)
    }

    private func message(_ body: () throws -> Void) -> String {
        do {
            try body()
            return ""
        } catch let error as SharedWebCredentialsError {
            return error.message
        } catch {
            return "\(error)"
        }
    }

    @Test("a token is the prefix and 43 base64url characters; it authenticates as its app; only its hash is stored")
    func createAndAuthenticate() throws {
        let issued = try vault.appTokens.create(
            app: app, permissions: [.request, .generate], consent: .ask, expiresAt: nil, now: now)
        let text = issued.token.exposedString()
        #expect(text.hasPrefix("swcred_"))
        #expect(text.count == 7 + 43)
        #expect(text.dropFirst(7).allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        let record = try vault.appTokens.authenticate(issued.token, now: now)
        #expect(record == issued.record)
        #expect(record.app == app)
        #expect(record.permissions == [.request, .generate])
        #expect(record.consent == .ask)
        #expect(try vault.appTokens.list(app: app) == [issued.record])
        #expect(try vault.appTokens.list(app: otherApp).isEmpty)
        let random = try #require(AppTokenFormat.decode(issued.token))
        for bytes in VaultTestSupport.fileBytes(vault.path).values {
            #expect(bytes.range(of: Data(text.utf8)) == nil)
            #expect(bytes.range(of: Data(random.withUnsafeBytes { Array($0) })) == nil)
        }
        let second = try vault.appTokens.create(app: app, permissions: [.add], consent: .none, expiresAt: nil, now: now)
        #expect(second.token.exposedString() != text)
        #expect(try vault.appTokens.authenticate(second.token, now: now).permissions == [.add])
    }

    @Test("malformed tokens are refused as malformed, before any lookup")
    func malformed() throws {
        let issued = try vault.appTokens.create(app: app, permissions: [.request], consent: .none, expiresAt: nil)
        let text = issued.token.exposedString()
        // 43 characters carry 258 bits: the last one's low 2 bits are padding and must be zero
        // ("B" is 000001), so that each token has exactly one text.
        for bad in [
            "", "swcred_", String(text.dropLast()), text + "A", "Bearer " + text,
            "swcreD_" + text.dropFirst(7), String(text.dropLast()) + "=", String(text.dropLast()) + "+",
            String(text.dropLast()) + "B", String(text.dropLast()) + "é",
        ] {
            let thrown = message { _ = try vault.appTokens.authenticate(SecureBytes(utf8: bad)) }
            #expect(thrown.contains("malformed"), "\(bad)")
        }
    }

    @Test("a wrong token, a revoked token and an expired token are each refused with what to do")
    func refused() throws {
        let wrong = AppTokenFormat.encode(SecureBytes.random(count: 32))
        #expect(code { _ = try vault.appTokens.authenticate(wrong) } == .vaultLocked)
        #expect(message { _ = try vault.appTokens.authenticate(wrong) }.contains("not valid"))

        let expiring = try vault.appTokens.create(
            app: app, permissions: [.request], consent: .none, expiresAt: now.addingTimeInterval(60), now: now)
        #expect(try vault.appTokens.authenticate(expiring.token, now: now.addingTimeInterval(59)).app == app)
        let expired = message { _ = try vault.appTokens.authenticate(expiring.token, now: now.addingTimeInterval(60)) }
        #expect(expired.contains("expired"))

        let revoked = try vault.appTokens.create(app: app, permissions: [.request], consent: .none, expiresAt: nil)
        #expect(try vault.appTokens.revoke(id: revoked.record.id))
        #expect(try vault.appTokens.revoke(id: revoked.record.id) == false)
        #expect(message { _ = try vault.appTokens.authenticate(revoked.token) }.contains("not valid"))
    }

    @Test("an expired token reads nothing ahead: no facade is made for it, so no verdict or credential is read")
    func expiredTokenReadsNothingAhead() async throws {
        let expiring = try vault.appTokens.create(
            app: app, permissions: [.request], consent: .none, expiresAt: now.addingTimeInterval(60), now: now)
        let facadesMade = FacadeCount()
        let prefetch = AppTokenStore.RequestPrefetch(domain: try DomainTarget("shop.example"), account: nil) {
            [vault] record in
            facadesMade.add()
            return SharedWebCredentials(app: record.app, vault: vault, verifier: nil)
        }
        let valid = try await vault.appTokens.authenticate(
            expiring.token, now: now.addingTimeInterval(59), prefetching: prefetch)
        #expect(valid.prefetched != nil, "a valid token reads ahead")
        #expect(facadesMade.value == 1)
        await #expect(throws: SharedWebCredentialsError.self) {
            _ = try await vault.appTokens.authenticate(
                expiring.token, now: now.addingTimeInterval(60), prefetching: prefetch)
        }
        #expect(facadesMade.value == 1, "the expired token's request made a facade and read ahead")
    }

    @Test(
        "a token's app's stored verdicts are read with the token, in its transaction: its own app's only; none for an expired token"
    )
    func verdictsReadWithToken() async throws {
        try VaultTestSupport.approve(app, for: ["webcredentials:shop.example"], in: vault)
        try VaultTestSupport.approve(
            otherApp, for: ["webcredentials:shop.example", "webcredentials:other.example"], in: vault)
        let expiring = try vault.appTokens.create(
            app: app, permissions: [.request], consent: .none, expiresAt: now.addingTimeInterval(60), now: now)
        let read = try await vault.appTokens.authenticateReadingVerdicts(expiring.token, now: now)
        #expect(read.record.app == app)
        #expect(read.verdicts.map(\.app) == [app])
        #expect(read.verdicts.map(\.domain) == ["shop.example"])
        await #expect(throws: SharedWebCredentialsError.self, "an expired token gets no verdicts") {
            _ = try await vault.appTokens.authenticateReadingVerdicts(expiring.token, now: now.addingTimeInterval(60))
        }
        let wrong = AppTokenFormat.encode(SecureBytes.random(count: 32))
        await #expect(throws: SharedWebCredentialsError.self, "an unknown token gets no verdicts") {
            _ = try await vault.appTokens.authenticateReadingVerdicts(wrong, now: now)
        }
    }

    @Test("creation refuses an unregistered app, no permission, a past expiry; lists refuse unknown permissions")
    func creationInput() throws {
        let stranger = try ApplicationIdentifier("QQQQQ11111.com.example.unknown")
        #expect(
            code {
                _ = try vault.appTokens.create(app: stranger, permissions: [.request], consent: .none, expiresAt: nil)
            }
                == .missingEntitlement)
        #expect(
            code { _ = try vault.appTokens.create(app: app, permissions: [], consent: .none, expiresAt: nil) }
                == .invalidInput)
        #expect(
            code {
                _ = try vault.appTokens.create(app: app, permissions: [.add], consent: .none, expiresAt: now, now: now)
            } == .invalidInput)
        #expect(try AppPermission.parseList("generate,request") == [.request, .generate])
        #expect(try AppPermission.parseList(" request ,\tadd") == [.request, .add], "a typed list may have spaces")
        #expect(message { _ = try AppPermission.parseList("request,\nadd") }.contains("unknown permission \"\nadd\""))
        #expect(message { _ = try AppPermission.parseList("request,admin") }.contains("unknown permission \"admin\""))
        #expect(message { _ = try AppPermission.parseList("add,add") }.contains("given twice"))
        #expect(message { _ = try AppPermission.parseList("") }.contains("unknown permission \"\""))
    }

    @Test("removing the app revokes its tokens; rotating the vault key revokes every token")
    func revokedWithAppAndRotation() throws {
        let mine = try vault.appTokens.create(app: app, permissions: [.request], consent: .none, expiresAt: nil)
        let theirs = try vault.appTokens.create(app: otherApp, permissions: [.request], consent: .none, expiresAt: nil)
        try vault.apps.remove(app)
        #expect(code { _ = try vault.appTokens.authenticate(mine.token) } == .vaultLocked)
        #expect(try vault.appTokens.authenticate(theirs.token).app == otherApp)
        #expect(try vault.rotateKey() == KeyRotation(revokedAppTokens: 1, revokedBrowsers: 0))
        #expect(code { _ = try vault.appTokens.authenticate(theirs.token) } == .vaultLocked)
        #expect(try vault.appTokens.list().isEmpty)
    }

    @Test(
        "editing a token row in the file (id, app, permissions, consent, expiry, hash) fails closed as an integrity failure"
    )
    func tamperedRows() throws {
        let edits = [
            "UPDATE app_tokens SET app = 'ZZZZZ99999.com.example.other'",
            "UPDATE app_tokens SET permissions = 'request,add,delete,generate'",
            "UPDATE app_tokens SET consent = 'none'",
            "UPDATE app_tokens SET expires_at = NULL",
            "UPDATE app_tokens SET created_at = created_at + 1",
            "UPDATE app_tokens SET permissions = 'generate,request'",
            // Renamed, `app token revoke` of the leaked token's id would remove another token.
            "UPDATE app_tokens SET id = '0123456789abcdef'",
        ]
        for edit in edits {
            try vault.database.write { db in try db.execute(sql: "DELETE FROM app_tokens") }
            let issued = try vault.appTokens.create(
                app: app, permissions: [.request, .generate], consent: .ask, expiresAt: now.addingTimeInterval(3600),
                now: now)
            try VaultTestSupport.rawDatabase(vault.path).write { db in try db.execute(sql: edit) }
            #expect(
                code { _ = try vault.appTokens.authenticate(issued.token, now: now) } == .integrityFailure, "\(edit)")
            #expect(code { _ = try vault.appTokens.list() } == .integrityFailure, "\(edit)")
        }
        // A row made by someone without the vault key: the hash of a token they chose, any MAC.
        try vault.database.write { db in try db.execute(sql: "DELETE FROM app_tokens") }
        let forged = AppTokenFormat.encode(SecureBytes.random(count: 32))
        let issued = try vault.appTokens.create(app: app, permissions: [.request], consent: .none, expiresAt: nil)
        try VaultTestSupport.rawDatabase(vault.path).write { db in
            try db.execute(sql: "UPDATE app_tokens SET token_hash = zeroblob(32)")
        }
        #expect(code { _ = try vault.appTokens.authenticate(issued.token) } == .vaultLocked)
        #expect(code { _ = try vault.appTokens.authenticate(forged) } == .vaultLocked)
        #expect(code { _ = try vault.appTokens.list() } == .integrityFailure)
    }

    @Test("base64url encoding round-trips and rejects non-zero padding bits")
    func encoding() throws {
        for _ in 0..<50 {
            let random = SecureBytes.random(count: 32)
            let decoded = try #require(AppTokenFormat.decode(AppTokenFormat.encode(random)))
            #expect(decoded.isEqual(to: random))
        }
        let zero = SecureBytes(copying: [UInt8](repeating: 0, count: 32))
        let text = AppTokenFormat.encode(zero).exposedString()
        #expect(text == "swcred_" + String(repeating: "A", count: 43))
        #expect(AppTokenFormat.decode(SecureBytes(utf8: "swcred_" + String(repeating: "A", count: 42) + "B")) == nil)
        #expect(AppTokenFormat.decode(SecureBytes(utf8: "swcred_" + String(repeating: "A", count: 42) + "E")) != nil)
    }
}

/// How many facades a read-ahead plan made, from whichever thread made them.
private final class FacadeCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
