import SharedWebCredentialsCore

/// Why ``BrowserProtocolEngine`` refused a message, beside the reply the browser got. For the
/// service's log and for tests: it names the problem and never holds a key, a nonce, a password
/// or any decrypted text.
public enum BrowserRefusal: Error, Equatable, Sendable, CustomStringConvertible {
    /// The outer message is not a JSON object, or a field of it is missing or mistyped.
    case envelope(BrowserMessageError)
    /// `change-public-keys` without a usable key or nonce: ``BrowserErrorCode/encryptionKeyUnrecognized``
    /// for a key that is not 32 bytes of base64, else ``BrowserErrorCode/clientPublicKeyNotReceived``.
    case keyExchange(BrowserMessageError)
    /// The message is `{}` (``BrowserErrorCode/emptyMessageReceived``).
    case emptyMessage
    /// The action is not one this host answers (its name escaped and cut to 64 characters).
    case unknownAction(String)
    /// The client sent an encrypted action before `change-public-keys`.
    case noKeyExchange(action: String)
    /// The action needs an association that this session has not proven.
    case notAssociated(action: String)
    /// The box did not open, or its nonce was used before.
    case crypto(BrowserCryptoError)
    /// The decrypted message is not valid for its action.
    case request(BrowserMessageError)
    /// The decrypted message names another action than the envelope.
    case actionMismatch(envelope: String)
    /// `associate` came with another session key than the one exchanged.
    case sessionKeyMismatch
    /// `test-associate` named an association the vault does not hold for that key.
    case associationNotRecognized
    /// The vault side refused.
    case vault(BrowserVaultError)
    /// The vault gave no database hash.
    case noDatabaseHash
    /// No login matched the page (``BrowserErrorCode/noLoginsFound``).
    case noLogins

    /// The code KeePassXC sends for this refusal, or `nil` when KeePassXC sends nothing at all (a
    /// message that is not JSON, or has no `clientID`).
    public var errorCode: BrowserErrorCode? {
        switch self {
        case .envelope(.missingField("clientID")), .envelope(.wrongType(field: "clientID", _)),
            .envelope(.malformedJSON), .envelope(.notAnObject):
            return nil
        case .envelope(.missingField("action")), .envelope(.wrongType(field: "action", _)):
            return .incorrectAction
        case .keyExchange(.invalidValue(field: "publicKey", _)): return .encryptionKeyUnrecognized
        case .keyExchange: return .clientPublicKeyNotReceived
        case .envelope(.missingField("nonce")), .envelope(.wrongType(field: "nonce", _)),
            .envelope(.invalidValue(field: "nonce", _)):
            return .cannotDecryptMessage
        case .envelope: return .cannotDecryptMessage
        case .emptyMessage: return .emptyMessageReceived
        case .unknownAction: return .incorrectAction
        case .noKeyExchange: return .clientPublicKeyNotReceived
        case .notAssociated: return .associationFailed
        case .crypto: return .cannotDecryptMessage
        case .request(.malformedJSON), .request(.notAnObject): return .cannotDecryptMessage
        case .request(.missingField("url")), .request(.wrongType(field: "url", _)): return .noURLProvided
        case .request(.missingField("uuid")), .request(.wrongType(field: "uuid", _)),
            .request(.invalidValue(field: "uuid", _)):
            return .noValidUUIDProvided
        case .request(.missingField("key")), .request(.invalidValue(field: "key", _)),
            .request(.wrongType(field: "key", _)), .request(.invalidValue(field: "idKey", _)),
            .request(.wrongType(field: "idKey", _)), .request(.missingField("idKey")),
            .request(.missingField("id")), .request(.wrongType(field: "id", _)):
            return .associationFailed
        case .request: return .incorrectAction
        case .actionMismatch: return .incorrectAction
        case .sessionKeyMismatch, .associationNotRecognized: return .associationFailed
        case .vault(let error): return error.errorCode
        case .noDatabaseHash: return .databaseHashNotReceived
        case .noLogins: return .noLoginsFound
        }
    }

    public var description: String {
        switch self {
        case .envelope(let error): return "refused the message: \(error)"
        case .keyExchange(let error): return "refused change-public-keys: \(error)"
        case .emptyMessage: return "refused an empty message"
        case .unknownAction(let action): return "refused the unknown action \"\(action)\""
        case .noKeyExchange(let action): return "refused \(action) before any change-public-keys"
        case .notAssociated(let action): return "refused \(action) from a client with no proven association"
        case .crypto(let error): return "refused the message: \(error)"
        case .request(let error): return "refused the request: \(error)"
        case .actionMismatch(let action): return "refused \(action): the encrypted message names another action"
        case .sessionKeyMismatch: return "refused associate: its key is not the session's key"
        case .associationNotRecognized: return "refused test-associate: no such association for that key"
        case .vault(let error): return "the vault refused: \(error)"
        case .noDatabaseHash: return "the vault has no database hash"
        case .noLogins: return "no login matched the page"
        }
    }

    /// An action's name as it may appear in a refusal: escaped, and cut to 64 characters.
    static func displayed(_ action: String) -> String {
        DisplayText.escaped(String(action.prefix(64)))
    }
}
