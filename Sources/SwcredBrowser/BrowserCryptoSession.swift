import CSodium
import Foundation
import SwcredPlatform

/// The encryption of one browser session of the KeePassXC-Browser protocol: libsodium's
/// `crypto_box` (X25519, XSalsa20-Poly1305) between the extension's session key and a key pair
/// the host makes fresh for this session.
///
/// The host's secret key lives only long enough to compute the shared key
/// (`crypto_box_beforenm`); it is made and wiped in ``init(clientPublicKey:)``. The shared key
/// sits in a ``SecretBuffer`` (sodium-allocated, locked, wiped on release), and every box is made
/// and opened with it (`crypto_box_easy_afternm`, `crypto_box_open_easy_afternm`: the same boxes
/// as `crypto_box_easy` with the two keys, without the X25519 step each time).
///
/// Every nonce the session has used is remembered: a request whose nonce was seen before, in a
/// request or in one of the host's responses, is refused. With one shared key for both
/// directions, the second check stops a response sent back to the host as if it were a request.
public final class BrowserCryptoSession {
    /// The length of a `crypto_box` public key.
    public static let publicKeyLength = Int(crypto_box_PUBLICKEYBYTES)
    /// How many nonces one session remembers before it refuses more messages.
    public static let defaultNonceLimit = 1 << 20

    /// The extension's session public key, as it sent it.
    public let clientPublicKey: [UInt8]
    /// The host's public key for this session.
    public let hostPublicKey: [UInt8]
    private let sharedKey: SecretBuffer
    private var usedNonces: Set<BrowserNonce> = []
    private let nonceLimit: Int
    private var isClosed = false

    /// Makes the host's key pair for a session with the extension whose session public key is
    /// `clientPublicKey` (base64, as in `change-public-keys`).
    ///
    /// - Throws: ``BrowserCryptoError/malformedBase64(field:)`` or
    ///   ``BrowserCryptoError/wrongLength(field:expected:actual:)`` for the key, and
    ///   ``BrowserCryptoError/authenticationFailed`` when X25519 refuses it (a low-order point).
    public convenience init(clientPublicKey: String) throws(BrowserCryptoError) {
        try self.init(clientPublicKey: try BrowserBase64.decode(clientPublicKey, field: "publicKey"))
    }

    /// The same, from the key's bytes.
    public init(
        clientPublicKey: [UInt8], nonceLimit: Int = BrowserCryptoSession.defaultNonceLimit
    )
        throws(BrowserCryptoError)
    {
        _ = SodiumRuntime.ready
        guard clientPublicKey.count == Self.publicKeyLength else {
            throw .wrongLength(field: "publicKey", expected: Self.publicKeyLength, actual: clientPublicKey.count)
        }
        let secretKey = SecretBuffer(count: Int(crypto_box_SECRETKEYBYTES))
        defer { secretKey.wipe() }
        var publicKey = [UInt8](repeating: 0, count: Self.publicKeyLength)
        secretKey.withUnsafeMutableBytes { secret in
            _ = publicKey.withUnsafeMutableBytes { crypto_box_keypair($0.baseAddress!, secret.baseAddress!) }
        }
        let shared = SecretBuffer(count: Int(crypto_box_BEFORENMBYTES))
        let status = shared.withUnsafeMutableBytes { sharedBytes in
            secretKey.withUnsafeBytes { secret in
                crypto_box_beforenm(sharedBytes.baseAddress!, clientPublicKey, secret.baseAddress!)
            }
        }
        guard status == 0 else { throw .authenticationFailed }
        self.clientPublicKey = clientPublicKey
        self.hostPublicKey = publicKey
        self.sharedKey = shared
        self.nonceLimit = nonceLimit
    }

    /// The host's public key as base64, for the `change-public-keys` response.
    public var hostPublicKeyBase64: String { Data(hostPublicKey).base64EncodedString() }

    /// Records a nonce the session has seen outside a box (the `change-public-keys` request's),
    /// so that it cannot be used again.
    ///
    /// - Throws: ``BrowserCryptoError/nonceReused`` or
    ///   ``BrowserCryptoError/sessionExhausted(limit:)``.
    public func consume(_ nonce: BrowserNonce) throws(BrowserCryptoError) {
        guard !usedNonces.contains(nonce) else { throw .nonceReused }
        guard usedNonces.count < nonceLimit else { throw .sessionExhausted(limit: nonceLimit) }
        usedNonces.insert(nonce)
    }

    /// Opens a request's box and hands its plaintext to `body`; the plaintext is wiped when
    /// `body` returns. The nonce counts as used once the box has opened, so the same request
    /// cannot be opened twice.
    ///
    /// - Parameters:
    ///   - message: the request's `message` field (base64 of the box).
    ///   - nonce: the request's `nonce`.
    /// - Throws: ``BrowserCryptoError`` for bad base64, a short box, a box that does not open,
    ///   or a nonce used before; `body`'s own errors pass through.
    public func open<Result>(
        message: String, nonce: BrowserNonce, _ body: (UnsafeRawBufferPointer) throws -> Result
    ) throws -> Result {
        guard !isClosed else { throw BrowserCryptoError.sessionClosed }
        guard !usedNonces.contains(nonce) else { throw BrowserCryptoError.nonceReused }
        guard usedNonces.count < nonceLimit else { throw BrowserCryptoError.sessionExhausted(limit: nonceLimit) }
        var box = try BrowserBase64.decode(message, field: "message")
        defer { sodium_memzero(&box, box.count) }
        let macLength = Int(crypto_box_MACBYTES)
        guard box.count >= macLength else { throw BrowserCryptoError.ciphertextTooShort(length: box.count) }
        let plaintext = SecretBuffer(count: box.count - macLength)
        let status = plaintext.withUnsafeMutableBytes { output in
            sharedKey.withUnsafeBytes { key in
                crypto_box_open_easy_afternm(
                    output.baseAddress!, box, UInt64(box.count), nonce.bytes, key.baseAddress!)
            }
        }
        guard status == 0 else { throw BrowserCryptoError.authenticationFailed }
        usedNonces.insert(nonce)
        return try plaintext.withUnsafeBytes { try body($0) }
    }

    /// Seals a response's plaintext with `nonce` (the request's nonce incremented) and returns
    /// the box as base64. The nonce counts as used, so a later request cannot carry it.
    ///
    /// - Throws: ``BrowserCryptoError/nonceReused`` when the session already used that nonce,
    ///   ``BrowserCryptoError/sessionExhausted(limit:)`` past the limit.
    public func seal(_ plaintext: some Collection<UInt8>, nonce: BrowserNonce) throws(BrowserCryptoError) -> String {
        guard !isClosed else { throw .sessionClosed }
        try consume(nonce)
        var input = [UInt8](plaintext)
        defer { sodium_memzero(&input, input.count) }
        var box = [UInt8](repeating: 0, count: input.count + Int(crypto_box_MACBYTES))
        _ = sharedKey.withUnsafeBytes { key in
            crypto_box_easy_afternm(&box, input, UInt64(input.count), nonce.bytes, key.baseAddress!)
        }
        return Data(box).base64EncodedString()
    }

    /// Wipes the shared key now; the session opens and seals nothing afterwards
    /// (``BrowserCryptoError/sessionClosed``).
    public func close() {
        isClosed = true
        sharedKey.wipe()
    }
}
