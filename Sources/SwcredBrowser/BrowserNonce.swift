import CSodium
import Foundation
import SwcredPlatform

/// A 24-byte `crypto_box` nonce of the KeePassXC-Browser protocol, carried as base64.
///
/// The host answers a request with the request's nonce incremented by one, read as a
/// little-endian number (libsodium's `sodium_increment`, which the extension re-implements).
public struct BrowserNonce: Hashable, Sendable {
    /// The nonce's length: `crypto_box_NONCEBYTES`.
    public static let length = Int(crypto_box_NONCEBYTES)

    /// The nonce's bytes.
    public let bytes: [UInt8]

    /// A nonce of exactly ``length`` bytes.
    ///
    /// - Throws: ``BrowserCryptoError/wrongLength(field:expected:actual:)`` for another length.
    public init(bytes: [UInt8], field: String = "nonce") throws(BrowserCryptoError) {
        guard bytes.count == Self.length else {
            throw .wrongLength(field: field, expected: Self.length, actual: bytes.count)
        }
        self.bytes = bytes
    }

    /// Decodes a nonce from the base64 text of a message's `nonce` field.
    ///
    /// - Throws: ``BrowserCryptoError/malformedBase64(field:)`` or
    ///   ``BrowserCryptoError/wrongLength(field:expected:actual:)``.
    public init(base64: String, field: String = "nonce") throws(BrowserCryptoError) {
        try self.init(bytes: try BrowserBase64.decode(base64, field: field), field: field)
    }

    /// A fresh random nonce (what a client makes for each request).
    public static func random() -> BrowserNonce {
        _ = SodiumRuntime.ready
        var bytes = [UInt8](repeating: 0, count: length)
        bytes.withUnsafeMutableBytes { randombytes_buf($0.baseAddress!, $0.count) }
        return try! BrowserNonce(bytes: bytes)
    }

    /// This nonce plus one, little-endian, wrapping at 2^192 (`sodium_increment`).
    public func incremented() -> BrowserNonce {
        _ = SodiumRuntime.ready
        var next = bytes
        next.withUnsafeMutableBufferPointer { sodium_increment($0.baseAddress!, $0.count) }
        return try! BrowserNonce(bytes: next)
    }

    /// The nonce as standard base64, as the protocol carries it.
    public var base64: String { Data(bytes).base64EncodedString() }
}

/// Strict base64 for the protocol's fields: standard alphabet with padding, as the extension
/// (TweetNaCl's `encodeBase64`) and KeePassXC (`QByteArray::toBase64`) write it.
enum BrowserBase64 {
    /// Decodes `text`, or throws ``BrowserCryptoError/malformedBase64(field:)`` naming `field`.
    static func decode(_ text: String, field: String) throws(BrowserCryptoError) -> [UInt8] {
        guard !text.isEmpty, let data = Data(base64Encoded: text) else { throw .malformedBase64(field: field) }
        return [UInt8](data)
    }
}
