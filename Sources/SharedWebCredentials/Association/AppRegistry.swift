import Foundation
import GRDB

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
        var fingerprints = DatabaseValue.null
        if app.platform == .android {
            fingerprints =
                String(decoding: try JSONEncoder().encode(app.signingCertificates), as: UTF8.self).databaseValue
        }
        let domains = entitlements.entries.map { AssociationStore.domainKey(for: $0) }
        try vault.write { db, keys in
            // A re-registration keeps the first registration date, if that row is authentic.
            let existing = try Row.fetchOne(
                db, sql: "\(Self.table.select) WHERE application_identifier = ?", arguments: [app.description])
            let registeredAt: DatabaseValue =
                if let existing, Self.table.isAuthentic(existing, keys: keys) {
                    existing["registered_at"]
                } else {
                    date.databaseValue
                }
            let certificatesChanged =
                existing.map { ($0["certificate_fingerprints"] as DatabaseValue) != fingerprints } ?? false
            try Self.table.write(
                [app.description.databaseValue, json.databaseValue, registeredAt, fingerprints], db: db, keys: keys)
            if certificatesChanged {
                try db.execute(sql: "DELETE FROM associations WHERE app = ?", arguments: [app.description])
            }
            let kept = Set(zip(entitlements.entries.map(\.service.rawValue), domains).map { "\($0) \($1)" })
            let rows = try Row.fetchAll(
                db, sql: "SELECT service, domain FROM associations WHERE app = ?", arguments: [app.description])
            for row in rows where !kept.contains("\(row["service"] as String) \(row["domain"] as String)") {
                try db.execute(
                    sql: "DELETE FROM associations WHERE service = ? AND app = ? AND domain = ?",
                    arguments: [row["service"] as String, app.description, row["domain"] as String])
            }
            try AuditChain.append(
                AuditEvent(actor: .owner, operation: .appAdd, app: app.description), at: Date(), db: db, keys: keys,
                path: vault.path)
        }
    }

    /// The registration of `app`, or nil. Throws `.integrityFailure` if its row fails authentication.
    public func find(_ app: ApplicationIdentifier) throws -> RegisteredApp? {
        try vault.read { db, keys in
            try Row.fetchOne(
                db.cachedStatement(sql: "\(Self.table.select) WHERE application_identifier = ?"),
                arguments: [app.description]
            ).map { try decode($0, keys: keys) }
        }
    }

    /// The registration of `app`; throws `missingEntitlement` when it is not registered.
    public func require(_ app: ApplicationIdentifier) throws -> RegisteredApp {
        guard let registered = try find(app) else {
            throw SharedWebCredentialsError(
                .missingEntitlement, "\(app) is not registered; register it with `swcred app add \(app) ...`")
        }
        return registered
    }

    /// Every registered app, ordered by identifier. Throws `.integrityFailure` if any row fails
    /// authentication.
    public func all() throws -> [RegisteredApp] {
        try vault.read { db, keys in
            try Row.fetchAll(db, sql: "\(Self.table.select) ORDER BY application_identifier").map {
                try decode($0, keys: keys)
            }
        }
    }

    /// Removes `app` and its verdicts; returns whether it was registered. Works on a row that
    /// fails authentication too, which is how such a row is got rid of. Records an `app-remove`
    /// audit entry in the same transaction (also when the app was not registered).
    @discardableResult
    public func remove(_ app: ApplicationIdentifier) throws -> Bool {
        try vault.write { db, keys in
            try db.execute(sql: "DELETE FROM associations WHERE app = ?", arguments: [app.description])
            try db.execute(sql: "DELETE FROM apps WHERE application_identifier = ?", arguments: [app.description])
            let removed = db.changesCount > 0
            try AuditChain.append(
                AuditEvent(actor: .owner, operation: .appRemove, app: app.description), at: Date(), db: db, keys: keys,
                path: vault.path)
            return removed
        }
    }

    /// The identifiers of registered apps whose rows fail authentication.
    static func untrustedApps(_ db: Database, keys: VaultKeys) throws -> [String] {
        try Row.fetchAll(db, sql: "\(table.select) ORDER BY application_identifier")
            .filter { !table.isAuthentic($0, keys: keys) }
            .map { String(describing: $0[0] as DatabaseValue) }
    }

    /// The error for an `apps` row that fails authentication.
    static func untrusted(_ identifier: DatabaseValue, path: String) -> SharedWebCredentialsError {
        let name = String(describing: identifier)
        return SharedWebCredentialsError(
            .integrityFailure,
            "The registration of \(name) in \(path) failed authentication: it was written or changed by something other than swcred, so it is not trusted. Remove it with `swcred app remove` and register the app again."
        )
    }

    private func decode(_ row: Row, keys: VaultKeys) throws -> RegisteredApp {
        guard Self.table.isAuthentic(row, keys: keys) else {
            throw Self.untrusted(row[0] as DatabaseValue, path: vault.path)
        }
        let key = ParsedAppCache.Key(
            applicationIdentifier: row["application_identifier"], entitlements: row["entitlements"],
            certificateFingerprints: row["certificate_fingerprints"])
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
            identifier: parsed.identifier, entitlements: parsed.entitlements, registeredAt: row["registered_at"])
    }
}
