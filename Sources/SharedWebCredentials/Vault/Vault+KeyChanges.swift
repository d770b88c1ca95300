import Foundation
import Synchronization

extension Vault {
    /// Re-wraps the vault key under a new passphrase. `parameters` defaults to the current
    /// Argon2id parameters.
    ///
    /// The vault key itself does not change, so a saved copy of the old `vault_meta` row still
    /// opens the file with the old passphrase: after a passphrase leaked, pass `rotatingKey: true`
    /// to draw a new vault key and re-encrypt every record in the same transaction.
    ///
    /// Throws `.vaultLocked` if another process changed the passphrase or the key since this one
    /// unlocked the vault (nothing is changed then: the other change wins).
    public func changePassphrase(
        to newPassphrase: SecureBytes, parameters: KDFParameters? = nil, rotatingKey: Bool = false
    ) throws {
        guard case .passphrase(_, let currentParameters) = unlocked.withLock({ $0.protection }) else {
            throw SharedWebCredentialsError(
                .invalidInput, "This vault is unlocked with a key file; it has no passphrase to change.")
        }
        try Self.requireNonEmpty(newPassphrase)
        let chosen = parameters ?? currentParameters
        let salt = RandomBytes.array(count: PasswordHashing.saltLength)
        let wrappingKey = try PasswordHashing.deriveKey(
            length: AuthenticatedEncryption.keyLength, passphrase: newPassphrase, salt: salt, parameters: chosen)
        let protection = VaultMetadata.Protection.passphrase(salt: salt, parameters: chosen)
        try replaceKey(protection: protection, operation: .passwd) { db, current, granted in
            guard rotatingKey else { return (current.rewrapped(under: wrappingKey), []) }
            // App tokens and browsers' keys are hashed under the old key: a rotation revokes them,
            // as `rotateKey` does.
            let reason = "revoked by `swcred passwd --rekey`"
            let revocations =
                try AppTokenStore.revokeAll(db, keys: current, vault: self, reason: reason)
                + BrowserAssociationStore.revokeAll(db, reason: reason)
            return (
                try reencryptEverything(
                    db, from: current, to: VaultKeys.generate(wrappingKey: wrappingKey), granted: granted),
                revocations
            )
        }
    }

    /// Replaces the vault key with a new random one and re-encrypts every record and marker in
    /// one transaction. If anything fails (such as a damaged record, or a record set that does
    /// not match its commitment) nothing changes. Throws `.vaultLocked` if another process
    /// changed the passphrase or the key since this one unlocked the vault.
    ///
    /// App tokens and browser associations are revoked in the same transaction (their hashes are
    /// keyed by the old key, and neither the tokens nor the browsers' keys are stored); the result
    /// says how many.
    @discardableResult
    public func rotateKey() throws -> KeyRotation {
        var revoked = (tokens: 0, browsers: 0)
        try replaceKey(protection: unlocked.withLock { $0.protection }, operation: .rekey) { db, current, granted in
            let tokens = try AppTokenStore.revokeAll(
                db, keys: current, vault: self, reason: "revoked by the vault key's rotation")
            let browsers = try BrowserAssociationStore.revokeAll(db, reason: "revoked by the vault key's rotation")
            revoked = (tokens.count, browsers.count)
            let revocations = tokens + browsers
            let newKeys = try reencryptEverything(
                db, from: current, to: VaultKeys.generate(wrappingKey: current.wrappingKey), granted: granted)
            return (newKeys, revocations)
        }
        return KeyRotation(revokedAppTokens: revoked.tokens, revokedBrowsers: revoked.browsers)
    }

    /// Whether the vault key this instance holds, and its wrapping, are still the vault's: false
    /// once another process changed the passphrase (`swcred passwd`) or rotated the key
    /// (`swcred rekey`). A long-running holder (the service) checks it to lock itself: neither
    /// change leaves an unlock made before it standing.
    public func isUnlockCurrent() throws -> Bool {
        let (keyID, wrappedKey) = unlocked.withLock { ($0.keys.keyID, $0.wrappedKey) }
        return try storage.read { db in
            guard let row = try db.row("SELECT key_id, wrapped_key, \(StateSeal.columns) FROM vault_meta WHERE id = 1")
            else { return false }
            // The epoch a change moved to is one this process has now seen: an older row put back
            // after it is refused at the next unlock (``StateHighWater``).
            StateHighWater.raise(
                to: try SealedState(unchecked: StoreRow(Array(row.values.dropFirst(2))), path: path), path: path)
            return row.blob(0) == keyID && row.blob(1) == wrappedKey
        }
    }

    /// Re-seals every record and re-MACs every granted row (authentic and in `granted`) under
    /// `newKeys`, after checking the records against the commitment under the old keys (a
    /// rotation must not bless a tampered vault).
    private func reencryptEverything(
        _ db: any StoreWriter, from oldKeys: VaultKeys, to newKeys: VaultKeys, granted: Set<[UInt8]>
    ) throws
        -> VaultKeys
    {
        guard
            try RecordCommitment.compute(db, keys: oldKeys).matches(
                RecordCommitment.load(db, keys: oldKeys, path: path))
        else { throw recordSetMismatch }
        try CredentialStore.reencryptAll(db, from: oldKeys, to: newKeys, path: path)
        try NeverSaveStore.reencryptAll(db, from: oldKeys, to: newKeys, path: path)
        try PasskeyStore.reencryptAll(db, from: oldKeys, to: newKeys, path: path)
        try AuthenticatedRows.remacAll(db, from: oldKeys, to: newKeys, granted: granted)
        try AuditChain.reencryptAll(db, from: oldKeys, to: newKeys, path: path)
        return newKeys
    }

    /// Writes the key `makeKeys` returns (given the current keys) wrapped as `protection`, in one
    /// transaction, if `vault_meta` still holds what this process unlocked (compare and swap), and
    /// records `operation` in the audit log in the same transaction.
    private func replaceKey(
        protection: VaultMetadata.Protection, operation: AuditOperation,
        _ makeKeys: (any StoreWriter, VaultKeys, _ granted: Set<[UInt8]>) throws -> (
            VaultKeys, revocations: [AuditEvent]
        )
    ) throws {
        let expected = unlocked.withLock { $0 }
        let replaced = try sealedWrite { db -> UnlockedKey in
            let stored = try VaultMetadata.read(db, path: path)
            guard stored.keyID == expected.keys.keyID, stored.wrappedKey == expected.wrappedKey else {
                throw SharedWebCredentialsError(
                    .vaultLocked,
                    "Another process changed the passphrase or the key of \(path) after this one unlocked it; nothing was changed. Run the command again with the current passphrase."
                )
            }
            // The state must be the sealed one before the new key seals it: a change of key never
            // blesses a rollback. Rows the grant set does not hold go first (audited): re-MACed
            // under the new key they would be blessed, and left they would stop the change.
            _ = try SealedState.load(db, keys: expected.keys, path: path)
            let members = try GrantSet.memberRows(db)
            let membersMatch =
                (try? GrantSet.loadSum(db, keys: expected.keys, path: path)).map {
                    GrantSet.sum(of: members, keys: expected.keys).matches($0)
                } ?? false
            let ungranted = try GrantSet.removeUngranted(db, members: members, keys: expected.keys)
            let (newKeys, revocations) = try makeKeys(db, expected.keys, members)
            let rotated = newKeys.keyID != expected.keys.keyID
            var dropped: [AuditEvent] = []
            if rotated && !membersMatch {
                // Members that do not match their sum cannot say which of them was put back: a
                // rotation (which revoked every token and browser) keeps no verdict either, only
                // the apps, whose sites must still approve them.
                let verdicts = try db.execute("DELETE FROM associations", [])
                dropped.append(
                    AuditEvent(
                        actor: .owner, operation: operation,
                        detail:
                            "the grant set's members did not match their sealed sum (a member row was put back or deleted behind swcred's back, or the sum itself altered): every token and browser revoked, \(verdicts) verdict(s) dropped (each site is checked again at its next use), the apps kept"
                    ))
            }
            // One epoch more at every change, so that a copy of the old row (the old passphrase's
            // wrapping, or the retired key) is behind the epoch every process here saw since.
            let epoch = try StoredNumber.adding(1, to: stored.keyEpoch, "The key epoch", path: path)
            let metadata = Self.metadata(for: newKeys, protection: protection, epoch: epoch)
            try metadata.write(db)
            if rotated {
                // A new key: the records were checked against the old commitment before they
                // were re-sealed, so the commitment under the new key starts from them.
                try RecordCommitment.compute(db, keys: newKeys).storeUnsealed(db, keys: newKeys)
            }
            // Under a new key, the only authentic rows are those re-MACed from members just now;
            // under the same key, the set stays what it was, less what is gone (and members that
            // do not match their sum stay as they are: a new passphrase vouches for no row).
            if rotated {
                try GrantSet.replaceUnsealed(with: GrantSet.liveMACs(db, keys: newKeys), db: db, keys: newKeys)
            } else if membersMatch {
                try GrantSet.replaceUnsealed(
                    with: members.intersection(GrantSet.liveMACs(db, keys: newKeys)), db: db, keys: newKeys)
            }
            try StateSeal.reseal(db, keys: newKeys, path: path)
            let removal = GrantSet.removalEntry(ungranted, operation: operation)
            _ = try AuditChain.append(
                revocations + (removal.map { [$0] } ?? []) + dropped + [
                    AuditEvent(actor: .owner, operation: operation)
                ],
                at: Date(), db: db, keys: newKeys, path: path)
            return UnlockedKey(keys: newKeys, protection: protection, wrappedKey: metadata.wrappedKey)
        }
        unlocked.withLock { $0 = replaced }
    }
}

/// What a vault key rotation did beyond re-encrypting records.
public struct KeyRotation: Sendable, Equatable {
    /// The app tokens it revoked.
    public let revokedAppTokens: Int
    /// The browser associations it revoked.
    public let revokedBrowsers: Int
}
