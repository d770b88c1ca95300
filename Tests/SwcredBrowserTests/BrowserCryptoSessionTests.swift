import Foundation
import Testing

@testable import SwcredBrowser

@Suite("crypto_box session")
struct BrowserCryptoSessionTests {
    @Test("a box the client makes with crypto_box_easy opens, and the host's box opens for the client")
    func roundTrip() throws {
        let client = ClientKeys()
        let session = try BrowserCryptoSession(clientPublicKey: client.publicKeyBase64)
        let nonce = BrowserNonce.random()
        let request = Array(#"{"action":"get-logins","url":"https://example.com"}"#.utf8)
        let box = boxEasy(request, nonce: nonce.bytes, publicKey: session.hostPublicKey, secretKey: client.secretKey)
        let opened = try session.open(message: Data(box).base64EncodedString(), nonce: nonce) { [UInt8]($0) }
        #expect(opened == request)

        let reply = Array(#"{"success":"true"}"#.utf8)
        let sealed = try session.seal(reply, nonce: nonce.incremented())
        let replyBox = try #require(Data(base64Encoded: sealed))
        #expect(
            openEasy(
                [UInt8](replyBox), nonce: nonce.incremented().bytes, publicKey: session.hostPublicKey,
                secretKey: client.secretKey) == reply)
    }

    @Test("every session has its own host key")
    func freshHostKeys() throws {
        let client = ClientKeys()
        let first = try BrowserCryptoSession(clientPublicKey: client.publicKeyBase64)
        let second = try BrowserCryptoSession(clientPublicKey: client.publicKeyBase64)
        #expect(first.hostPublicKey != second.hostPublicKey)
        #expect(first.hostPublicKey.count == 32)
    }

    @Test("a nonce seen before is refused, even for a box that would open")
    func replayRefused() throws {
        let client = ClientKeys()
        let session = try BrowserCryptoSession(clientPublicKey: client.publicKeyBase64)
        let nonce = BrowserNonce.random()
        let box = Data(
            boxEasy([1, 2, 3], nonce: nonce.bytes, publicKey: session.hostPublicKey, secretKey: client.secretKey)
        )
        .base64EncodedString()
        _ = try session.open(message: box, nonce: nonce) { _ in }
        #expect(throws: BrowserCryptoError.nonceReused) { try session.open(message: box, nonce: nonce) { _ in } }
    }

    @Test("the host's own reply sent back as a request is refused (one shared key both ways)")
    func reflectionRefused() throws {
        let client = ClientKeys()
        let session = try BrowserCryptoSession(clientPublicKey: client.publicKeyBase64)
        let nonce = BrowserNonce.random()
        let sealed = try session.seal(Array("{}".utf8), nonce: nonce)
        #expect(throws: BrowserCryptoError.nonceReused) { try session.open(message: sealed, nonce: nonce) { _ in } }
        // A fresh session with no record of that nonce would open it: the record is what refuses.
        #expect(throws: BrowserCryptoError.nonceReused) { try session.seal([1], nonce: nonce) }
    }

    @Test("a changed byte, another nonce or another client key does not open")
    func tampering() throws {
        let client = ClientKeys()
        let session = try BrowserCryptoSession(clientPublicKey: client.publicKeyBase64)
        let nonce = BrowserNonce.random()
        var box = boxEasy(
            Array("secret".utf8), nonce: nonce.bytes, publicKey: session.hostPublicKey, secretKey: client.secretKey)
        box[box.count - 1] ^= 0x01
        #expect(throws: BrowserCryptoError.authenticationFailed) {
            try session.open(message: Data(box).base64EncodedString(), nonce: nonce) { _ in }
        }
        box[box.count - 1] ^= 0x01
        #expect(throws: BrowserCryptoError.authenticationFailed) {
            try session.open(message: Data(box).base64EncodedString(), nonce: nonce.incremented()) { _ in }
        }
        let stranger = ClientKeys()
        let strangerBox = boxEasy(
            [7], nonce: nonce.bytes, publicKey: session.hostPublicKey, secretKey: stranger.secretKey)
        #expect(throws: BrowserCryptoError.authenticationFailed) {
            try session.open(message: Data(strangerBox).base64EncodedString(), nonce: nonce) { _ in }
        }
        // The failures did not spend the nonce: the genuine box still opens.
        #expect(
            try session.open(message: Data(box).base64EncodedString(), nonce: nonce) { [UInt8]($0) }
                == Array("secret".utf8))
    }

    @Test("malformed input is a typed error naming the field")
    func malformed() throws {
        #expect(throws: BrowserCryptoError.malformedBase64(field: "publicKey")) {
            try BrowserCryptoSession(clientPublicKey: "%%%")
        }
        #expect(throws: BrowserCryptoError.wrongLength(field: "publicKey", expected: 32, actual: 31)) {
            try BrowserCryptoSession(clientPublicKey: Data(count: 31).base64EncodedString())
        }
        let session = try BrowserCryptoSession(clientPublicKey: ClientKeys().publicKeyBase64)
        #expect(throws: BrowserCryptoError.malformedBase64(field: "message")) {
            try session.open(message: "***", nonce: .random()) { _ in }
        }
        #expect(throws: BrowserCryptoError.ciphertextTooShort(length: 15)) {
            try session.open(message: Data(count: 15).base64EncodedString(), nonce: .random()) { _ in }
        }
    }

    @Test("past its nonce limit a session refuses, and a closed session opens and seals nothing")
    func limits() throws {
        let client = ClientKeys()
        let session = try BrowserCryptoSession(clientPublicKey: client.publicKey, nonceLimit: 2)
        try session.consume(.random())
        _ = try session.seal([1], nonce: .random())
        #expect(throws: BrowserCryptoError.sessionExhausted(limit: 2)) { try session.consume(.random()) }

        let other = try BrowserCryptoSession(clientPublicKey: client.publicKeyBase64)
        let nonce = BrowserNonce.random()
        let box = boxEasy([9], nonce: nonce.bytes, publicKey: other.hostPublicKey, secretKey: client.secretKey)
        other.close()
        #expect(throws: BrowserCryptoError.sessionClosed) {
            try other.open(message: Data(box).base64EncodedString(), nonce: nonce) { _ in }
        }
        #expect(throws: BrowserCryptoError.sessionClosed) { try other.seal([1], nonce: .random()) }
    }

    @Test("error descriptions name the problem and carry no key or nonce")
    func descriptions() {
        let texts = [
            BrowserCryptoError.malformedBase64(field: "nonce"),
            .wrongLength(field: "publicKey", expected: 32, actual: 3),
            .ciphertextTooShort(length: 4), .authenticationFailed, .nonceReused, .sessionExhausted(limit: 5),
            .sessionClosed,
        ].map(\.description)
        #expect(texts[0] == "nonce is not valid base64")
        #expect(texts[1] == "publicKey decodes to 3 bytes; it must be 32")
        #expect(Set(texts).count == texts.count)
    }
}
