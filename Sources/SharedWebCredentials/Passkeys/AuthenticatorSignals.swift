/// What the caller can vouch for about one passkey operation; the authenticator data's flags come
/// from these and from nothing else. None has a default, so no flag is ever set by omission.
public struct AuthenticatorSignals: Sendable, Equatable {
    /// How the person's presence was established, which sets UP (0x01).
    public enum Presence: Sendable, Equatable {
        /// Nobody was asked and nobody chose to allow it in advance: UP is clear, and relying
        /// parties refuse the result (WebAuthn requires UP outside conditional mediation).
        case absent
        /// The vault's owner answered a consent request for this operation.
        case ownerConsented
        /// The owner chose, when making the app's token, that its requests need no prompt
        /// (`--consent none`): a standing consent, counted as presence.
        case standingConsent
    }

    /// What verified the person, which sets UV (0x04); nil when nothing did.
    public enum Verification: Sendable, Equatable {
        /// The owner proved the vault's passphrase for this operation (a knowledge factor).
        case ownerPassphrase
    }

    /// Whether the credential may be backed up, and whether it is, which set BE (0x08) and BS
    /// (0x10). An enum, since BS without BE is not allowed.
    public enum Backup: Sendable, Equatable {
        /// A device-bound credential: BE and BS clear.
        case notEligible
        /// May be backed up (exported or synced) but is not yet: BE set, BS clear.
        case eligible
        /// Backed up: BE and BS set.
        case backedUp
    }

    /// The person's presence.
    public var presence: Presence
    /// What verified the person, if anything.
    public var verification: Verification?
    /// The credential's backup state, per the vault's export policy.
    public var backup: Backup

    /// Signals with every field given.
    public init(presence: Presence, verification: Verification?, backup: Backup) {
        self.presence = presence
        self.verification = verification
        self.backup = backup
    }

    /// The flags byte these signals give, without AT and ED (set by what the data carries).
    public var flags: AuthenticatorFlags {
        var flags: AuthenticatorFlags = []
        if presence != .absent { flags.insert(.userPresent) }
        if verification != nil { flags.insert(.userVerified) }
        switch backup {
        case .notEligible: break
        case .eligible: flags.insert(.backupEligible)
        case .backedUp: flags.formUnion([.backupEligible, .backedUp])
        }
        return flags
    }
}

/// The flags byte of authenticator data (WebAuthn §6.1).
public struct AuthenticatorFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// UP: the user was present.
    public static let userPresent = AuthenticatorFlags(rawValue: 0x01)
    /// UV: the user was verified.
    public static let userVerified = AuthenticatorFlags(rawValue: 0x04)
    /// BE: the credential may be backed up.
    public static let backupEligible = AuthenticatorFlags(rawValue: 0x08)
    /// BS: the credential is backed up.
    public static let backedUp = AuthenticatorFlags(rawValue: 0x10)
    /// AT: attested credential data follows.
    public static let attestedCredentialData = AuthenticatorFlags(rawValue: 0x40)
    /// ED: extension data follows (never set: swcred returns no authenticator extensions).
    public static let extensionData = AuthenticatorFlags(rawValue: 0x80)
}
