import Foundation
import Testing

@testable import SwcredBrowser

/// The extension's own increment (keepassxc-browser's `incrementedNonce`, from libsodium's
/// utils.c), written again here so that the test does not check sodium_increment against itself.
func extensionIncrement(_ bytes: [UInt8]) -> [UInt8] {
    var next = bytes
    var carry: UInt16 = 1
    for index in next.indices {
        carry += UInt16(next[index])
        next[index] = UInt8(carry & 0xff)
        carry >>= 8
    }
    return next
}

@Suite("Protocol nonces")
struct BrowserNonceTests {
    @Test("incrementing adds one to the first byte (little-endian)")
    func simpleIncrement() throws {
        let nonce = try BrowserNonce(bytes: [UInt8](repeating: 0, count: 24))
        #expect(nonce.incremented().bytes == [1] + [UInt8](repeating: 0, count: 23))
    }

    @Test("a carry runs through 0xff bytes into the next one")
    func carry() throws {
        let nonce = try BrowserNonce(bytes: [0xff, 0xff, 0x07] + [UInt8](repeating: 0, count: 21))
        #expect(nonce.incremented().bytes == [0x00, 0x00, 0x08] + [UInt8](repeating: 0, count: 21))
    }

    @Test("all 0xff wraps to all zero")
    func wrap() throws {
        let nonce = try BrowserNonce(bytes: [UInt8](repeating: 0xff, count: 24))
        #expect(nonce.incremented().bytes == [UInt8](repeating: 0, count: 24))
    }

    @Test("random nonces increment as the extension increments them")
    func agreesWithTheExtension() {
        for _ in 0..<200 {
            var nonce = BrowserNonce.random()
            // Make long carries likely.
            let run = Int.random(in: 0..<24)
            var bytes = nonce.bytes
            for index in 0..<run { bytes[index] = 0xff }
            nonce = try! BrowserNonce(bytes: bytes)
            #expect(nonce.incremented().bytes == extensionIncrement(bytes))
        }
    }

    @Test("base64 round trip, and the refusals name the field")
    func base64() throws {
        let nonce = BrowserNonce.random()
        #expect(try BrowserNonce(base64: nonce.base64) == nonce)
        #expect(throws: BrowserCryptoError.malformedBase64(field: "nonce")) { try BrowserNonce(base64: "not base64!") }
        #expect(throws: BrowserCryptoError.malformedBase64(field: "nonce")) { try BrowserNonce(base64: "") }
        #expect(throws: BrowserCryptoError.wrongLength(field: "nonce", expected: 24, actual: 16)) {
            try BrowserNonce(base64: Data(count: 16).base64EncodedString())
        }
    }
}
