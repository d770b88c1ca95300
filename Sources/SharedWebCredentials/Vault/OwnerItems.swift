import Foundation

/// The owner's changes to credentials, each recorded in the audit log (actor `owner`) in the same
/// transaction as the change: what `swcred item set/remove/rename` call. No gate: unlocking the
/// vault is the owner's authority. ``Vault/credentials`` is the same store without audit entries
/// (for bulk work whose caller records its own entry, such as an import).
public struct OwnerItems: Sendable {
    let vault: Vault

    /// Adds a credential, or changes the password and (when given) the details of an existing one;
    /// nil `details` keeps them. Records `item-set` unless nothing changed.
    @discardableResult
    public func set(
        server: String, port: Int? = nil, scheme: CredentialScheme = .https, account: String, password: SecureBytes,
        details: CredentialDetails? = nil
    ) throws -> UpsertOutcome {
        try vault.credentials.batch { batch in
            let outcome = try batch.upsert(
                server: server, port: port, scheme: scheme, account: account, password: password, details: details)
            if outcome != .unchanged {
                try batch.recordAudit(event(.itemSet, server: server, port: port, scheme: scheme, account: account))
            }
            return outcome
        }
    }

    /// Removes a credential; returns whether one existed. Records `item-remove` when one did.
    @discardableResult
    public func remove(
        server: String, port: Int? = nil, scheme: CredentialScheme = .https, account: String
    ) throws -> Bool {
        try vault.credentials.batch { batch in
            guard try batch.delete(server: server, port: port, scheme: scheme, account: account) else { return false }
            try batch.recordAudit(event(.itemRemove, server: server, port: port, scheme: scheme, account: account))
            return true
        }
    }

    /// Renames a credential's account, keeping its password, details and dates; records
    /// `item-rename` with the new account name. See
    /// ``CredentialBatch/rename(server:port:scheme:account:to:)``.
    public func rename(
        server: String, port: Int? = nil, scheme: CredentialScheme = .https, account: String, to newAccount: String
    ) throws {
        try vault.credentials.batch { batch in
            try batch.rename(server: server, port: port, scheme: scheme, account: account, to: newAccount)
            try batch.recordAudit(event(.itemRename, server: server, port: port, scheme: scheme, account: newAccount))
        }
    }

    private func event(
        _ operation: AuditOperation, server: String, port: Int?, scheme: CredentialScheme, account: String
    ) -> AuditEvent {
        let site = CredentialSite(scheme: scheme, host: server.lowercased(), port: port)
        return AuditEvent(actor: .owner, operation: operation, domain: site.name, account: account)
    }
}

extension Vault {
    /// The owner's audited changes to credentials.
    public var items: OwnerItems { OwnerItems(vault: self) }
}
