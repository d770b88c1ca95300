/// The gated changes: `SecAddSharedWebCredential`'s add, update and delete.
extension SharedWebCredentials {
    /// Adds, updates or deletes a credential (`SecAddSharedWebCredential`).
    ///
    /// After the gate: no credential and a password adds; the same password changes nothing and
    /// asks nobody; a different password updates; no password (`nil`) deletes; no credential and
    /// no password is a success with nothing to do. Every real change is put to `confirm` first.
    ///
    /// A change contended by other writers waits its turn: it is decided again on the credential
    /// as its write transaction finds it, and goes back to `confirm` only when another writer
    /// turned it into a kind of change not yet confirmed (an add that became an update).
    ///
    /// - Parameters:
    ///   - password: the new password, or `nil` to delete.
    ///   - confirm: asked before the change is made; returning `false` cancels it.
    /// - Throws: `invalidInput` for an empty account or password or one longer than
    ///   ``Credential/maximumFieldBytes``, the gate's errors, `neverSave`
    ///   when the owner marked the host "never save", `declined` when `confirm` says no, or the
    ///   error of the audit entry (then nothing is changed: the change and its entry are one
    ///   transaction).
    @discardableResult
    public func add(
        domain: DomainTarget, account: String, password: SecureBytes?,
        confirm: (CredentialChange) async throws -> Bool
    ) async throws -> CredentialChangeOutcome {
        try await audited(password == nil ? .delete : .add, domain: domain, account: account) {
            try await change(domain: domain, account: account, password: password, confirm: confirm)
        }
    }

    /// Deletes a credential: ``add(domain:account:password:confirm:)`` without a password.
    @discardableResult
    public func delete(
        domain: DomainTarget, account: String, confirm: (CredentialChange) async throws -> Bool
    ) async throws -> CredentialChangeOutcome {
        try await add(domain: domain, account: account, password: nil, confirm: confirm)
    }

    /// The change after the gate.
    ///
    /// It is decided on the credential as read here, and a real change is put to `confirm`. The
    /// write transaction then decides again on the credential as it is under the write lock, and
    /// makes the change there when it is a no-op or of a kind already confirmed; only a kind not
    /// yet confirmed (another writer added or deleted the credential in between) goes back to
    /// `confirm`, and the next transaction decides again. A save is an add or an update and a
    /// delete is a delete, so at most two kinds are ever confirmed and at most three write
    /// transactions run: other writers make a change wait for the lock, never fail. Each
    /// outcome is named by what its own transaction found, and its audit entry is committed
    /// with it.
    private func change(
        domain: DomainTarget, account: String, password: SecureBytes?,
        confirm: (CredentialChange) async throws -> Bool
    ) async throws -> CredentialChangeOutcome {
        guard !account.isEmpty else {
            throw SharedWebCredentialsError(.invalidInput, "the account name is empty; give the account to save")
        }
        if let password, password.isEmpty {
            throw SharedWebCredentialsError(.invalidInput, "the password is empty; nothing was saved")
        }
        if let password { try Credential.checkFieldSizes(account: account, password: password, details: .none) }
        let registered = try await registeredApp()
        _ = try await gate.authorize(app: registered, domain: domain)
        let key = try CredentialKey(server: domain.host, port: domain.port)
        let decision = try await vault.read { [vault] db, keys in
            if password != nil, try NeverSaveStore.contains(db, index: keys.hostIndex(domain.host)) {
                throw SharedWebCredentialsError(
                    .neverSave,
                    "Item already exists for this server: the vault owner chose never to save passwords for \(domain.host) (clear it with `swcred never-save \(domain.host) --clear`)"
                )
            }
            let existing = try CredentialStore.findOne(key, account: account, db: db, keys: keys, vault: vault)
            return ChangeDecision(existing: existing, password: password)
        }
        var kind: CredentialChange.Kind
        switch decision {
        case .nothingToDelete, .unchanged:
            // Nothing to write: the entry alone, in a group commit, names what the read found.
            try await vault.audit.append(noOpEvent(decision, domain: domain, account: account))
            return decision == .unchanged ? .unchanged : .nothingToDelete
        case .change(let decided): kind = decided
        }
        var confirmed: Set<CredentialChange.Kind> = []
        while true {
            if confirmed.insert(kind).inserted {
                guard try await confirm(CredentialChange(kind: kind, domain: domain, account: account)) else {
                    throw AuditedRefusal(
                        operation: kind.auditOperation,
                        error: SharedWebCredentialsError(.declined, "declined: nothing was changed"))
                }
            }
            switch try await write(key, domain: domain, account: account, password: password, confirmed: confirmed) {
            case .done(let outcome): return outcome
            case .unconfirmed(let found): kind = found
            }
        }
    }

    /// What a change's write transaction did: the change, or nothing because it found a kind of
    /// change not yet confirmed.
    private enum ChangeWrite: Sendable {
        case done(CredentialChangeOutcome)
        case unconfirmed(CredentialChange.Kind)
    }

    /// Decides the change again on the credential as the write transaction finds it, and makes
    /// it with its audit entry when it is a no-op or one of the `confirmed` kinds.
    private func write(
        _ key: CredentialKey, domain: DomainTarget, account: String, password: SecureBytes?,
        confirmed: Set<CredentialChange.Kind>
    ) async throws -> ChangeWrite {
        try await vault.write(records: { [vault, self] db, keys, commitment -> ChangeWrite in
            let existing = try CredentialStore.findOne(key, account: account, db: db, keys: keys, vault: vault)
            let decision = ChangeDecision(existing: existing, password: password)
            let batch = CredentialBatch(db: db, keys: keys, commitment: commitment, vault: vault)
            guard case .change(let kind) = decision else {
                try batch.recordAudit(noOpEvent(decision, domain: domain, account: account))
                return .done(decision == .unchanged ? .unchanged : .nothingToDelete)
            }
            guard confirmed.contains(kind) else { return .unconfirmed(kind) }
            if let password {
                try batch.upsert(server: domain.host, port: domain.port, account: account, password: password)
            } else {
                try batch.delete(server: domain.host, port: domain.port, account: account)
            }
            try batch.recordAudit(event(kind.auditOperation, domain: domain, account: account))
            return .done(kind.outcome)
        })
    }

    /// The audit entry of a change that found nothing to do: done, with the detail that tells it
    /// from a real change.
    private func noOpEvent(_ decision: ChangeDecision, domain: DomainTarget, account: String) -> AuditEvent {
        decision == .unchanged
            ? event(.update, domain: domain, account: account, detail: Self.unchangedDetail)
            : event(.delete, domain: domain, account: account, detail: Self.nothingToDeleteDetail)
    }
}

/// What a save (a password) or a delete (none) does to the credential one transaction found.
private enum ChangeDecision: Equatable, Sendable {
    /// A real change, which needs the caller's confirmation.
    case change(CredentialChange.Kind)
    /// The same password is saved already.
    case unchanged
    /// A delete with no credential to delete.
    case nothingToDelete

    init(existing: Credential?, password: SecureBytes?) {
        switch (existing, password) {
        case (nil, nil): self = .nothingToDelete
        case (.some, nil): self = .change(.delete)
        case (nil, .some): self = .change(.add)
        case (.some(let saved), .some(let new)):
            self = saved.password.isEqual(to: new) ? .unchanged : .change(.update)
        }
    }
}

extension CredentialChange.Kind {
    /// The audit log's name for this change.
    fileprivate var auditOperation: AuditOperation {
        switch self {
        case .add: .add
        case .update: .update
        case .delete: .delete
        }
    }

    /// The outcome of this change once made.
    fileprivate var outcome: CredentialChangeOutcome {
        switch self {
        case .add: .added
        case .update: .updated
        case .delete: .deleted
        }
    }
}
