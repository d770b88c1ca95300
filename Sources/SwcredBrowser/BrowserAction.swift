/// The actions of the KeePassXC-Browser protocol that this host answers, as the Debian extension
/// (webext-keepassxc-browser 1.8.4) sends them, and the two notices the host sends unasked.
///
/// KeePassXC 2.7.4 also knows `get-database-groups`, `create-new-group`, `delete-entry` and
/// `request-autotype`; this host answers those, like any other action, with
/// ``BrowserErrorCode/incorrectAction``, which is what KeePassXC answers for an action it does not
/// know.
public enum BrowserAction: String, Sendable, CaseIterable {
    case changePublicKeys = "change-public-keys"
    case getDatabaseHash = "get-databasehash"
    case associate = "associate"
    case testAssociate = "test-associate"
    case getLogins = "get-logins"
    case setLogin = "set-login"
    case generatePassword = "generate-password"
    case getTOTP = "get-totp"
    case lockDatabase = "lock-database"
    /// Sent by the host, unasked, when the vault locks.
    case databaseLocked = "database-locked"
    /// Sent by the host, unasked, when the vault unlocks.
    case databaseUnlocked = "database-unlocked"

    /// The actions a client that has not proven an association may ask for: the key exchange,
    /// the database hash and the association request (with `test-associate`, which is how a
    /// client proves one). Everything else needs an association first.
    public var isAllowedBeforeAssociation: Bool {
        switch self {
        case .changePublicKeys, .getDatabaseHash, .associate, .testAssociate: return true
        default: return false
        }
    }

    /// Whether a browser may send this action (the two notices go only from host to browser).
    public var isRequest: Bool {
        self != .databaseLocked && self != .databaseUnlocked
    }
}
