import Foundation
import Testing

@testable import SwcredBrowser

private let entryID = "0123456789abcdef0123456789abcdef"
private let otpauth = "otpauth://totp/Example:alice?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=Example&digits=8"

/// An engine over a vault with one login for example.com, and a client that has exchanged keys.
private func connected() async throws -> (BrowserProtocolEngine, MemoryVault, ExtensionClient) {
    let vault = MemoryVault()
    await vault.add(.init(uuid: entryID, host: "example.com", login: "alice", password: "pw-example", otpauth: otpauth))
    await vault.add(
        .init(uuid: "fedcba9876543210fedcba9876543210", host: "other.test", login: "bob", password: "pw-other"))
    let engine = BrowserProtocolEngine(vault: vault)
    let client = ExtensionClient()
    try await client.exchangeKeys(with: engine)
    return (engine, vault, client)
}

/// The same, with the client associated through `associate`.
private func associated() async throws -> (BrowserProtocolEngine, MemoryVault, ExtensionClient) {
    let (engine, vault, client) = try await connected()
    let exchange = await client.associate(with: engine)
    #expect(exchange.outcome.refusal == nil)
    return (engine, vault, client)
}

@Suite("Protocol engine: the actions")
struct BrowserProtocolEngineTests {
    @Test("get-databasehash answers the vault's hash, encrypted, before any association")
    func databaseHash() async throws {
        let (engine, _, client) = try await connected()
        let exchange = await client.send("get-databasehash", to: engine)
        #expect(exchange.outcome.refusal == nil)
        #expect(exchange.message?["hash"] as? String == "5f2d0c6e1a")
        #expect(exchange.reply?["action"] as? String == "get-databasehash")
    }

    @Test("associate: the owner approves, the id comes back, and the session may get logins")
    func associateThenLogins() async throws {
        let (engine, vault, client) = try await connected()
        let exchange = await client.associate(with: engine)
        #expect(exchange.message?["id"] as? String == "Firefox on this machine")
        #expect(exchange.message?["hash"] as? String == "5f2d0c6e1a")
        #expect(await vault.associations["Firefox on this machine"] == client.identificationKey.publicKeyBase64)

        let logins = await client.send(
            "get-logins", ["url": "https://example.com/login", "submitUrl": "https://example.com/session"], to: engine)
        #expect(logins.outcome.refusal == nil)
        #expect(logins.message?["count"] as? Int == 1)
        let entries = try #require(logins.message?["entries"] as? [[String: Any]])
        #expect(entries.first?["login"] as? String == "alice")
        #expect(entries.first?["password"] as? String == "pw-example")
        #expect(entries.first?["uuid"] as? String == entryID)
        #expect(entries.first?["totp"] != nil)
        #expect(entries.first?["totp"] as? String != otpauth, "the otpauth secret stays in the vault")
    }

    @Test("test-associate in a new session proves a saved association; a wrong key or id does not")
    func testAssociate() async throws {
        let (engine, vault, first) = try await associated()
        let second = ExtensionClient()
        try await second.exchangeKeys(with: engine)
        let wrongKey = await second.testAssociate(
            with: engine, id: first.associationID, key: ClientKeys().publicKeyBase64)
        #expect(wrongKey.errorCode == "8")
        #expect(wrongKey.outcome.refusal == .associationNotRecognized)
        let wrongID = await second.testAssociate(
            with: engine, id: "someone else", key: first.identificationKey.publicKeyBase64)
        #expect(wrongID.outcome.refusal == .associationNotRecognized)
        #expect(await second.send("get-logins", ["url": "https://example.com"], to: engine).errorCode == "8")

        let proven = await second.testAssociate(
            with: engine, id: first.associationID, key: first.identificationKey.publicKeyBase64)
        #expect(proven.outcome.refusal == nil)
        #expect(proven.message?["id"] as? String == first.associationID)
        let logins = await second.send("get-logins", ["url": "https://other.test/"], to: engine)
        #expect((logins.message?["entries"] as? [[String: Any]])?.first?["login"] as? String == "bob")
        #expect(await engine.association(ofClient: second.clientID) == first.associationID)
        _ = vault
    }

    @Test("set-login saves a new login and updates one by its id")
    func setLogin() async throws {
        let (engine, vault, client) = try await associated()
        let created = await client.send(
            "set-login",
            [
                "url": "https://new.example/signup", "submitUrl": "https://new.example/signup", "login": "carol",
                "password": "s3cret", "id": client.associationID ?? "",
            ], to: engine)
        #expect(created.outcome.refusal == nil)
        #expect(created.message?["error"] as? String == "success")
        #expect(
            await vault.entries.contains { $0.host == "new.example" && $0.login == "carol" && $0.password == "s3cret" })

        let updated = await client.send(
            "set-login", ["url": "https://example.com", "login": "alice", "password": "changed", "uuid": entryID],
            to: engine)
        #expect(updated.outcome.refusal == nil)
        #expect(await vault.entries.first { $0.uuid == entryID }?.password == "changed")
    }

    @Test("generate-password answers a password; get-totp the entry's current code")
    func generateAndTOTP() async throws {
        let (engine, vault, client) = try await associated()
        let generated = await client.send("generate-password", to: engine, requestID: "a1b2c3d4")
        #expect((generated.message?["password"] as? String)?.hasPrefix("xkcd-") == true)

        let totp = await client.send("get-totp", ["uuid": entryID], to: engine)
        let expected = try TOTP(uri: otpauth).code(atUnixTime: await vault.now)
        #expect(totp.message?["totp"] as? String == expected)
        #expect(expected == "07081804", "RFC 6238's SHA-1 vector at T=1111111109")
    }

    @Test("lock-database locks the vault; the next get-logins says the database is not open")
    func lock() async throws {
        let (engine, vault, client) = try await associated()
        let locked = await client.send("lock-database", to: engine)
        #expect(locked.outcome.refusal == nil)
        #expect(locked.message?["success"] as? String == "true")
        #expect(await vault.locked)
        let after = await client.send("get-logins", ["url": "https://example.com"], to: engine)
        #expect(after.errorCode == "1")
        #expect(after.reply?["error"] as? String == "Database not opened")
        #expect(after.outcome.refusal == .vault(.locked))
    }

    @Test("the unsolicited notices are the bare action")
    func notices() {
        #expect(
            String(decoding: BrowserProtocolEngine.notice(.databaseLocked), as: UTF8.self)
                == #"{"action":"database-locked"}"#)
        #expect(
            String(decoding: BrowserProtocolEngine.notice(.databaseUnlocked), as: UTF8.self)
                == #"{"action":"database-unlocked"}"#)
    }

    @Test("error codes and texts are KeePassXC 2.7.4's")
    func errorTexts() {
        #expect(BrowserErrorCode.allCases.map(\.rawValue) == Array(1...18))
        #expect(BrowserErrorCode.associationFailed.text == "KeePassXC association failed, try again")
        #expect(BrowserErrorCode.cannotEncryptMessage.text == "Message encryption failed.")
        #expect(BrowserErrorCode.noValidUUIDProvided.text == "No valid UUID provided")
        #expect(BrowserErrorCode.keyChangeFailed.text == "Unknown error")
    }
}

@Suite("Protocol engine: every refusal")
struct BrowserProtocolEngineRefusalTests {
    @Test("an action before change-public-keys: client public key not received")
    func beforeKeyExchange() async throws {
        let engine = BrowserProtocolEngine(vault: MemoryVault())
        let client = ExtensionClient()
        client.hostPublicKey = ClientKeys().publicKey
        let exchange = await client.send("get-databasehash", to: engine)
        #expect(exchange.errorCode == "3")
        #expect(exchange.reply?["error"] as? String == "Client public key not received")
        #expect(exchange.outcome.refusal == .noKeyExchange(action: "get-databasehash"))
    }

    @Test(
        "an unassociated client gets nothing but the hash and the association request",
        arguments: [
            ("get-logins", ["url": "https://example.com"]),
            ("set-login", ["url": "https://example.com", "login": "x", "password": "y"]),
            ("generate-password", [:]), ("get-totp", ["uuid": entryID]), ("lock-database", [:]),
        ] as [(String, [String: String])])
    func unassociated(action: String, payload: [String: String]) async throws {
        let (engine, vault, client) = try await connected()
        let exchange = await client.send(action, payload, to: engine)
        #expect(exchange.errorCode == "8")
        #expect(exchange.outcome.refusal == .notAssociated(action: action))
        #expect(exchange.message == nil)
        #expect(await vault.calls.isEmpty, "the vault was not asked anything")
    }

    @Test("an association the owner declines: cancelled or denied, and still nothing released")
    func declined() async throws {
        let (engine, vault, client) = try await connected()
        await vault.setOwnerAnswer(nil)
        let exchange = await client.associate(with: engine)
        #expect(exchange.errorCode == "6")
        #expect(exchange.outcome.refusal == .vault(.denied))
        #expect(await client.send("get-logins", ["url": "https://example.com"], to: engine).errorCode == "8")
    }

    @Test("associate with another key than the session's is refused before the owner is asked")
    func associateWithAnotherKey() async throws {
        let (engine, vault, client) = try await connected()
        let exchange = await client.send(
            "associate", ["key": ClientKeys().publicKeyBase64, "idKey": client.identificationKey.publicKeyBase64],
            to: engine)
        #expect(exchange.errorCode == "8")
        #expect(exchange.outcome.refusal == .sessionKeyMismatch)
        #expect(await vault.calls.contains("associate") == false)
    }

    @Test("associate with an idKey that is not a 32-byte base64 key")
    func associateBadIdentificationKey() async throws {
        let (engine, _, client) = try await connected()
        let notBase64 = await client.send("associate", ["key": client.keys.publicKeyBase64, "idKey": "@@"], to: engine)
        #expect(notBase64.outcome.refusal == .request(.invalidValue(field: "idKey", reason: "is not valid base64")))
        #expect(notBase64.errorCode == "8")
        let short = await client.send(
            "associate", ["key": client.keys.publicKeyBase64, "idKey": Data(count: 8).base64EncodedString()], to: engine
        )
        #expect(
            short.outcome.refusal
                == .request(.invalidValue(field: "idKey", reason: "must be a 32-byte key, not 8 bytes")))
    }

    @Test("a revoked association stops at its next request, and the session forgets it")
    func revoked() async throws {
        let (engine, vault, client) = try await associated()
        await vault.revoke(try #require(client.associationID))
        let exchange = await client.send("get-logins", ["url": "https://example.com"], to: engine)
        #expect(exchange.errorCode == "8")
        #expect(exchange.outcome.refusal == .vault(.notAssociated))
        #expect(await engine.association(ofClient: client.clientID) == nil)
        let again = await client.send("get-totp", ["uuid": entryID], to: engine)
        #expect(again.outcome.refusal == .notAssociated(action: "get-totp"))
    }

    @Test("a session hands the vault the key it proved, so another browser approved under its name does not revive it")
    func revokedThenSameName() async throws {
        let (engine, vault, client) = try await associated()
        let name = try #require(client.associationID)
        await vault.revoke(name)
        await vault.store(name, identificationKey: ClientKeys().publicKeyBase64)
        let exchange = await client.send("get-logins", ["url": "https://example.com"], to: engine)
        #expect(exchange.outcome.refusal == .vault(.notAssociated))
        #expect(await engine.association(ofClient: client.clientID) == nil)
    }

    @Test("a new key exchange ends the session's association")
    func rekeyEndsAssociation() async throws {
        let (engine, _, client) = try await associated()
        try await client.exchangeKeys(with: engine)
        #expect(await client.send("get-logins", ["url": "https://example.com"], to: engine).errorCode == "8")
    }

    @Test("a replayed request is refused and reaches the vault once")
    func replay() async throws {
        let (engine, vault, client) = try await associated()
        let first = await client.send("get-logins", ["url": "https://example.com"], to: engine)
        #expect(first.outcome.refusal == nil)
        let replayed = await client.deliver(first.sent, nonce: nil, to: engine)
        #expect(replayed.errorCode == "4")
        #expect(replayed.outcome.refusal == .crypto(.nonceReused))
        #expect(await vault.calls.filter { $0 == "logins" }.count == 1)
    }

    @Test("the host's reply sent back to it as a request is refused")
    func reflection() async throws {
        let (engine, _, client) = try await associated()
        let first = await client.send("get-databasehash", to: engine)
        var reflected = try #require(first.reply)
        reflected["clientID"] = client.clientID
        let exchange = await client.deliver(json(reflected), nonce: nil, to: engine)
        #expect(exchange.outcome.refusal == .crypto(.nonceReused))
    }

    @Test("bad base64, a wrong-length nonce and a changed box: cannot decrypt message")
    func badCrypto() async throws {
        let (engine, _, client) = try await connected()
        let nonce = BrowserNonce.random().base64
        let cases: [([String: Any], BrowserRefusal)] = [
            (["message": "!!not base64!!", "nonce": nonce], .crypto(.malformedBase64(field: "message"))),
            (
                ["message": Data(count: 40).base64EncodedString(), "nonce": "@@@"],
                .crypto(.malformedBase64(field: "nonce"))
            ),
            (
                ["message": Data(count: 40).base64EncodedString(), "nonce": Data(count: 12).base64EncodedString()],
                .crypto(.wrongLength(field: "nonce", expected: 24, actual: 12))
            ),
            (["message": Data(count: 40).base64EncodedString(), "nonce": nonce], .crypto(.authenticationFailed)),
            (
                ["message": Data(count: 5).base64EncodedString(), "nonce": nonce],
                .crypto(.ciphertextTooShort(length: 5))
            ),
            (["nonce": nonce], .envelope(.missingField("message"))),
            (["message": 12, "nonce": nonce], .envelope(.wrongType(field: "message", expected: "a string"))),
            (["message": Data(count: 40).base64EncodedString()], .envelope(.missingField("nonce"))),
        ]
        for (fields, refusal) in cases {
            var envelope: [String: Any] = ["action": "get-databasehash", "clientID": client.clientID]
            envelope.merge(fields) { $1 }
            let exchange = await client.deliver(json(envelope), nonce: nil, to: engine)
            #expect(exchange.outcome.refusal == refusal)
            #expect(exchange.errorCode == "4")
            #expect(exchange.reply?["error"] as? String == "Cannot decrypt message")
        }
    }

    @Test("outer JSON that is not a message: KeePassXC's silence, empty-message and incorrect-action replies")
    func badEnvelope() async throws {
        let (engine, _, client) = try await connected()
        let silent: [(String, BrowserRefusal)] = [
            ("{\"action\": ", .envelope(.malformedJSON(reason: "not valid JSON"))),
            ("[1, 2]", .envelope(.notAnObject)),
            ("\"change-public-keys\"", .envelope(.notAnObject)),
            (#"{"action":"get-databasehash"}"#, .envelope(.missingField("clientID"))),
            (
                #"{"action":"get-databasehash","clientID":7}"#,
                .envelope(.wrongType(field: "clientID", expected: "a string"))
            ),
            (#"{"action":"get-databasehash","clientID":""}"#, .envelope(.missingField("clientID"))),
        ]
        for (text, refusal) in silent {
            let outcome = await engine.handle(Array(text.utf8))
            #expect(outcome.reply == nil, "no reply to \(text)")
            if case .envelope(.malformedJSON) = refusal {
                guard case .envelope(.malformedJSON) = outcome.refusal else {
                    Issue.record("\(text) refused as \(String(describing: outcome.refusal))")
                    continue
                }
            } else {
                #expect(outcome.refusal == refusal)
            }
        }
        let empty = await engine.handle(Array("{}".utf8))
        #expect(object(empty.reply)?["errorCode"] as? String == "13")
        #expect(empty.refusal == .emptyMessage)
        let noAction = await engine.handle(json(["clientID": client.clientID]))
        #expect(object(noAction.reply)?["errorCode"] as? String == "12")
        #expect(noAction.refusal == .envelope(.missingField("action")))
        let numberAction = await engine.handle(json(["action": 3, "clientID": client.clientID]))
        #expect(numberAction.refusal == .envelope(.wrongType(field: "action", expected: "a string")))
        #expect(object(numberAction.reply)?["errorCode"] as? String == "12")
    }

    @Test(
        "an action this host does not answer: incorrect action, the action echoed",
        arguments: [
            "get-database-groups", "create-new-group", "delete-entry", "request-autotype", "database-locked", "bogus",
        ])
    func unknownAction(action: String) async throws {
        let (engine, vault, client) = try await associated()
        let exchange = await client.send(action, to: engine, requestID: "r1")
        #expect(exchange.errorCode == "12")
        #expect(exchange.reply?["error"] as? String == "Incorrect action")
        #expect(exchange.reply?["action"] as? String == action)
        #expect(exchange.reply?["requestID"] as? String == "r1")
        #expect(exchange.outcome.refusal == .unknownAction(action))
        #expect(await vault.calls == ["databaseHash", "associate"])
    }

    @Test("an unknown action's name is escaped and cut in the refusal")
    func unknownActionDisplayed() async throws {
        let (engine, _, client) = try await connected()
        let name = "\u{1b}[31m" + String(repeating: "a", count: 100)
        let exchange = await client.send(name, to: engine)
        guard case .unknownAction(let shown) = exchange.outcome.refusal else {
            Issue.record("refused as \(String(describing: exchange.outcome.refusal))")
            return
        }
        #expect(!shown.contains("\u{1b}"))
        #expect(shown.count < 80)
    }

    @Test("a decrypted message that is not JSON, names another action or none")
    func badInnerMessage() async throws {
        let (engine, _, client) = try await associated()
        let notJSON = await client.send("get-logins", to: engine, rawInner: Array("url=https://example.com".utf8))
        #expect(notJSON.errorCode == "4")
        guard case .request(.malformedJSON) = notJSON.outcome.refusal else {
            Issue.record("refused as \(String(describing: notJSON.outcome.refusal))")
            return
        }
        let array = await client.send("get-logins", to: engine, rawInner: Array("[]".utf8))
        #expect(array.outcome.refusal == .request(.notAnObject))
        let mismatch = await client.send(
            "get-logins", ["url": "https://example.com"], to: engine, innerAction: "lock-database")
        #expect(mismatch.errorCode == "12")
        #expect(mismatch.outcome.refusal == .actionMismatch(envelope: "get-logins"))
        // An inner message that names no action, or not as text, is refused the same way, and the
        // reply names the envelope's action, not the request's id.
        for inner in [#"{"url":"https://example.com"}"#, #"{"action":7,"url":"https://example.com"}"#] {
            let unnamed = await client.send(
                "get-logins", to: engine, requestID: "request-7", rawInner: Array(inner.utf8))
            #expect(unnamed.errorCode == "12", "\(inner)")
            #expect(unnamed.outcome.refusal == .actionMismatch(envelope: "get-logins"), "\(inner)")
            #expect(unnamed.reply?["action"] as? String == "get-logins", "\(inner)")
        }
    }

    @Test("a failure of the store under the vault releases nothing and answers the request, by its id, as not done")
    func storeFailure() async throws {
        let (engine, vault, client) = try await associated()
        await vault.add(.init(uuid: "u1", host: "example.com", login: "alice", password: "store-failure-pw"))
        await vault.failStore()
        let exchange = await client.send(
            "get-logins", ["url": "https://example.com/"], to: engine, requestID: "request-9")
        #expect(exchange.outcome.refusal == .vault(.denied))
        #expect(exchange.reply?["action"] as? String == "get-logins")
        #expect(exchange.reply?["requestID"] as? String == "request-9")
        #expect(!String(decoding: exchange.outcome.reply ?? [], as: UTF8.self).contains("store-failure-pw"))
    }

    @Test("get-logins: no URL, a URL of the wrong type, a bad httpAuth, no match")
    func getLoginsRefusals() async throws {
        let (engine, _, client) = try await associated()
        let missing = await client.send("get-logins", [:], to: engine)
        #expect(missing.errorCode == "14")
        #expect(missing.reply?["error"] as? String == "No URL provided")
        #expect(missing.outcome.refusal == .request(.missingField("url")))
        let number = await client.send("get-logins", ["url": 42], to: engine)
        #expect(number.outcome.refusal == .request(.wrongType(field: "url", expected: "a string")))
        #expect(number.errorCode == "14")
        let auth = await client.send("get-logins", ["url": "https://example.com", "httpAuth": "yes"], to: engine)
        #expect(
            auth.outcome.refusal == .request(.invalidValue(field: "httpAuth", reason: "must be \"true\" or \"false\"")))
        #expect(auth.errorCode == "12")
        let keys = await client.send("get-logins", ["url": "https://example.com", "keys": "all"], to: engine)
        #expect(keys.outcome.refusal == .request(.wrongType(field: "keys", expected: "an array of objects")))
        let none = await client.send("get-logins", ["url": "https://nothing.example"], to: engine)
        #expect(none.errorCode == "15")
        #expect(none.reply?["error"] as? String == "No logins found")
        #expect(none.outcome.refusal == .noLogins)
    }

    @Test("set-login and get-totp: an id that is not a UUID, or one the vault does not have")
    func uuidRefusals() async throws {
        let (engine, vault, client) = try await associated()
        for bad in ["xyz", String(repeating: "0", count: 32), entryID + "00", "0123456789abcdef0123456789abcdeg"] {
            let set = await client.send(
                "set-login", ["url": "https://example.com", "login": "a", "password": "b", "uuid": bad], to: engine)
            #expect(set.errorCode == "18")
            #expect(
                set.outcome.refusal
                    == .request(.invalidValue(field: "uuid", reason: "must be 32 hexadecimal digits, not all zero")))
            let totp = await client.send("get-totp", ["uuid": bad], to: engine)
            #expect(totp.errorCode == "18")
        }
        #expect(await vault.calls.contains("setLogin") == false)
        let unknown = "abcdefabcdefabcdefabcdefabcdefab"
        let update = await client.send(
            "set-login", ["url": "https://example.com", "login": "a", "password": "b", "uuid": unknown], to: engine)
        #expect(update.outcome.refusal == .vault(.unknownEntry))
        #expect(update.errorCode == "18")
        let totp = await client.send("get-totp", ["uuid": "fedcba9876543210fedcba9876543210"], to: engine)
        #expect(totp.outcome.refusal == .vault(.unknownEntry), "an entry without a TOTP secret")
        let missingPassword = await client.send("set-login", ["url": "https://example.com", "login": "a"], to: engine)
        #expect(missingPassword.outcome.refusal == .request(.missingField("password")))
    }

    @Test("a locked vault: get-databasehash says the database is not open, as the extension expects")
    func lockedHash() async throws {
        let (engine, vault, client) = try await connected()
        _ = await client.associate(with: engine)
        _ = await client.send("lock-database", to: engine)
        #expect(await vault.locked)
        let exchange = await client.send("get-databasehash", to: engine)
        #expect(exchange.errorCode == "1")
        #expect(exchange.outcome.refusal == .vault(.locked))
    }

    @Test("an association approved after the client exchanged keys again does not carry into the new session")
    func approvalAfterRekey() async throws {
        let (engine, vault, client) = try await connected()
        await vault.holdApprovals()
        let pending = Task { await client.associate(with: engine) }
        while !(await vault.isWaitingForApproval) { await Task.yield() }
        // The same clientID, a new key pair: what a process that learnt the clientID would do.
        let intruder = ExtensionClient(clientID: client.clientID)
        try await intruder.exchangeKeys(with: engine)
        await vault.releaseApproval()
        let answered = await pending.value
        #expect(answered.errorCode == "7", "the first session is gone, so its reply cannot be sealed")
        #expect(answered.outcome.refusal == .crypto(.sessionClosed))
        #expect(await engine.association(ofClient: client.clientID) == nil)
        let logins = await intruder.send("get-logins", ["url": "https://example.com"], to: engine)
        #expect(logins.errorCode == "8")
        #expect(logins.outcome.refusal == .notAssociated(action: "get-logins"))
    }

    @Test("a vault with no hash: database hash not available")
    func noHash() async throws {
        let (engine, vault, client) = try await connected()
        await vault.setHash("")
        let exchange = await client.send("get-databasehash", to: engine)
        #expect(exchange.errorCode == "2")
        #expect(exchange.outcome.refusal == .noDatabaseHash)
    }

    @Test("generate-password refused: the requestID comes back so the extension can match it")
    func requestIDOnError() async throws {
        let (engine, _, client) = try await connected()
        let exchange = await client.send("generate-password", to: engine, requestID: "5e1f00aa")
        #expect(exchange.errorCode == "8")
        #expect(exchange.reply?["requestID"] as? String == "5e1f00aa")
        #expect(exchange.reply?["nonce"] == nil)
    }

    @Test("change-public-keys without a key, with a malformed key or a malformed nonce")
    func keyExchangeRefusals() async throws {
        let engine = BrowserProtocolEngine(vault: MemoryVault())
        let nonce = BrowserNonce.random().base64
        let cases: [([String: Any], String, BrowserRefusal)] = [
            (["nonce": nonce], "3", .keyExchange(.missingField("publicKey"))),
            (["publicKey": "", "nonce": nonce], "3", .keyExchange(.missingField("publicKey"))),
            (["publicKey": ClientKeys().publicKeyBase64], "3", .keyExchange(.missingField("nonce"))),
            (
                ["publicKey": "###", "nonce": nonce], "10",
                .keyExchange(.invalidValue(field: "publicKey", reason: "publicKey is not valid base64"))
            ),
            (
                ["publicKey": Data(count: 33).base64EncodedString(), "nonce": nonce], "10",
                .keyExchange(.invalidValue(field: "publicKey", reason: "publicKey decodes to 33 bytes; it must be 32"))
            ),
            (
                ["publicKey": ClientKeys().publicKeyBase64, "nonce": "AAAA"], "3",
                .keyExchange(.invalidValue(field: "nonce", reason: "nonce decodes to 3 bytes; it must be 24"))
            ),
        ]
        for (fields, code, refusal) in cases {
            var envelope: [String: Any] = ["action": "change-public-keys", "clientID": "c1"]
            envelope.merge(fields) { $1 }
            let outcome = await engine.handle(json(envelope))
            #expect(object(outcome.reply)?["errorCode"] as? String == code, "\(refusal)")
            #expect(outcome.refusal == refusal)
        }
    }

    @Test("eight clients on one connection keep their sessions; a ninth drops the oldest only")
    func clientLimit() async throws {
        let engine = BrowserProtocolEngine(vault: MemoryVault())
        var clients: [ExtensionClient] = []
        func exchangeKeys() async throws {
            let client = ExtensionClient()
            try await client.exchangeKeys(with: engine)
            clients.append(client)
        }
        // The number is the documented one, not the constant: a changed limit must fail here.
        for _ in 0..<8 { try await exchangeKeys() }
        for client in clients { #expect(await client.send("get-databasehash", to: engine).outcome.refusal == nil) }
        try await exchangeKeys()
        #expect(
            await clients[0].send("get-databasehash", to: engine).outcome.refusal
                == .noKeyExchange(action: "get-databasehash"))
        for client in clients.dropFirst() {
            #expect(await client.send("get-databasehash", to: engine).outcome.refusal == nil)
        }
    }

    @Test("refusal descriptions name the problem and never the secret that was sent")
    func descriptionsCarryNoSecrets() async throws {
        let (engine, _, client) = try await associated()
        let secret = "hunter2-very-secret"
        let exchange = await client.send("set-login", ["url": 5, "login": "a", "password": secret], to: engine)
        let text = try #require(exchange.outcome.refusal).description
        #expect(text == "refused the request: url must be a string")
        #expect(!String(decoding: exchange.outcome.reply ?? [], as: UTF8.self).contains(secret))
    }
}
