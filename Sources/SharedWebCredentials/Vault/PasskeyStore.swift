import Foundation

/// The passkeys of the vault (table `passkeys`, migration 0007): each sealed like a password
/// record under the record key, with ``PasskeyPayload`` inside, found through the keyed blind
/// index of its RP ID or of its credential ID, and counted in the record commitment.
///
/// This is the owner's ungated view (`swcred passkey list|show|remove`); apps create and use
/// passkeys only through ``SharedWebCredentials/createPasskey(optionsJSON:presence:)`` and
/// ``SharedWebCredentials/getPasskey(optionsJSON:presence:)``, behind the gate.
public struct PasskeyStore: Sendable {
    let vault: Vault

    /// Every passkey, sorted by RP ID, user name and creation date; without key material.
    public func all() throws -> [PasskeySummary] {
        try vault.read { db, keys in
            try Self.openAll(db, keys: keys, vault: vault, where: nil).map(PasskeySummary.init).sorted()
        }
    }

    /// The passkeys of one relying party (RP ID), found by its blind index.
    public func forRelyingParty(_ rpID: String) throws -> [PasskeySummary] {
        let relyingParty = try Self.relyingParty(rpID)
        return try vault.read { db, keys in
            try Self.find(relyingParty, db: db, keys: keys, vault: vault).map(PasskeySummary.init).sorted()
        }
    }

    /// The passkey with this credential ID (base64url), or nil.
    public func find(credentialID: String) throws -> PasskeySummary? {
        let id = try Self.credentialID(credentialID)
        return try vault.read { db, keys in
            try Self.find(credentialID: id, db: db, keys: keys, vault: vault).map(PasskeySummary.init)
        }
    }

    /// How many passkeys the vault holds.
    public func count() throws -> Int {
        try vault.read { db, _ in Int(try db.integer("SELECT count(*) FROM passkeys") ?? 0) }
    }

    /// Calls `body` with every passkey, private key included, in one read transaction: what an
    /// export writes. A row that fails authentication fails the whole call.
    public func forEachWithPrivateKey(_ body: (Passkey) throws -> Void) throws {
        try vault.read { db, keys in
            for passkey in try Self.openAll(db, keys: keys, vault: vault, where: nil) { try body(passkey) }
        }
    }

    /// Removes the passkey with this credential ID (base64url), with a `passkey-remove` audit
    /// entry in the same transaction. Returns whether there was one (none: nothing recorded).
    @discardableResult
    public func remove(credentialID: String) throws -> Bool {
        let id = try Self.credentialID(credentialID)
        return try vault.write(records: { db, keys, commitment in
            guard
                let passkey = try Self.delete(
                    credentialID: id, db: db, keys: keys, vault: vault, commitment: commitment)
            else { return false }
            try AuditChain.append(
                AuditEvent(
                    actor: .owner, operation: .passkeyRemove, domain: passkey.rpID.value, account: passkey.userName,
                    detail: "credential \(credentialID)"),
                at: Date(), db: db, keys: keys, path: vault.path)
            return true
        })
    }

    // MARK: Inside transactions

    /// Seals `passkey` into a new row and adds it to the commitment; the caller appends the
    /// audit entry in the same transaction. A credential ID already stored is refused.
    static func insert(_ passkey: Passkey, db: any StoreWriter, keys: VaultKeys, commitment: RecordCommitment) throws {
        let id = RandomBytes.array(count: 16)
        let rpIndex = keys.passkeyRelyingPartyIndex(passkey.rpID.value)
        let credentialIndex = keys.passkeyCredentialIndex(passkey.credentialID)
        let version: Int64 = 1
        try db.execute(
            "INSERT INTO passkeys (id, rp_index, credential_index, sealed, version) VALUES (?, ?, ?, ?, ?)",
            [
                .blob(id), .blob(rpIndex), .blob(credentialIndex),
                .blob(seal(passkey, id: id, rpIndex: rpIndex, credentialIndex: credentialIndex, version, keys)),
                .integer(version),
            ])
        commitment.insertPasskey(id: id, version: version, keys: keys)
    }

    /// Deletes the passkey with this credential ID and takes it out of the commitment; returns
    /// it, or nil when there is none. The caller audits.
    static func delete(
        credentialID: [UInt8], db: any StoreWriter, keys: VaultKeys, vault: Vault, commitment: RecordCommitment
    ) throws -> Passkey? {
        let index = keys.passkeyCredentialIndex(credentialID)
        guard let passkey = try openAll(db, keys: keys, vault: vault, where: index).first,
            let row = try db.row("SELECT id, version FROM passkeys WHERE credential_index = ?", [.blob(index)]),
            let rowID = row.blob(0), let version = row.integer(1)
        else { return nil }
        _ = try db.execute("DELETE FROM passkeys WHERE credential_index = ?", [.blob(index)])
        commitment.removePasskey(id: rowID, version: version, keys: keys)
        return passkey
    }

    /// The passkey with this credential ID, opened, or nil.
    static func find(credentialID: [UInt8], db: any StoreReader, keys: VaultKeys, vault: Vault) throws -> Passkey? {
        guard
            let passkey = try openAll(db, keys: keys, vault: vault, where: keys.passkeyCredentialIndex(credentialID))
                .first
        else { return nil }
        // The engine chose the row; only the sealed passkey says which it is.
        guard passkey.credentialID == credentialID else { throw vault.recordFailure(db, keys: keys, what: "A passkey") }
        return passkey
    }

    /// The passkeys of `rpID`, opened; a row that fails authentication fails the read.
    static func find(_ rpID: RelyingPartyID, db: any StoreReader, keys: VaultKeys, vault: Vault) throws -> [Passkey] {
        try db.rows(
            "SELECT id, rp_index, credential_index, sealed, version FROM passkeys WHERE rp_index = ?",
            [.blob(keys.passkeyRelyingPartyIndex(rpID.value))]
        ).map { row in
            guard let passkey = try open(row, keys: keys), passkey.rpID == rpID else {
                throw vault.recordFailure(db, keys: keys, what: "A passkey")
            }
            return passkey
        }
    }

    /// Opens every passkey, or the one with this credential index.
    private static func openAll(
        _ db: any StoreReader, keys: VaultKeys, vault: Vault, where credentialIndex: [UInt8]?
    ) throws -> [Passkey] {
        let select = "SELECT id, rp_index, credential_index, sealed, version FROM passkeys"
        let rows =
            try credentialIndex.map { try db.rows(select + " WHERE credential_index = ?", [.blob($0)]) }
            ?? db.rows(select)
        return try rows.map { row in
            guard let passkey = try open(row, keys: keys) else {
                throw vault.recordFailure(db, keys: keys, what: "A passkey")
            }
            return passkey
        }
    }

    /// Opens every passkey and counts those that fail authentication or do not match their
    /// indexes.
    static func verify(_ db: any StoreReader, keys: VaultKeys) throws -> (checked: Int, damaged: Int) {
        let rows = try db.rows("SELECT id, rp_index, credential_index, sealed, version FROM passkeys")
        return (rows.count, rows.filter { ((try? open($0, keys: keys)) ?? nil) == nil }.count)
    }

    /// Re-seals every passkey under `newKeys` (new indexes too). Part of key rotation; the
    /// commitment is computed afresh by the caller.
    static func reencryptAll(_ db: any StoreWriter, from oldKeys: VaultKeys, to newKeys: VaultKeys, path: String) throws
    {
        let rows = try db.rows("SELECT id, rp_index, credential_index, sealed, version FROM passkeys")
        try db.execute("DELETE FROM passkeys", [])
        for row in rows {
            guard let passkey = (try? open(row, keys: oldKeys)) ?? nil, let id = row.blob(0),
                let version = row.integer(4)
            else {
                throw SharedWebCredentialsError(
                    .integrityFailure,
                    "A passkey in \(path) failed authentication, so the key was not rotated (nothing changed).")
            }
            let rpIndex = newKeys.passkeyRelyingPartyIndex(passkey.rpID.value)
            let credentialIndex = newKeys.passkeyCredentialIndex(passkey.credentialID)
            try db.execute(
                "INSERT INTO passkeys (id, rp_index, credential_index, sealed, version) VALUES (?, ?, ?, ?, ?)",
                [
                    .blob(id), .blob(rpIndex), .blob(credentialIndex),
                    .blob(seal(passkey, id: id, rpIndex: rpIndex, credentialIndex: credentialIndex, version, newKeys)),
                    .integer(version),
                ])
        }
    }

    // MARK: Sealing

    private static func seal(
        _ passkey: Passkey, id: [UInt8], rpIndex: [UInt8], credentialIndex: [UInt8], _ version: Int64,
        _ keys: VaultKeys
    ) -> [UInt8] {
        AuthenticatedEncryption.seal(
            PasskeyPayload.encode(passkey), key: keys.recordKey,
            associatedData: VaultKeys.passkeyAssociatedData(
                id: id, rpIndex: rpIndex, credentialIndex: credentialIndex, version: version))
    }

    /// The passkey of a row (id, rp_index, credential_index, sealed, version), or nil when it
    /// fails authentication or its indexes are not those of what it holds.
    private static func open(_ row: StoreRow, keys: VaultKeys) throws -> Passkey? {
        guard let id = row.blob(0), let rpIndex = row.blob(1), let credentialIndex = row.blob(2),
            let sealed = row.blob(3), let version = row.integer(4),
            let payload = AuthenticatedEncryption.open(
                sealed, key: keys.recordKey,
                associatedData: VaultKeys.passkeyAssociatedData(
                    id: id, rpIndex: rpIndex, credentialIndex: credentialIndex, version: version))
        else { return nil }
        let passkey = try PasskeyPayload.decode(payload)
        guard keys.passkeyRelyingPartyIndex(passkey.rpID.value) == rpIndex,
            keys.passkeyCredentialIndex(passkey.credentialID) == credentialIndex
        else { return nil }
        return passkey
    }

    private static func relyingParty(_ rpID: String) throws -> RelyingPartyID {
        do {
            return try RelyingPartyID(rpID)
        } catch {
            throw error.sharedWebCredentialsError
        }
    }

    private static func credentialID(_ text: String) throws -> [UInt8] {
        guard let bytes = Base64URL.decode(text), !bytes.isEmpty else {
            throw SharedWebCredentialsError(
                .invalidInput, "a credential ID is unpadded base64url, as `swcred passkey list` prints it")
        }
        return bytes
    }
}

/// What the owner sees of a passkey: never its private key.
public struct PasskeySummary: Sendable, Equatable, Comparable {
    /// The credential ID, unpadded base64url.
    public let credentialID: String
    /// The relying party.
    public let rpID: String
    /// `user.name` and `user.displayName` at creation.
    public let userName: String
    public let userDisplayName: String
    /// The user handle, unpadded base64url.
    public let userHandle: String
    /// `ES256` or `EdDSA`.
    public let algorithm: String
    /// The public key, DER SubjectPublicKeyInfo in unpadded base64url (empty if unreadable).
    public let publicKey: String
    /// When it was created.
    public let created: Date

    init(_ passkey: Passkey) {
        credentialID = Base64URL.encode(passkey.credentialID)
        rpID = passkey.rpID.value
        userName = passkey.userName
        userDisplayName = passkey.userDisplayName
        userHandle = Base64URL.encode(passkey.userHandle)
        algorithm = passkey.algorithm == .es256 ? "ES256" : "EdDSA"
        publicKey = (try? SubjectPublicKeyInfo.der(of: passkey.privateKey)).map(Base64URL.encode) ?? ""
        created = passkey.created
    }

    public static func < (lhs: PasskeySummary, rhs: PasskeySummary) -> Bool {
        (lhs.rpID, lhs.userName, lhs.created, lhs.credentialID) < (
            rhs.rpID, rhs.userName, rhs.created, rhs.credentialID
        )
    }
}

extension Vault {
    /// The vault's passkeys (the owner's view).
    public var passkeys: PasskeyStore { PasskeyStore(vault: self) }
}
