import Foundation
import Testing

@testable import SwcredBrowser

/// The extension's side of the protocol, written from keepassxc-browser 1.8.4's client.js: a
/// session key pair, a clientID, a random nonce per request, and the checks it makes of each
/// reply (the nonce incremented, `success: "true"`). Sendable unchecked: a test drives each
/// client from one task at a time.
final class ExtensionClient: @unchecked Sendable {
    let keys = ClientKeys()
    let clientID: String
    var hostPublicKey: [UInt8] = []
    /// The identification key the extension keeps for an association.
    let identificationKey = ClientKeys()
    var associationID: String?

    /// A client with a random clientID, or the one given.
    init(clientID: String? = nil) {
        self.clientID = clientID ?? Data((0..<24).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
    }

    /// The result of one request.
    struct Exchange: @unchecked Sendable {
        var outcome: BrowserEngineOutcome
        /// The reply's outer JSON.
        var reply: [String: Any]?
        /// The decrypted inner message, when the reply had one that opened and whose nonces
        /// matched.
        var message: [String: Any]?
        /// The envelope that was sent (to replay it).
        var sent: [UInt8]

        var errorCode: String? { reply?["errorCode"] as? String }
    }

    /// `change-public-keys`; checks the reply as the extension does.
    @discardableResult
    func exchangeKeys(with engine: BrowserProtocolEngine) async throws -> BrowserEngineOutcome {
        let nonce = BrowserNonce.random()
        let outcome = await engine.handle(
            json([
                "action": "change-public-keys", "publicKey": keys.publicKeyBase64, "nonce": nonce.base64,
                "clientID": clientID,
            ]))
        let reply = try #require(object(outcome.reply))
        #expect(reply["success"] as? String == "true")
        #expect(reply["version"] as? String == "2.7.4")
        #expect(reply["nonce"] as? String == Data(extensionIncrement(nonce.bytes)).base64EncodedString())
        let keyText = try #require(reply["publicKey"] as? String)
        let key = try #require(Data(base64Encoded: keyText))
        #expect(key.count == 32)
        hostPublicKey = [UInt8](key)
        return outcome
    }

    /// Sends `payload` (with `action`) encrypted, as `keepassClient.sendMessage` does.
    func send(
        _ action: String, _ payload: [String: Any] = [:], to engine: BrowserProtocolEngine,
        requestID: String? = nil, innerAction: String? = nil, rawInner: [UInt8]? = nil
    ) async -> Exchange {
        var inner = payload
        inner["action"] = innerAction ?? action
        let nonce = BrowserNonce.random()
        let box = boxEasy(
            rawInner ?? json(inner), nonce: nonce.bytes, publicKey: hostPublicKey, secretKey: keys.secretKey)
        var envelope: [String: Any] = [
            "action": action, "message": Data(box).base64EncodedString(), "nonce": nonce.base64, "clientID": clientID,
        ]
        if let requestID { envelope["requestID"] = requestID }
        let sent = json(envelope)
        return await deliver(sent, nonce: nonce.bytes, to: engine)
    }

    /// Sends raw envelope bytes; `nonce` is the request's, to check the reply against.
    func deliver(_ sent: [UInt8], nonce: [UInt8]?, to engine: BrowserProtocolEngine) async -> Exchange {
        let outcome = await engine.handle(sent)
        let reply = object(outcome.reply)
        var message: [String: Any]?
        if let reply, let text = reply["message"] as? String, let replyNonce = reply["nonce"] as? String,
            let nonce
        {
            let expected = Data(extensionIncrement(nonce)).base64EncodedString()
            #expect(replyNonce == expected, "the reply's nonce is the request's incremented")
            if let box = Data(base64Encoded: text),
                let plain = openEasy(
                    [UInt8](box), nonce: extensionIncrement(nonce), publicKey: hostPublicKey, secretKey: keys.secretKey)
            {
                message = object(plain)
                #expect(message?["nonce"] as? String == expected)
                #expect(message?["success"] as? String == "true")
            }
        }
        return Exchange(outcome: outcome, reply: reply, message: message, sent: sent)
    }

    /// `associate` with this client's identification key.
    func associate(with engine: BrowserProtocolEngine) async -> Exchange {
        let exchange = await send(
            "associate", ["key": keys.publicKeyBase64, "idKey": identificationKey.publicKeyBase64], to: engine)
        associationID = exchange.message?["id"] as? String
        return exchange
    }

    /// `test-associate` with the saved id and identification key.
    func testAssociate(with engine: BrowserProtocolEngine, id: String? = nil, key: String? = nil) async -> Exchange {
        await send(
            "test-associate",
            ["id": id ?? associationID ?? "", "key": key ?? identificationKey.publicKeyBase64], to: engine)
    }
}
