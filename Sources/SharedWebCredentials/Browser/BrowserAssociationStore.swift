import Foundation

/// The `browser_associations` table (migration 0010): the browsers the owner approved.
///
/// Every row carries a MAC under the vault's state key over every column, and its MAC is in the
/// sealed grant set (``GrantSet``): a row written, edited or put back from an older copy by
/// someone without the vault key associates nothing. Approving and revoking each append an audit
/// entry in the same transaction.
public struct BrowserAssociationStore: Sendable {
    static let table = AuthenticatedTable(
        name: "browser_associations", columns: ["id", "identification_key", "allow_http", "consent", "created_at"],
        identityCount: 1)
    private let vault: Vault

    init(vault: Vault) {
        self.vault = vault
    }

    /// Stores the association the owner approved. Throws `.invalidInput` for a bad name or key,
    /// or a name already in use.
    @discardableResult
    public func add(
        id: String, identificationKey: [UInt8], allowsHTTP: Bool = false, consent: ConsentMode = .none,
        now: Date = Date()
    ) throws -> BrowserAssociation {
        try BrowserAssociation.validate(name: id)
        guard identificationKey.count == 32 else {
            throw SharedWebCredentialsError(
                .invalidInput, "a browser's identification key is 32 bytes; this one has \(identificationKey.count)")
        }
        let association = BrowserAssociation(
            id: id, identificationKey: identificationKey, allowsHTTP: allowsHTTP, consent: consent,
            createdAt: Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down)))
        try vault.write(grants: { db, keys, changes in
            guard try db.row("SELECT 1 FROM browser_associations WHERE id = ?", [.text(id)]) == nil else {
                throw SharedWebCredentialsError(
                    .invalidInput,
                    "a browser named \"\(id)\" is already associated: choose another name, or revoke it first with `swcred browser revoke`"
                )
            }
            let values = Self.values(of: association)
            let mac = Self.table.mac(values, keys: keys)
            try db.execute(
                "INSERT INTO browser_associations (\(Self.table.columns.joined(separator: ", ")), mac) VALUES (?, ?, ?, ?, ?, ?)",
                values + [.blob(mac)])
            changes.wrote(mac)
            try AuditChain.append(
                AuditEvent(
                    actor: .owner, operation: .browserAssociate,
                    detail:
                        "browser \(id); key \(BrowserAssociation.fingerprint(of: identificationKey)); http \(allowsHTTP ? "allowed" : "refused"); consent \(consent.rawValue)"
                ), at: Date(), db: db, keys: keys, path: vault.path)
        })
        return association
    }

    /// The association named `id`, if one is stored, intact and in the sealed grant set: what
    /// each request of a browser checks, so a revocation takes effect at its next request.
    /// Throws `.integrityFailure` for a row that fails its MAC or that the grant set does not hold.
    public func find(id: String) async throws -> BrowserAssociation? {
        try await vault.read { [vault] db, keys in
            guard let row = try db.row("\(Self.table.select) WHERE id = ?", [.text(id)]) else { return nil }
            let association = try Self.verified(row, keys: keys, path: vault.path)
            try GrantCheck.require(
                row.blob(Self.table.columns.count), what: "The association of browser \(id)", db: db, keys: keys,
                path: vault.path)
            return association
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
                id: id, identificationKey: current.identificationKey, allowsHTTP: allowsHTTP ?? current.allowsHTTP,
                consent: consent ?? current.consent, createdAt: current.createdAt)
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
            .text(association.id), .blob(association.identificationKey), .integer(association.allowsHTTP ? 1 : 0),
            .text(association.consent.rawValue), .integer(Int64(association.createdAt.timeIntervalSince1970)),
        ]
    }

    private static func verified(_ row: StoreRow, keys: VaultKeys, path: String) throws -> BrowserAssociation {
        guard table.isAuthentic(row, keys: keys), let id = row.text(0), let key = row.blob(1),
            let http = row.integer(2), let consent = row.text(3).flatMap(ConsentMode.init(rawValue:)),
            let created = row.integer(4)
        else {
            throw SharedWebCredentialsError(
                .integrityFailure,
                "The association of browser \(String(describing: row[0])) in \(path) failed authentication: it was written or changed by something other than swcred. Revoke it with `swcred browser revoke` and associate the browser again."
            )
        }
        return BrowserAssociation(
            id: id, identificationKey: key, allowsHTTP: http == 1, consent: consent,
            createdAt: Date(timeIntervalSince1970: TimeInterval(created)))
    }
}

extension Vault {
    /// The browsers the owner approved in this vault.
    public var browsers: BrowserAssociationStore { BrowserAssociationStore(vault: self) }
}
