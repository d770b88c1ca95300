import Foundation

/// The `apps` table: which apps the vault owner registered, with their entitlements.
///
/// Every row carries a MAC under the vault's state key (`AuthenticatedTable`); a registration
/// whose MAC fails was not written by swcred and fails with `.integrityFailure` (exit 9).
public struct AppRegistry: Sendable {
    private let vault: Vault
    private static let table = AuthenticatedTable.apps

    /// The registry of an unlocked vault (``Vault/apps``).
    init(vault: Vault) {
        self.vault = vault
    }

    /// Registers `app`; registering it again replaces its entitlement (and an Android app's
    /// signing-certificate fingerprints, ``ApplicationIdentifier/signingCertificates``) and drops
    /// verdicts for entries it no longer has, or all of them when the fingerprints changed (they
    /// were judged for the old certificates). Throws `invalidInput` when the entries do not suit
    /// the kind of app (``Entitlements/validate(for:)``). Records an `app-add` audit entry in the
    /// same transaction.
    public func register(_ app: ApplicationIdentifier, entitlements: Entitlements, at date: Date) throws {
        try entitlements.validate(for: app)
        let json = String(decoding: try JSONEncoder().encode(entitlements.entries), as: UTF8.self)
        var fingerprints = StoreValue.null
        if app.platform == .android {
            fingerprints = .text(String(decoding: try JSONEncoder().encode(app.signingCertificates), as: UTF8.self))
        }
        let domains = entitlements.entries.map { AssociationStore.domainKey(for: $0) }
        let identifier = StoreValue.text(app.description)
        try vault.write(grants: { db, keys, changes in
            // A re-registration keeps the first registration date, if that row is authentic.
            let existing = try db.row("\(Self.table.select) WHERE application_identifier = ?", [identifier])
            let registeredAt: StoreValue =
                if let existing, Self.table.isAuthentic(existing, keys: keys) { existing[2] } else { .date(date) }
            let certificatesChanged = existing.map { $0[3] != fingerprints } ?? false
            try Self.table.write(
                [identifier, .text(json), registeredAt, fingerprints], db: db, keys: keys, changes: changes)
            if certificatesChanged {
                try changes.delete(from: "associations", where: "app = ?", [identifier], db: db)
            }
            let kept = Set(zip(entitlements.entries.map(\.service.rawValue), domains).map { "\($0) \($1)" })
            let rows = try db.rows("SELECT service, domain FROM associations WHERE app = ?", [identifier])
            for row in rows where !kept.contains("\(row.text(0) ?? "") \(row.text(1) ?? "")") {
                try changes.delete(
                    from: "associations", where: "service = ? AND app = ? AND domain = ?",
                    [row[0], identifier, row[1]],
                    db: db)
            }
            try AuditChain.append(
                AuditEvent(actor: .owner, operation: .appAdd, app: app.description), at: Date(), db: db, keys: keys,
                path: vault.path)
        })
    }

    /// The registration of `app`, or nil. Throws `.integrityFailure` if its row fails authentication.
    public func find(_ app: ApplicationIdentifier) throws -> RegisteredApp? {
        try vault.read { db, keys in try Self.find(app, db: db, keys: keys, path: vault.path) }
    }

    /// The registration of `app` as the transaction `db` sees it, or nil.
    static func find(
        _ app: ApplicationIdentifier, db: any StoreReader, keys: VaultKeys, path: String
    ) throws
        -> RegisteredApp?
    {
        try registration(of: app, in: db.row(selectOne, [.text(app.description)]), db: db, keys: keys, path: path)
    }

    /// The query of one app's row.
    private static let selectOne = "\(table.select) WHERE application_identifier = ?"

    /// An `apps` row read in the same statement as something else (``AuthenticatedTable/selectedColumns``,
    /// all NULL when there was none), for ``registration(of:in:db:keys:path:)``.
    struct ReadRegistration: Sendable {
        let row: StoreRow?
    }

    /// The registration of `app` in `row` (``table``'s `select` columns; nil when the app has none),
    /// read in the transaction `db`: the row must be in the sealed grant set
    /// (``GrantCheck``), or a registration put back from an older copy would grant again.
    static func registration(
        of app: ApplicationIdentifier, in row: StoreRow?, db: any StoreReader, keys: VaultKeys, path: String
    ) throws
        -> RegisteredApp?
    {
        try row.map { row in
            let registered = try decode(row, keys: keys, path: path)
            // The engine chose the row, and another app's row is just as authentic: only its own
            // authenticated identifier says whose it is.
            guard row.text(0) == app.description else {
                throw SharedWebCredentialsError(
                    .integrityFailure,
                    "The database of \(path) answered the lookup of \(app)'s registration with \(registered.identifier)'s: it does not answer queries truthfully, so nothing it holds is trusted. Restore the vault from a backup."
                )
            }
            try GrantCheck.require(
                row.blob(table.columns.count), what: "The registration of \(app)", db: db, keys: keys, path: path)
            return registered
        }
    }

    /// The registration of `app`; throws `missingEntitlement` when it is not registered.
    public func require(_ app: ApplicationIdentifier) throws -> RegisteredApp {
        guard let registered = try find(app) else { throw Self.notRegistered(app) }
        return registered
    }

    /// The error for an app that is not registered.
    static func notRegistered(_ app: ApplicationIdentifier) -> SharedWebCredentialsError {
        SharedWebCredentialsError(
            .missingEntitlement, "\(app) is not registered; register it with `swcred app add \(app) ...`")
    }

    /// Every registered app, ordered by identifier. Throws `.integrityFailure` if any row fails
    /// authentication.
    public func all() throws -> [RegisteredApp] {
        try vault.read { db, keys in
            try db.rows("\(Self.table.select) ORDER BY application_identifier").map {
                try Self.decode($0, keys: keys, path: vault.path)
            }
        }
    }

    /// Removes `app` and its verdicts; returns whether it was registered. Works on a row that
    /// fails authentication too, which is how such a row is got rid of. Records an `app-remove`
    /// audit entry in the same transaction (also when the app was not registered), and always
    /// goes through: it also deletes every row the sealed grant set does not hold, with an entry
    /// of its own (``GrantChanges/removeUngranted(db:keys:operation:)``).
    @discardableResult
    public func remove(_ app: ApplicationIdentifier) throws -> Bool {
        try vault.write(grants: { db, keys, changes in
            // Its verdicts and tokens by name, not by the foreign keys' cascade: each leaves the set.
            try changes.delete(from: "associations", where: "app = ?", [.text(app.description)], db: db)
            try changes.delete(from: "app_tokens", where: "app = ?", [.text(app.description)], db: db)
            let removed =
                try changes.delete(
                    from: "apps", where: "application_identifier = ?", [.text(app.description)], db: db) > 0
            let removal = try changes.removeUngranted(db: db, keys: keys, operation: .appRemove)
            try AuditChain.append(
                [AuditEvent(actor: .owner, operation: .appRemove, app: app.description)] + (removal.map { [$0] } ?? []),
                at: Date(), db: db, keys: keys, path: vault.path)
            return removed
        })
    }

    /// The identifiers of registered apps whose rows fail authentication.
    static func untrustedApps(_ db: any StoreReader, keys: VaultKeys) throws -> [String] {
        try db.rows("\(table.select) ORDER BY application_identifier")
            .filter { !table.isAuthentic($0, keys: keys) }
            .map { String(describing: $0[0]) }
    }

    /// The error for an `apps` row that fails authentication.
    static func untrusted(_ identifier: StoreValue, path: String) -> SharedWebCredentialsError {
        let name = String(describing: identifier)
        return SharedWebCredentialsError(
            .integrityFailure,
            "The registration of \(name) in \(path) failed authentication: it was written or changed by something other than swcred, so it is not trusted. Remove it with `swcred app remove` and register the app again."
        )
    }

    private static func decode(_ row: StoreRow, keys: VaultKeys, path: String) throws -> RegisteredApp {
        guard table.isAuthentic(row, keys: keys), let identifier = row.text(0), let entitlements = row.text(1),
            let registeredAt = row.date(2)
        else {
            throw untrusted(row[0], path: path)
        }
        let key = ParsedAppCache.Key(
            applicationIdentifier: identifier, entitlements: entitlements, certificateFingerprints: row.text(3))
        let parsed = try ParsedAppCache.parsed(key) {
            let entries = try JSONDecoder().decode([String].self, from: Data(key.entitlements.utf8))
            var identifier = try ApplicationIdentifier(key.applicationIdentifier)
            if let fingerprints = key.certificateFingerprints {
                identifier = identifier.signed(
                    by: try JSONDecoder().decode([CertificateFingerprint].self, from: Data(fingerprints.utf8)))
            }
            return ParsedAppCache.Parsed(identifier: identifier, entitlements: try Entitlements(strings: entries))
        }
        return RegisteredApp(
            identifier: parsed.identifier, entitlements: parsed.entitlements, registeredAt: registeredAt)
    }
}
