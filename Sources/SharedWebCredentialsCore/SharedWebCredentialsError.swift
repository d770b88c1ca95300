/// The one error type of the SharedWebCredentials library.
///
/// Every failure carries a stable ``Code`` (which the `swcred` tool maps to its documented exit
/// codes) and a message that says what went wrong and what to do about it. Messages never contain
/// secrets: no passwords, passphrases, keys or account names.
public struct SharedWebCredentialsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The stable category of a failure. The raw value is part of the public contract.
    public enum Code: String, Sendable, CaseIterable {
        /// Something that should not happen: a bug or an unexpected system failure.
        case internalError = "internal"
        /// Bad arguments or input: an app ID, domain, rules string or entitlements file.
        case invalidInput = "invalid-input"
        /// The domain is not in the app's `webcredentials:` entitlement, or the app is not registered.
        case missingEntitlement = "missing-entitlement"
        /// The site has not approved the app (denied, or never verified).
        case notApproved = "not-approved"
        /// No credential matched.
        case itemNotFound = "item-not-found"
        /// The person declined, or confirmation was required and could not be asked for.
        case declined = "declined"
        /// The vault could not be unlocked: wrong or missing passphrase or key.
        case vaultLocked = "vault-locked"
        /// There is no vault at the path.
        case vaultNotFound = "vault-not-found"
        /// A vault already exists at the path.
        case vaultExists = "vault-exists"
        /// A record or the wrapped key failed authentication: the vault was tampered with or is damaged.
        case integrityFailure = "integrity-failure"
        /// The network or TLS failed while verifying a site, and no usable cached verdict exists.
        case networkFailure = "network-failure"
        /// Another process held the vault past the lock timeout.
        case vaultBusy = "vault-busy"
        /// The owner marked the host "never save".
        case neverSave = "never-save"
        /// The vault's storage cannot be written: read-only, permission denied or disk full.
        /// Nothing was changed.
        case storageFailure = "storage-failure"

        /// The exit code of `swcred` and `swcred serve` for this failure (DESIGN.md's stable table).
        public var exitStatus: Int32 {
            switch self {
            case .internalError: 1
            case .invalidInput: 2
            case .missingEntitlement: 3
            case .notApproved: 4
            case .itemNotFound: 5
            case .declined: 6
            case .vaultLocked: 7
            case .vaultNotFound, .vaultExists: 8
            case .integrityFailure: 9
            case .networkFailure: 10
            case .vaultBusy: 11
            case .neverSave: 12
            case .storageFailure: 13
            }
        }
    }

    /// The stable category of this failure.
    public let code: Code
    /// A plain-language explanation that says what to do. Never contains secrets.
    public let message: String

    /// Creates an error with a code and a message.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
