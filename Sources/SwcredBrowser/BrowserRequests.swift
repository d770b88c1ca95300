/// The decrypted requests of the protocol, read strictly from their JSON. Field names are the
/// extension's: `submitUrl`, `httpAuth`, `idKey`, `groupUuid`.

/// An entry's id as the protocol carries it: 32 hexadecimal digits of a UUID without dashes,
/// not all zero (KeePassXC's `Tools::isValidUuid`).
public enum BrowserEntryID {
    /// Whether `text` is a valid entry id.
    public static func isValid(_ text: String) -> Bool {
        let utf8 = Array(text.utf8)
        guard utf8.count == 32 else { return false }
        guard utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) || ($0 >= 65 && $0 <= 70) }) else {
            return false
        }
        return utf8.contains { $0 != 48 }
    }
}

/// Reads a protocol boolean, which the extension sends as the string `"true"` (or leaves out).
private func flag(_ object: BrowserJSONObject, _ name: String) throws(BrowserMessageError) -> Bool {
    switch try object.optionalString(name) {
    case nil, "false": return false
    case "true": return true
    default: throw .invalidValue(field: name, reason: "must be \"true\" or \"false\"")
    }
}

/// A string member that must be present and non-empty.
private func required(_ object: BrowserJSONObject, _ name: String) throws(BrowserMessageError) -> String {
    let value = try object.string(name)
    guard !value.isEmpty else { throw .missingField(name) }
    return value
}

/// A string member that may be absent; an empty string counts as absent, as in KeePassXC.
private func optional(_ object: BrowserJSONObject, _ name: String) throws(BrowserMessageError) -> String? {
    guard let value = try object.optionalString(name), !value.isEmpty else { return nil }
    return value
}

/// A public key field: base64 of 32 bytes.
private func publicKey(_ object: BrowserJSONObject, _ name: String) throws(BrowserMessageError) -> String {
    let value = try required(object, name)
    guard let bytes = try? BrowserBase64.decode(value, field: name) else {
        throw .invalidValue(field: name, reason: "is not valid base64")
    }
    guard bytes.count == BrowserCryptoSession.publicKeyLength else {
        throw .invalidValue(field: name, reason: "must be a 32-byte key, not \(bytes.count) bytes")
    }
    return value
}

/// `associate`: the client's session key again, and the identification key to remember.
public struct AssociateRequest: Sendable, Equatable {
    /// The client's session public key (base64); it must be the one of `change-public-keys`.
    public let key: String
    /// The long-term identification public key (base64) the association is stored under. An old
    /// client that sends none uses its session key, as KeePassXC allows.
    public let identificationKey: String

    /// Reads the decrypted message.
    public init(_ object: BrowserJSONObject) throws(BrowserMessageError) {
        key = try publicKey(object, "key")
        identificationKey = object.members["idKey"] == nil ? key : try publicKey(object, "idKey")
    }
}

/// `test-associate`: an association id and its identification key.
public struct TestAssociateRequest: Sendable, Equatable {
    /// The id the host gave at `associate`.
    public let id: String
    /// The identification public key (base64).
    public let key: String

    /// Reads the decrypted message.
    public init(_ object: BrowserJSONObject) throws(BrowserMessageError) {
        id = try required(object, "id")
        key = try publicKey(object, "key")
    }
}

/// `get-logins`: the page's URL, the form's action URL, and whether it is HTTP authentication.
public struct GetLoginsRequest: Sendable, Equatable {
    /// The page's URL.
    public let url: String
    /// The URL the form submits to, when the extension knows it.
    public let submitURL: String?
    /// Whether the browser asks for HTTP authentication (`httpAuth: "true"`).
    public let httpAuth: Bool

    /// Reads the decrypted message. `id` and `keys` (the client's saved associations) are read
    /// for their types only: the session's proven association is what counts.
    public init(_ object: BrowserJSONObject) throws(BrowserMessageError) {
        url = try required(object, "url")
        submitURL = try optional(object, "submitUrl")
        httpAuth = try flag(object, "httpAuth")
        _ = try object.optionalString("id")
        for key in try object.optionalObjects("keys") ?? [] {
            _ = try key.optionalString("id")
            _ = try key.optionalString("key")
        }
    }
}

/// `set-login`: a new login (no `uuid`) or an update of the entry `uuid`.
public struct SetLoginRequest: Sendable, Equatable {
    /// The page's URL.
    public let url: String
    /// The URL the form submits to.
    public let submitURL: String?
    /// The account name, as typed (may be empty; the vault decides).
    public let login: String
    /// The password, as typed.
    public let password: String
    /// The entry to update, or `nil` for a new one.
    public let uuid: String?
    /// The group's name the extension chose, if any (the vault has no groups; kept for the record).
    public let group: String?
    /// The group's id the extension chose, if any.
    public let groupUUID: String?
    /// Whether the extension asks for the site's icon to be fetched (ignored: the vault fetches
    /// nothing a browser names).
    public let downloadFavicon: Bool

    /// A request made in code (the service's own tests), not read from a message.
    public init(
        url: String, submitURL: String? = nil, login: String, password: String, uuid: String?,
        group: String? = nil, groupUUID: String? = nil, downloadFavicon: Bool = false
    ) {
        self.url = url
        self.submitURL = submitURL
        self.login = login
        self.password = password
        self.uuid = uuid
        self.group = group
        self.groupUUID = groupUUID
        self.downloadFavicon = downloadFavicon
    }

    /// Reads the decrypted message.
    public init(_ object: BrowserJSONObject) throws(BrowserMessageError) {
        url = try required(object, "url")
        submitURL = try optional(object, "submitUrl")
        login = try object.string("login")
        password = try object.string("password")
        if let uuid = try optional(object, "uuid") {
            guard BrowserEntryID.isValid(uuid) else {
                throw .invalidValue(field: "uuid", reason: "must be 32 hexadecimal digits, not all zero")
            }
            self.uuid = uuid
        } else {
            uuid = nil
        }
        group = try optional(object, "group")
        groupUUID = try optional(object, "groupUuid")
        downloadFavicon = try flag(object, "downloadFavicon")
        _ = try object.optionalString("id")
    }
}

/// `generate-password`: the request id to echo, and the page, when a newer extension names it.
public struct GeneratePasswordRequest: Sendable, Equatable {
    /// The page's URL, if the request names one (1.8.4 does not).
    public let url: String?

    /// Reads the decrypted message.
    public init(_ object: BrowserJSONObject) throws(BrowserMessageError) {
        url = try optional(object, "url")
        _ = try object.optionalString("requestID")
    }
}

/// `get-totp`: the entry whose current code is wanted.
public struct GetTOTPRequest: Sendable, Equatable {
    /// The entry's id.
    public let uuid: String

    /// Reads the decrypted message.
    public init(_ object: BrowserJSONObject) throws(BrowserMessageError) {
        let uuid = try required(object, "uuid")
        guard BrowserEntryID.isValid(uuid) else {
            throw .invalidValue(field: "uuid", reason: "must be 32 hexadecimal digits, not all zero")
        }
        self.uuid = uuid
    }
}
