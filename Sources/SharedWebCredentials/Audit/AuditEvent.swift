import Foundation

/// What an audit entry records: who did what to which credential, and how it ended.
///
/// Append one with ``CredentialBatch/recordAudit(_:)`` inside the transaction that makes the
/// change (all or nothing), or with ``AuditLog/append(_:)`` for an operation that changes no
/// record (a release, a refusal, a consent decision, an unlock). The domain, the account, the
/// app, the released credentials and the detail are sealed in the entry; the time, actor,
/// operation and outcome are stored in plaintext (they are what `swcred audit
/// --app/--since/--operation` filters on) and authenticated.
public struct AuditEvent: Sendable, Equatable {
    /// Who acted: an app, or the vault owner.
    public var actor: AuditActor
    /// What was done.
    public var operation: AuditOperation
    /// The domain (host, or host:port) the operation was for; nil when it had none (a request
    /// without a domain, a passphrase change).
    public var domain: String?
    /// The account name the operation was for, if any.
    public var account: String?
    /// The app an owner operation concerned (`app add`, `app remove`), if any.
    public var app: String?
    /// The credentials a request released, each as server (with :port when not 443) and account.
    public var released: [AuditCredential]
    /// Done, or refused with an error code.
    public var outcome: AuditOutcome
    /// One line of what else the entry needs to say, sealed like the domain: a token's grant
    /// (`token ID; permissions request,add; expires never; consent ask`, never the token), a
    /// verdict change (`webcredentials: unverified → approved`), who consented to a release.
    /// Nil in entries without one, and in every entry written before detail existed.
    public var detail: String?

    /// An event; `released` only for requests.
    public init(
        actor: AuditActor, operation: AuditOperation, domain: String? = nil, account: String? = nil,
        app: String? = nil, released: [AuditCredential] = [], outcome: AuditOutcome = .done, detail: String? = nil
    ) {
        self.actor = actor
        self.operation = operation
        self.domain = domain
        self.account = account
        self.app = app
        self.released = released
        self.outcome = outcome
        self.detail = detail
    }
}

/// Who did an audited operation: `owner` (whoever unlocked the vault with its passphrase or key),
/// `service` (`swcred serve` on its own, such as the background re-verifier) or an app's
/// identifier.
public struct AuditActor: Sendable, Hashable, CustomStringConvertible {
    /// `owner`, or the app identifier as written (`TEAMID.bundle.id`, `android:package`).
    public let name: String

    /// The vault owner.
    public static let owner = AuditActor(name: "owner")

    /// The service acting on its own, for no app and no owner command (the background
    /// re-verifier storing a verdict).
    public static let service = AuditActor(name: "service")

    /// An app.
    public static func app(_ identifier: ApplicationIdentifier) -> AuditActor {
        AuditActor(name: identifier.description)
    }

    init(name: String) {
        self.name = name
    }

    public var description: String { name }
}

/// The operations the audit log records. The raw values are stored and printed (stable).
public enum AuditOperation: String, Sendable, CaseIterable, Codable {
    /// An app asked for credentials (`SecRequestSharedWebCredential`).
    case request
    /// An app saved a new credential.
    case add
    /// An app changed a credential's password (or tried to save the same one).
    case update
    /// An app deleted a credential (or one that did not exist).
    case delete
    /// An app had a password generated for a domain.
    case generate
    /// The owner added or changed a credential (`swcred item set`).
    case itemSet = "item-set"
    /// The owner removed a credential (`swcred item remove`).
    case itemRemove = "item-remove"
    /// The owner renamed a credential's account (`swcred item rename`).
    case itemRename = "item-rename"
    /// The owner imported credentials.
    case `import`
    /// The owner exported credentials.
    case export
    /// The owner changed the passphrase.
    case passwd
    /// The owner rotated the vault key.
    case rekey
    /// The owner registered an app (or registered it again).
    case appAdd = "app-add"
    /// The owner removed an app.
    case appRemove = "app-remove"
    /// The owner approved a browser's association (`swcred consent`).
    case browserAssociate = "browser-associate"
    /// The owner revoked a browser's association (`swcred browser revoke`).
    case browserRevoke = "browser-revoke"
    /// The owner dropped old audit entries.
    case auditPrune = "audit-prune"
    /// The owner created an app token (detail: its id and grant, never the token).
    case tokenCreate = "token-create"
    /// The owner revoked an app token (detail: its id and grant).
    case tokenRevoke = "token-revoke"
    /// The owner approved a request of a `--consent ask` token in `swcred consent`.
    case consentApprove = "consent-approve"
    /// The owner declined a request of a `--consent ask` token.
    case consentDecline = "consent-decline"
    /// A request of a `--consent ask` token was not answered in time (a decline).
    case consentTimeout = "consent-timeout"
    /// The owner unlocked the service's vault.
    case unlock
    /// An unlock of the service's vault failed (wrong passphrase or key).
    case unlockFailed = "unlock-failed"
    /// The owner (or the idle timer) locked the service's vault.
    case lock
    /// A stored association verdict changed, or was stored for the first time (detail: the
    /// service, the old verdict and the new one).
    case verdictChange = "verdict-change"
    /// The owner marked a host "never save" (domain: the host).
    case neverSaveAdd = "never-save-add"
    /// The owner cleared a host's "never save" mark (domain: the host).
    case neverSaveRemove = "never-save-remove"
    /// An app created a passkey (domain: the RP ID; account: `user.name`).
    case passkeyCreate = "passkey-create"
    /// An app signed in with a passkey (domain: the RP ID; account: the passkey's `user.name`).
    case passkeyGet = "passkey-get"
    /// The owner removed a passkey (`swcred passkey remove`; detail: its credential ID).
    case passkeyRemove = "passkey-remove"
    /// The owner copied the vault to another store (`swcred store copy`; detail: the other
    /// store, without a password). Written at both ends.
    case storeCopy = "store-copy"
}

/// How an audited operation ended.
public enum AuditOutcome: Sendable, Hashable {
    /// It was done (a release, a change, or nothing to change).
    case done
    /// It was refused or failed, with this error code; nothing was released or changed.
    case refused(SharedWebCredentialsError.Code)

    /// `done` or `refused`, as stored.
    public var name: String {
        switch self {
        case .done: "done"
        case .refused: "refused"
        }
    }

    /// The error code of a refusal.
    public var errorCode: SharedWebCredentialsError.Code? {
        if case .refused(let code) = self { return code }
        return nil
    }
}

/// A credential named in an audit entry: where and for which account (never its password).
public struct AuditCredential: Sendable, Hashable, Codable {
    /// The server, with `:port` when the port is not 443.
    public let domain: String
    /// The account name.
    public let account: String

    /// A reference to a credential.
    public init(domain: String, account: String) {
        self.domain = domain
        self.account = account
    }

    /// A reference to `credential`, its site named as lists show it (``CredentialSite/name``).
    public init(_ credential: Credential) {
        self.init(domain: credential.site.name, account: credential.account)
    }
}

/// One entry of the audit log, opened.
public struct AuditEntry: Sendable, Equatable {
    /// The instance chain it is in, in hexadecimal (the entries a running `swcred serve`
    /// appended for operations that changed no record); nil for the vault's own chain.
    public let chain: String?
    /// Its position in its chain: 1 for the first entry written there, one more for each after.
    public let sequence: Int64
    /// When it was written.
    public let date: Date
    /// What happened.
    public let event: AuditEvent
}
