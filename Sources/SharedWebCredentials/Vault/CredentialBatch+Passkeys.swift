import Foundation

/// Passkeys inside an import's transaction (``CredentialStore/batch(_:)``): what the file gives
/// is matched by credential ID, the one thing that names a passkey everywhere.
extension CredentialBatch {
    /// The passkey with this credential ID, opened; nil when the vault has none.
    public func passkey(credentialID: [UInt8]) throws -> Passkey? {
        try PasskeyStore.find(credentialID: credentialID, db: db, keys: keys, vault: vault)
    }

    /// Saves `passkey`, replacing a passkey with the same credential ID if there is one; returns
    /// whether it was added or replaced. The import's audit entry covers it.
    @discardableResult
    public func savePasskey(_ passkey: Passkey) throws -> UpsertOutcome {
        let replaced = try PasskeyStore.delete(
            credentialID: passkey.credentialID, db: db, keys: keys, vault: vault, commitment: commitment)
        try PasskeyStore.insert(passkey, db: db, keys: keys, commitment: commitment)
        return replaced == nil ? .added : .updated
    }
}

extension Passkey {
    /// Whether `other` is this passkey in every field the vault keeps (the private key compared in
    /// constant time), so that importing it again changes nothing.
    public func isSame(as other: Passkey) -> Bool {
        credentialID == other.credentialID && rpID == other.rpID && userHandle == other.userHandle
            && userName == other.userName && userDisplayName == other.userDisplayName
            && algorithm == other.algorithm && privateKey.secret.isEqual(to: other.privateKey.secret)
    }
}
