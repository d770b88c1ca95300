import CSodium
import Foundation
import SwcredPlatform

/// What the engine did with one message: the reply to send back (if any) and, when it refused,
/// why.
public struct BrowserEngineOutcome: Sendable {
    /// The reply's JSON, to frame and send; `nil` when KeePassXC would send nothing (a message
    /// that is not JSON, or has no `clientID`).
    public let reply: [UInt8]?
    /// Why the message was refused; `nil` when it was answered.
    public let refusal: BrowserRefusal?
}

/// The KeePassXC-Browser protocol for one connection (one browser's native-messaging host, or one
/// proxy on the browser socket): the key exchange, decryption, the association rule, and the
/// replies as KeePassXC 2.7.4 writes them, over a ``BrowserVaultBridge`` that holds the vault.
///
/// Sessions are per `clientID`, as in KeePassXC: each `change-public-keys` makes a fresh host key
/// pair for its client. A client that has not proven an association in its session (through
/// `associate` or `test-associate`) gets only `change-public-keys`, `get-databasehash`,
/// `associate` and `test-associate`; anything else is ``BrowserErrorCode/associationFailed``
/// before its message is even decrypted. (KeePassXC lets an unassociated client lock the
/// database and generate passwords; this host does not.)
///
/// Messages are handled one at a time: a caller awaits each ``handle(_:)`` before the next.
public actor BrowserProtocolEngine {
    /// The KeePassXC version the host reports; the extension enables features by it, and 2.7.4
    /// is the protocol this engine follows.
    public static let protocolVersion = "2.7.4"
    /// How many client sessions one connection keeps; the oldest is dropped past that.
    public static let maximumClients = 8

    private struct Client {
        let crypto: BrowserCryptoSession
        var association: BrowserSessionAssociation?
    }

    private let vault: any BrowserVaultBridge
    private let peerPID: Int32?
    private var clients: [String: Client] = [:]
    private var clientOrder: [String] = []

    /// An engine whose vault side is `vault`; `peerPID` is the process on the other end of the
    /// connection (`SO_PEERCRED`), described to the owner when it asks for an association.
    public init(vault: any BrowserVaultBridge, peerPID: Int32? = nil) {
        self.vault = vault
        self.peerPID = peerPID
    }

    /// The unsolicited notice that the vault locked: `{"action":"database-locked"}`.
    public static func notice(_ action: BrowserAction) -> [UInt8] {
        precondition(action == .databaseLocked || action == .databaseUnlocked, "\(action) is no notice")
        return BrowserJSONWriter.data(["action": .string(action.rawValue)])
    }

    /// Whether a key exchange (`change-public-keys`) has made a session on this connection.
    public var hasSession: Bool { !clients.isEmpty }

    /// The association proven in the session of `clientID`, if any (for the service's records).
    public func association(ofClient clientID: String) -> String? {
        clients[clientID]?.association?.id
    }

    /// Answers one message from the browser (its JSON, unframed).
    public func handle(_ message: [UInt8]) async -> BrowserEngineOutcome {
        let envelope: BrowserJSONObject
        do {
            envelope = try BrowserJSONObject(parsing: message)
        } catch {
            return refuse(.envelope(error), action: "")
        }
        if envelope.isEmpty { return refuse(.emptyMessage, action: "") }
        let requestID = (try? envelope.optionalString("requestID")) ?? nil
        let actionName: String
        do {
            actionName = try envelope.string("action")
        } catch {
            return refuse(.envelope(error), action: "", requestID: requestID)
        }
        if actionName.isEmpty { return refuse(.envelope(.missingField("action")), action: "", requestID: requestID) }
        let clientID: String
        do {
            clientID = try envelope.string("clientID")
        } catch {
            return refuse(.envelope(error), action: actionName)
        }
        if clientID.isEmpty { return refuse(.envelope(.missingField("clientID")), action: actionName) }
        guard let action = BrowserAction(rawValue: actionName), action.isRequest else {
            return refuse(
                .unknownAction(BrowserRefusal.displayed(actionName)), action: actionName, requestID: requestID)
        }
        if action == .changePublicKeys {
            return changePublicKeys(envelope, clientID: clientID)
        }
        guard let client = clients[clientID] else {
            return refuse(.noKeyExchange(action: actionName), action: actionName, requestID: requestID)
        }
        if !action.isAllowedBeforeAssociation && client.association == nil {
            return refuse(.notAssociated(action: actionName), action: actionName, requestID: requestID)
        }
        let nonce: BrowserNonce
        let encrypted: String
        do {
            let nonceText = try envelope.string("nonce")
            encrypted = try envelope.string("message")
            do {
                nonce = try BrowserNonce(base64: nonceText)
            } catch {
                return refuse(.crypto(error), action: actionName, requestID: requestID)
            }
        } catch {
            return refuse(.envelope(error), action: actionName, requestID: requestID)
        }
        let request: BrowserJSONObject
        do {
            request = try client.crypto.open(message: encrypted, nonce: nonce) { plaintext in
                try BrowserJSONObject(parsing: plaintext)
            }
        } catch let error as BrowserCryptoError {
            return refuse(.crypto(error), action: actionName, requestID: requestID)
        } catch let error as BrowserMessageError {
            return refuse(.request(error), action: actionName, requestID: requestID)
        } catch {
            return refuse(.crypto(.authenticationFailed), action: actionName, requestID: requestID)
        }
        do {
            guard try request.string("action") == actionName else {
                return refuse(.actionMismatch(envelope: actionName), action: actionName, requestID: requestID)
            }
        } catch {
            return refuse(.actionMismatch(envelope: actionName), action: actionName, requestID: requestID)
        }
        do {
            let fields = try await answer(action, request: request, clientID: clientID, session: client.crypto)
            return reply(action: actionName, fields: fields, requestNonce: nonce, session: client.crypto)
        } catch let refusal as BrowserRefusal {
            return refuse(refusal, action: actionName, requestID: requestID)
        } catch let error as BrowserMessageError {
            return refuse(.request(error), action: actionName, requestID: requestID)
        } catch let error as BrowserVaultError {
            if error == .notAssociated { setAssociation(nil, clientID: clientID, session: client.crypto) }
            return refuse(.vault(error), action: actionName, requestID: requestID)
        } catch {
            // Any other failure of the vault side: nothing is released, and the browser is told the
            // action was not done.
            return refuse(.vault(.denied), action: actionName, requestID: requestID)
        }
    }

    // MARK: - The actions

    private func changePublicKeys(_ envelope: BrowserJSONObject, clientID: String) -> BrowserEngineOutcome {
        let action = BrowserAction.changePublicKeys.rawValue
        let keyText: String
        let nonceText: String
        do {
            keyText = try envelope.string("publicKey")
            nonceText = try envelope.string("nonce")
        } catch {
            return refuse(.keyExchange(error), action: action)
        }
        guard !keyText.isEmpty else { return refuse(.keyExchange(.missingField("publicKey")), action: action) }
        let crypto: BrowserCryptoSession
        let nonce: BrowserNonce
        do {
            nonce = try BrowserNonce(base64: nonceText)
        } catch {
            return refuse(.keyExchange(.invalidValue(field: "nonce", reason: "\(error)")), action: action)
        }
        do {
            crypto = try BrowserCryptoSession(clientPublicKey: keyText)
        } catch {
            return refuse(.keyExchange(.invalidValue(field: "publicKey", reason: "\(error)")), action: action)
        }
        let responseNonce = nonce.incremented()
        // Both nonces are spent: the request's, and the response's (sent in the clear here, but
        // never to be accepted from the client either).
        try? crypto.consume(nonce)
        try? crypto.consume(responseNonce)
        if let old = clients[clientID] {
            old.crypto.close()
        } else {
            clientOrder.append(clientID)
            if clientOrder.count > Self.maximumClients {
                let dropped = clientOrder.removeFirst()
                clients.removeValue(forKey: dropped)?.crypto.close()
            }
        }
        clients[clientID] = Client(crypto: crypto, association: nil)
        let reply: [String: BrowserJSONValue] = [
            "action": .string(action), "version": .string(Self.protocolVersion),
            "publicKey": .string(crypto.hostPublicKeyBase64), "nonce": .string(responseNonce.base64), "success": "true",
        ]
        return BrowserEngineOutcome(reply: BrowserJSONWriter.data(reply), refusal: nil)
    }

    /// The fields of the encrypted reply to an allowed, decrypted request.
    ///
    /// The vault's answers can take long (the owner approving an association), and other messages
    /// are handled meanwhile: what an answer changes in the session goes only to `session`, the
    /// one the request came in, never to a session the same client made since.
    private func answer(
        _ action: BrowserAction, request: BrowserJSONObject, clientID: String, session: BrowserCryptoSession
    ) async throws
        -> [String: BrowserJSONValue]
    {
        switch action {
        case .getDatabaseHash:
            return ["hash": .string(try await hash())]
        case .associate:
            let associate = try AssociateRequest(request)
            guard Self.equalKeys(associate.key, Data(session.clientPublicKey).base64EncodedString()) else {
                throw BrowserRefusal.sessionKeyMismatch
            }
            let hash = try await hash()
            let id = try await vault.associate(
                publicKey: associate.key, identificationKey: associate.identificationKey,
                peer: peerPID.map(BrowserPeerProcess.init(readingPID:)))
            guard !id.isEmpty else { throw BrowserVaultError.denied }
            setAssociation(
                BrowserSessionAssociation(id: id, identificationKey: associate.identificationKey), clientID: clientID,
                session: session)
            return ["hash": .string(hash), "id": .string(id)]
        case .testAssociate:
            let test = try TestAssociateRequest(request)
            let hash = try await hash()
            guard try await vault.isAssociated(id: test.id, identificationKey: test.key) else {
                setAssociation(nil, clientID: clientID, session: session)
                throw BrowserRefusal.associationNotRecognized
            }
            setAssociation(
                BrowserSessionAssociation(id: test.id, identificationKey: test.key), clientID: clientID,
                session: session)
            return ["hash": .string(hash), "id": .string(test.id)]
        case .getLogins:
            let query = try GetLoginsRequest(request)
            let association = try associationOf(clientID, session: session)
            let hash = try await hash()
            let logins = try await vault.logins(
                association: association, url: query.url, submitURL: query.submitURL, httpAuth: query.httpAuth)
            guard !logins.isEmpty else { throw BrowserRefusal.noLogins }
            return [
                "count": .integer(logins.count), "entries": .array(logins.map(Self.entry)), "hash": .string(hash),
                "id": .string(association.id),
            ]
        case .setLogin:
            let change = try SetLoginRequest(request)
            let association = try associationOf(clientID, session: session)
            let hash = try await hash()
            try await vault.setLogin(association: association, change)
            return ["count": nil, "entries": nil, "error": "success", "hash": .string(hash)]
        case .generatePassword:
            let generate = try GeneratePasswordRequest(request)
            let association = try associationOf(clientID, session: session)
            return ["password": .string(try await vault.generatePassword(association: association, url: generate.url))]
        case .getTOTP:
            let totp = try GetTOTPRequest(request)
            let association = try associationOf(clientID, session: session)
            return ["totp": .string(try await vault.totp(association: association, uuid: totp.uuid))]
        case .lockDatabase:
            let association = try associationOf(clientID, session: session)
            try await vault.lock(association: association)
            return [:]
        case .changePublicKeys, .databaseLocked, .databaseUnlocked:
            throw BrowserRefusal.unknownAction(action.rawValue)
        }
    }

    private func hash() async throws -> String {
        let hash = try await vault.databaseHash()
        guard !hash.isEmpty else { throw BrowserRefusal.noDatabaseHash }
        return hash
    }

    /// Records the association proven in `session`, if that is still the client's session.
    private func setAssociation(
        _ association: BrowserSessionAssociation?, clientID: String, session: BrowserCryptoSession
    ) {
        guard clients[clientID]?.crypto === session else { return }
        clients[clientID]?.association = association
    }

    /// The association proven in `session`, which must still be the client's session.
    private func associationOf(_ clientID: String, session: BrowserCryptoSession) throws -> BrowserSessionAssociation {
        guard let client = clients[clientID], client.crypto === session, let association = client.association else {
            throw BrowserRefusal.notAssociated(action: "")
        }
        return association
    }

    private static func entry(_ login: BrowserLogin) -> BrowserJSONValue {
        var entry: [String: BrowserJSONValue] = [
            "login": .string(login.login), "name": .string(login.name), "password": .string(login.password),
            "uuid": .string(login.uuid), "group": .string(login.group), "stringFields": [],
        ]
        // KeePassXC puts the otpauth URI here; the extension only tests that the member is there
        // and then asks get-totp for the code, so the secret stays in the vault.
        if login.hasTOTP { entry["totp"] = "otpauth" }
        if login.expired { entry["expired"] = "true" }
        return .object(entry)
    }

    /// Compares two base64 keys by their bytes, in constant time for equal lengths.
    static func equalKeys(_ lhs: String, _ rhs: String) -> Bool {
        guard let left = try? BrowserBase64.decode(lhs, field: "key"),
            let right = try? BrowserBase64.decode(rhs, field: "key")
        else { return false }
        return ConstantTimeBytes.equal(left, right)
    }

    // MARK: - Replies

    private func reply(
        action: String, fields: [String: BrowserJSONValue], requestNonce: BrowserNonce, session: BrowserCryptoSession
    )
        -> BrowserEngineOutcome
    {
        let responseNonce = requestNonce.incremented()
        var message = fields
        message["version"] = .string(Self.protocolVersion)
        message["success"] = "true"
        message["nonce"] = .string(responseNonce.base64)
        var plaintext = BrowserJSONWriter.data(message)
        defer { sodium_memzero(&plaintext, plaintext.count) }
        do {
            let box = try session.seal(plaintext, nonce: responseNonce)
            let reply: [String: BrowserJSONValue] = [
                "action": .string(action), "message": .string(box), "nonce": .string(responseNonce.base64),
            ]
            return BrowserEngineOutcome(reply: BrowserJSONWriter.data(reply), refusal: nil)
        } catch {
            let reply = Self.errorReply(action: action, code: .cannotEncryptMessage, requestID: nil)
            return BrowserEngineOutcome(reply: reply, refusal: .crypto(error))
        }
    }

    private func refuse(_ refusal: BrowserRefusal, action: String, requestID: String? = nil) -> BrowserEngineOutcome {
        guard let code = refusal.errorCode else { return BrowserEngineOutcome(reply: nil, refusal: refusal) }
        return BrowserEngineOutcome(
            reply: Self.errorReply(action: action, code: code, requestID: requestID), refusal: refusal)
    }

    /// KeePassXC's error reply: `{"action", "errorCode": "<n>", "error": "<text>"}`, in the clear,
    /// with the request's `requestID` when it had one (the extension matches errors by it).
    static func errorReply(action: String, code: BrowserErrorCode, requestID: String?) -> [UInt8] {
        var reply: [String: BrowserJSONValue] = [
            "action": .string(action), "errorCode": .string(String(code.rawValue)), "error": .string(code.text),
        ]
        if let requestID { reply["requestID"] = .string(requestID) }
        return BrowserJSONWriter.data(reply)
    }
}
