/// The vault's side of the browser bridge: what ``BrowserProtocolEngine`` asks once a request has
/// been decrypted, read and allowed by the protocol's own rules (a key exchange first; an
/// association proven in this session for everything but the hash and the association request).
///
/// The protocol code decides nothing about credentials: which hosts a page may see, whether an
/// `http://` page gets anything, consent, never-save and the audit log are the implementation's
/// (the service, beside the gate). Every method that names an association must check, at that
/// moment, that an association of that name is stored for exactly the identification key the
/// session proved (``BrowserSessionAssociation``), never the name alone: an association revoked
/// while a browser is connected must stop working at its next request, also when the owner has
/// since approved another browser under the same name, so throw
/// ``BrowserVaultError/notAssociated`` then.
public protocol BrowserVaultBridge: Sendable {
    /// The hash that identifies this vault to the extension (KeePassXC sends the hex SHA-256 of its
    /// root group's id). It must identify nothing beyond this vault: a keyed hash, never one of
    /// the passphrase. An empty string means none is available (``BrowserErrorCode/databaseHashNotReceived``).
    /// Throw ``BrowserVaultError/locked`` while the vault is locked: the extension learns that the
    /// database is closed from this request's ``BrowserErrorCode/databaseNotOpened``.
    func databaseHash() async throws -> String

    /// Asks the owner to approve a new association for the identification key `identificationKey`
    /// (base64 of a 32-byte public key); `publicKey` is the session key the request came with.
    /// `peer` is the program that asks, as `/proc` shows it (`nil` when the engine was given no
    /// peer process): show it to the owner, since the extension shows no fingerprint before it is
    /// associated. Returns the association's id (the name the owner gave it), or throws
    /// ``BrowserVaultError/denied`` when the owner declines or does not answer.
    func associate(publicKey: String, identificationKey: String, peer: BrowserPeerProcess?) async throws -> String

    /// Whether `id` names a live association stored for exactly `identificationKey`. Compare the
    /// keys in constant time.
    func isAssociated(id: String, identificationKey: String) async throws -> Bool

    /// The logins for the page `url` (and the form's `submitURL`) that association `association`
    /// may have; an empty array when there are none.
    func logins(
        association: BrowserSessionAssociation, url: String, submitURL: String?, httpAuth: Bool
    ) async throws -> [BrowserLogin]

    /// Saves a login from the browser: new when `change.uuid` is `nil`, else an update of that
    /// entry. Throws ``BrowserVaultError/denied`` for a refusal (never-save, consent declined),
    /// ``BrowserVaultError/unknownEntry`` for an id the association cannot see.
    func setLogin(association: BrowserSessionAssociation, _ change: SetLoginRequest) async throws

    /// A strong password for the page `url` (by its rules when one is named).
    func generatePassword(association: BrowserSessionAssociation, url: String?) async throws -> String

    /// The current TOTP code of entry `uuid`, from the `otpauth://` URI stored with it (see
    /// ``TOTP``); throws ``BrowserVaultError/unknownEntry`` when the association cannot see it.
    func totp(association: BrowserSessionAssociation, uuid: String) async throws -> String

    /// Locks the vault, as the browser's "lock database" asks.
    func lock(association: BrowserSessionAssociation) async throws
}

/// The association a session proved (through `associate` or `test-associate`): its name and the
/// identification key it was proven with. Each request of the session hands both to the vault
/// side, which checks the key again: a name alone identifies no browser, since the name of a
/// revoked browser may be given to another.
public struct BrowserSessionAssociation: Sendable, Equatable {
    /// The association's id: the name the owner gave it.
    public let id: String
    /// The identification key the session proved, as the extension sent it (base64 of 32 bytes).
    public let identificationKey: String

    /// The association `id`, proven with `identificationKey`.
    public init(id: String, identificationKey: String) {
        self.id = id
        self.identificationKey = identificationKey
    }
}

/// A login as `get-logins` returns it to the extension.
public struct BrowserLogin: Sendable, Equatable {
    /// The account name (`login`).
    public var login: String
    /// The entry's title (`name`).
    public var name: String
    /// The password.
    public var password: String
    /// The entry's id: 32 hexadecimal digits (``BrowserEntryID``).
    public var uuid: String
    /// The group's name (`group`); the vault has none, so a fixed one.
    public var group: String
    /// Whether the entry has a TOTP secret (the extension then offers `get-totp`). KeePassXC sends
    /// the otpauth URI itself here; this host sends nothing of the secret and lets the extension ask.
    public var hasTOTP: Bool
    /// Whether the entry has expired.
    public var expired: Bool

    /// Makes a login.
    public init(
        login: String, name: String, password: String, uuid: String, group: String = "swcred",
        hasTOTP: Bool = false, expired: Bool = false
    ) {
        self.login = login
        self.name = name
        self.password = password
        self.uuid = uuid
        self.group = group
        self.hasTOTP = hasTOTP
        self.expired = expired
    }
}

/// What the vault side answers when it will not do what a browser asked. Each maps onto
/// KeePassXC's error code for the browser (``errorCode``).
public enum BrowserVaultError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The vault is locked.
    case locked
    /// The owner declined, did not answer, or a rule refused (never-save, the page's scheme).
    case denied
    /// The association is unknown or was revoked.
    case notAssociated
    /// No entry with that id is visible to the association.
    case unknownEntry

    /// The KeePassXC error code the extension gets.
    public var errorCode: BrowserErrorCode {
        switch self {
        case .locked: return .databaseNotOpened
        case .denied: return .actionCancelledOrDenied
        case .notAssociated: return .associationFailed
        case .unknownEntry: return .noValidUUIDProvided
        }
    }

    public var description: String {
        switch self {
        case .locked: return "the vault is locked"
        case .denied: return "the owner or a rule refused the request"
        case .notAssociated: return "the association is unknown or was revoked"
        case .unknownEntry: return "no entry with that id is visible to the association"
        }
    }
}
