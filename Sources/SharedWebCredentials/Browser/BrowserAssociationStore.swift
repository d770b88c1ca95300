import Foundation

/// The `browser_associations` table (migrations 0010 and 0011): the browsers the owner approved.
///
/// A browser's identification key is not stored: a keyed hash of it is (``VaultKeys/browserKeyHash(_:)``,
/// as an app token's), with its fingerprint for display, so a copy of the vault file holds nothing
/// a browser proves. Every row carries a MAC under the vault's state key over every column, and
/// its MAC is in the sealed grant set (``GrantSet``): a row written, edited or put back from an
/// older copy by someone without the vault key associates nothing. Approving and revoking each
/// append an audit entry in the same transaction.
public struct BrowserAssociationStore: Sendable {
    static let table = AuthenticatedTable(
        name: "browser_associations",
        columns: ["id", "key_hash", "fingerprint", "allow_http", "consent", "created_at"],
        identityCount: 1)
    private let vault: Vault

    init(vault: Vault) {
        self.vault = vault
    }

    /// Stores the association the owner approved. `requestedBy` is the executable of the program
    /// that asked for it (over the browser socket), named in the audit entry; never its command
    /// line. Throws `.invalidInput` for a bad name or key, or a name already in use.
    @discardableResult
    public func add(
        id: String, identificationKey: [UInt8], allowsHTTP: Bool = false, consent: ConsentMode = .none,
        requestedBy: String? = nil, now: Date = Date()
    ) throws -> BrowserAssociation {
        try BrowserAssociation.validate(name: id)
        guard identificationKey.count == 32 else {
            throw SharedWebCredentialsError(
                .invalidInput, "a browser's identification key is 32 bytes; this one has \(identificationKey.count)")
        }
        let fingerprint = BrowserAssociation.fingerprint(of: identificationKey)
        let createdAt = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
        return try vault.write(grants: { db, keys, changes in
            guard try db.row("SELECT 1 FROM browser_associations WHERE id = ?", [.text(id)]) == nil else {
                throw SharedWebCredentialsError(
                    .invalidInput,
                    "a browser named \"\(id)\" is already associated: choose another name, or revoke it first with `swcred browser revoke`"
                )
            }
            let association = BrowserAssociation(
                id: id, fingerprint: fingerprint, keyHash: keys.browserKeyHash(identificationKey),
                allowsHTTP: allowsHTTP, consent: consent, createdAt: createdAt)
            let values = Self.values(of: association)
            let mac = Self.table.mac(values, keys: keys)
            try db.execute(
                "INSERT INTO browser_associations (\(Self.table.columns.joined(separator: ", ")), mac) VALUES (?, ?, ?, ?, ?, ?, ?)",
                values + [.blob(mac)])
            changes.wrote(mac)
            try AuditChain.append(
                AuditEvent(
                    actor: .owner, operation: .browserAssociate,
                    detail:
                        "browser \(id); key \(fingerprint); http \(allowsHTTP ? "allowed" : "refused"); consent \(consent.rawValue)"
                        + (requestedBy.map { "; asked by \($0)" } ?? "")
                ), at: Date(), db: db, keys: keys, path: vault.path)
            return association
        })
    }

    /// The association named `id` if one is stored for exactly `identificationKey` (compared by
    /// its keyed hash, in constant time), intact and in the sealed grant set: what each request of
    /// a browser checks, so a revocation takes effect at its next request and a name alone proves
    /// nothing. Throws `.integrityFailure` for a row that fails its MAC or that the grant set does
    /// not hold.
    public func find(id: String, identifiedBy identificationKey: [UInt8]) async throws -> BrowserAssociation? {
        try await vault.read { [vault] db, keys in
            guard let row = try db.row("\(Self.table.select) WHERE id = ?", [.text(id)]) else { return nil }
            let association = try Self.verified(row, keys: keys, path: vault.path)
            try GrantCheck.require(
                row.blob(Self.table.columns.count), what: "The association of browser \(id)", db: db, keys: keys,
                path: vault.path)
            return association.isIdentified(byHash: keys.browserKeyHash(identificationKey)) ? association : nil
        }
    }

    /// Every association, by name. Throws `.integrityFailure` when a row fails its MAC.
    public func list() throws -> [BrowserAssociation] {
        try vault.read { db, keys in
            try db.rows("\(Self.table.select) ORDER BY id").map { try Self.verified($0, keys: keys, path: vault.path) }
        }
    }

    /// The names of the associations that grant nothing because the sealed grant set does not
    /// hold them (put back behind swcred's back): `browser list` marks them.
    public func ungrantedNames() throws -> Set<String> {
        try vault.read { db, keys in
            try GrantSet.ungranted(
                Self.table.select, macColumn: Self.table.columns.count, db: db, keys: keys, path: vault.path)
        }
    }

    /// Changes what the association named `id` allows: http:// pages, and whether releases wait
    /// for the owner. Throws `.itemNotFound` when there is none, `.integrityFailure` when its row
    /// fails its MAC. Appends a `browser-associate` entry naming the new settings.
    @discardableResult
    public func update(id: String, allowsHTTP: Bool? = nil, consent: ConsentMode? = nil) throws -> BrowserAssociation {
        try vault.write(grants: { db, keys, changes in
            guard let row = try db.row("\(Self.table.select) WHERE id = ?", [.text(id)]) else {
                throw SharedWebCredentialsError(
                    .itemNotFound, "no browser is named \"\(id)\"; `swcred browser list` shows the names")
            }
            let current = try Self.verified(row, keys: keys, path: vault.path)
            let updated = BrowserAssociation(
                id: id, fingerprint: current.fingerprint, keyHash: current.keyHash,
                allowsHTTP: allowsHTTP ?? current.allowsHTTP, consent: consent ?? current.consent,
                createdAt: current.createdAt)
            try Self.table.write(Self.values(of: updated), db: db, keys: keys, changes: changes)
            try AuditChain.append(
                AuditEvent(
                    actor: .owner, operation: .browserAssociate,
                    detail:
                        "browser \(id) changed; http \(updated.allowsHTTP ? "allowed" : "refused"); consent \(updated.consent.rawValue)"
                ), at: Date(), db: db, keys: keys, path: vault.path)
            return updated
        })
    }

    /// Deletes the association named `id`; returns whether there was one. Works on a row that
    /// fails authentication too. Appends a `browser-revoke` entry in the same transaction, and
    /// always goes through: it also deletes every row the sealed grant set does not hold, with an
    /// entry of its own (``GrantChanges/removeUngranted(db:keys:operation:)``).
    @discardableResult
    public func revoke(id: String) throws -> Bool {
        try vault.write(grants: { db, keys, changes -> Bool in
            let found = try changes.delete(from: "browser_associations", where: "id = ?", [.text(id)], db: db) > 0
            var entries = found ? [AuditEvent(actor: .owner, operation: .browserRevoke, detail: "browser \(id)")] : []
            if let removal = try changes.removeUngranted(db: db, keys: keys, operation: .browserRevoke) {
                entries.append(removal)
            }
            if !entries.isEmpty { try AuditChain.append(entries, at: Date(), db: db, keys: keys, path: vault.path) }
            return found
        })
    }

    /// Deletes every association in the same transaction as a vault key rotation: their key hashes
    /// were keyed by the old key and cannot be recomputed without the browsers' keys. Returns the
    /// `browser-revoke` entry of each, for the caller to append under the new key in the same
    /// transaction (as ``AppTokenStore`` does for tokens).
    static func revokeAll(_ db: any StoreWriter, reason: String) throws -> [AuditEvent] {
        let events = try db.rows("SELECT id FROM browser_associations ORDER BY id").map { row in
            AuditEvent(actor: .owner, operation: .browserRevoke, detail: "browser \(row.text(0) ?? "?"); \(reason)")
        }
        try db.execute("DELETE FROM browser_associations", [])
        return events
    }

    /// Ends, at the unlock that applied migration 0011, the associations stored before it (their
    /// names wait in `browser_associations_ended`): each gets a `browser-revoke` entry, in one
    /// transaction with its deletion. (Their MACs leave the grant set when the list that held
    /// them becomes members, ``GrantListUpgrade``.) Their keys were stored in the clear, and may
    /// be in any copy of the file made before: they are not re-keyed.
    static func endClearKeyAssociations(_ storage: any VaultStorage, keys: VaultKeys, path: String) throws {
        try storage.write(durability: .synced) { db in
            let ended = try db.rows("SELECT id FROM browser_associations_ended ORDER BY id").map { row in
                AuditEvent(
                    actor: .owner, operation: .browserRevoke,
                    detail:
                        "browser \(row.text(0) ?? "?"); ended by the upgrade that stopped storing browsers' keys in the clear: associate it again"
                )
            }
            guard !ended.isEmpty else { return }  // another process ended them while this one unlocked
            try db.execute("DELETE FROM browser_associations_ended", [])
            try AuditChain.append(ended, at: Date(), db: db, keys: keys, path: path)
        }
    }

    /// The hash that names this vault to a browser (KeePassXC's database hash): a keyed hash that
    /// says nothing beyond "this vault", stable while the vault key stays the same.
    public func databaseHash() throws -> String {
        try vault.read { _, keys in
            keys.stateMAC(table: "browser", fields: [Array("database-hash".utf8)]).map { String(format: "%02x", $0) }
                .joined()
        }
    }

    /// The column values of `association`, in ``table``'s order.
    private static func values(of association: BrowserAssociation) -> [StoreValue] {
        [
            .text(association.id), .blob(association.keyHash), .text(association.fingerprint),
            .integer(association.allowsHTTP ? 1 : 0), .text(association.consent.rawValue),
            .integer(Int64(association.createdAt.timeIntervalSince1970)),
        ]
    }

    private static func verified(_ row: StoreRow, keys: VaultKeys, path: String) throws -> BrowserAssociation {
        guard table.isAuthentic(row, keys: keys), let id = row.text(0), let keyHash = row.blob(1),
            let fingerprint = row.text(2), let http = row.integer(3),
            let consent = row.text(4).flatMap(ConsentMode.init(rawValue:)), let created = row.integer(5)
        else {
            throw SharedWebCredentialsError(
                .integrityFailure,
                "The association of browser \(String(describing: row[0])) in \(path) failed authentication: it was written or changed by something other than swcred. Revoke it with `swcred browser revoke` and associate the browser again."
            )
        }
        return BrowserAssociation(
            id: id, fingerprint: fingerprint, keyHash: keyHash, allowsHTTP: http == 1, consent: consent,
            createdAt: Date(timeIntervalSince1970: TimeInterval(created)))
    }
}

extension Vault {
    /// The browsers the owner approved in this vault.
    public var browsers: BrowserAssociationStore { BrowserAssociationStore(vault: self) }
}
