/// KeePassXC's error codes for the browser protocol, with the texts it sends
/// (`ERROR_KEEPASS_*` in `src/browser/BrowserMessageBuilder.h` and `getErrorMessage` in
/// `BrowserMessageBuilder.cpp` of KeePassXC 2.7.4). The extension shows its own translation of
/// the code where it has one, so the numbers must not change.
public enum BrowserErrorCode: Int, Sendable, CaseIterable {
    case databaseNotOpened = 1
    case databaseHashNotReceived = 2
    case clientPublicKeyNotReceived = 3
    case cannotDecryptMessage = 4
    case timeoutOrNotConnected = 5
    case actionCancelledOrDenied = 6
    case cannotEncryptMessage = 7
    case associationFailed = 8
    case keyChangeFailed = 9
    case encryptionKeyUnrecognized = 10
    case noSavedDatabasesFound = 11
    case incorrectAction = 12
    case emptyMessageReceived = 13
    case noURLProvided = 14
    case noLoginsFound = 15
    case noGroupsFound = 16
    case cannotCreateNewGroup = 17
    case noValidUUIDProvided = 18

    /// The text KeePassXC 2.7.4 sends with the code ("Unknown error" for 5, 9 and 11, which it
    /// never sends itself).
    public var text: String {
        switch self {
        case .databaseNotOpened: return "Database not opened"
        case .databaseHashNotReceived: return "Database hash not available"
        case .clientPublicKeyNotReceived: return "Client public key not received"
        case .cannotDecryptMessage: return "Cannot decrypt message"
        case .actionCancelledOrDenied: return "Action cancelled or denied"
        case .cannotEncryptMessage: return "Message encryption failed."
        case .associationFailed: return "KeePassXC association failed, try again"
        case .encryptionKeyUnrecognized: return "Encryption key is not recognized"
        case .incorrectAction: return "Incorrect action"
        case .emptyMessageReceived: return "Empty message received"
        case .noURLProvided: return "No URL provided"
        case .noLoginsFound: return "No logins found"
        case .noGroupsFound: return "No groups found"
        case .cannotCreateNewGroup: return "Cannot create new group"
        case .noValidUUIDProvided: return "No valid UUID provided"
        case .timeoutOrNotConnected, .keyChangeFailed, .noSavedDatabasesFound: return "Unknown error"
        }
    }
}
