/// A change to a saved credential that needs the person's consent before it is made
/// (SPEC.md §4, add / update / delete): what ``SharedWebCredentials/add(domain:account:password:confirm:)``
/// asks its `confirm` callback about. It names the server and account, never the password.
public struct CredentialChange: Sendable, Equatable, CustomStringConvertible {
    /// What would happen.
    public enum Kind: String, Sendable {
        /// Save a new credential.
        case add
        /// Replace the password of a saved credential.
        case update
        /// Remove a saved credential.
        case delete
    }

    /// What would happen.
    public let kind: Kind
    /// The server (and port) the credential belongs to.
    public let domain: DomainTarget
    /// The scheme, server and port the credential belongs to (https for `domain`, unless the
    /// change was made for a site).
    public let site: CredentialSite
    /// The account name.
    public let account: String

    /// Creates a change description for an https credential.
    public init(kind: Kind, domain: DomainTarget, account: String) {
        self.kind = kind
        self.domain = domain
        self.site = CredentialSite(scheme: .https, host: domain.host, port: domain.port)
        self.account = account
    }

    /// Creates a change description for a credential of `site`, of either scheme (the owner's).
    public init(kind: Kind, site: CredentialSite, account: String) {
        self.kind = kind
        self.domain = DomainTarget(normalizedHost: site.host, port: site.port)
        self.site = site
        self.account = account
    }

    /// A question to put to the person, e.g. `Save the password for "alice" on example.com?`.
    public var description: String {
        switch kind {
        case .add: "Save a password for \"\(account)\" on \(site.name)?"
        case .update: "Replace the saved password for \"\(account)\" on \(site.name)?"
        case .delete: "Delete the saved password for \"\(account)\" on \(site.name)?"
        }
    }
}

/// What an add, update or delete did.
public enum CredentialChangeOutcome: String, Sendable, Equatable {
    /// A new credential was saved.
    case added
    /// The saved password was replaced.
    case updated
    /// The saved credential was removed.
    case deleted
    /// The same password was already saved: nothing changed and nobody was asked.
    case unchanged
    /// There was nothing to delete: a success that changed nothing.
    case nothingToDelete = "nothing-to-delete"
}
