/// Why the crypto of a KeePassXC-Browser session refused a message. The descriptions name the
/// field and the problem, never a key, a nonce's value or any plaintext.
public enum BrowserCryptoError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A field that must be standard base64 (RFC 4648 §4, with padding) is not.
    case malformedBase64(field: String)
    /// A field decoded to the wrong number of bytes.
    case wrongLength(field: String, expected: Int, actual: Int)
    /// The ciphertext is shorter than the 16-byte authenticator, so it cannot be a box.
    case ciphertextTooShort(length: Int)
    /// The box did not open: another key, another nonce, or a changed byte.
    case authenticationFailed
    /// The request's nonce was already used in this session, by a request or by a response.
    case nonceReused
    /// The session has used as many nonces as it keeps track of; the browser must exchange keys
    /// again (`change-public-keys`).
    case sessionExhausted(limit: Int)
    /// The session was closed and its key wiped.
    case sessionClosed

    public var description: String {
        switch self {
        case .malformedBase64(let field):
            return "\(field) is not valid base64"
        case .wrongLength(let field, let expected, let actual):
            return "\(field) decodes to \(actual) bytes; it must be \(expected)"
        case .ciphertextTooShort(let length):
            return "the message is \(length) bytes, shorter than the 16-byte authenticator of a box"
        case .authenticationFailed:
            return "the message did not decrypt: wrong key or nonce, or it was changed"
        case .nonceReused:
            return "the nonce was already used in this session (a replayed or reflected message)"
        case .sessionExhausted(let limit):
            return "the session has used its \(limit) nonces; exchange keys again"
        case .sessionClosed:
            return "the session was closed and its key wiped"
        }
    }
}
