import Foundation
import GRDB

/// The `associations` table: stored verdicts per (service, app, domain).
///
/// Every row carries a MAC under the vault's state key (`AuthenticatedTable`). A row whose MAC
/// fails is never trusted: it reads as missing (so the gate verifies the site again) and the
/// vault's warning handler is told.
public struct AssociationStore: Sendable {
    private let vault: Vault
    private static let table = AuthenticatedTable.associations

    /// The verdicts of an unlocked vault (``Vault/associations``).
    init(vault: Vault) {
        self.vault = vault
    }

    /// The `domain` column value for an entry: host with `*.` and `:port` as in the entitlement.
    public static func domainKey(for entry: AssociatedDomainEntry) -> String {
        let host = entry.host.contains(":") ? "[\(entry.host)]" : entry.host
        return (entry.isWildcard ? "*." : "") + host + (entry.port.map { ":\($0)" } ?? "")
    }

    /// The record for `entry` of `app`, or nil if the site was never asked or the stored record
    /// fails authentication.
    public func record(app: ApplicationIdentifier, entry: AssociatedDomainEntry) throws -> AssociationRecord? {
        try vault.read { db, keys in
            try Row.fetchOne(
                db.cachedStatement(sql: "\(Self.table.select) WHERE service = ? AND app = ? AND domain = ?"),
                arguments: [entry.service.rawValue, app.description, Self.domainKey(for: entry)]
            ).flatMap { try trusted($0, keys: keys, app: app) }
        }
    }

    /// Inserts or replaces `record`, auditing a changed verdict as saving a list of records does.
    public func save(_ record: AssociationRecord, by actor: AuditActor = .owner) throws {
        try save([record], by: actor)
    }

    /// Inserts or replaces many records in one transaction.
    ///
    /// Every record whose verdict differs from the one stored for its (service, app, domain),
    /// the first verdict stored for it included, appends a `verdict-change` entry as `actor` in
    /// the same transaction: the app, the domain, and as detail the service and both verdicts
    /// (`webcredentials: unverified → approved`; `none` before the first, `untrusted` for a row
    /// that failed authentication). An unchanged verdict appends nothing, however often it is
    /// re-checked. `actor` is ``AuditActor/owner`` for `swcred verify`, ``AuditActor/service``
    /// for the service's background re-verifier, the app for a check its request set off.
    public func save(_ records: [AssociationRecord], by actor: AuditActor = .owner) throws {
        try vault.write { db, keys in
            for record in records {
                let previous = try Self.storedVerdict(of: record, db: db, keys: keys)
                try Self.table.write(Self.values(of: record), db: db, keys: keys)
                if previous != record.verdict.rawValue {
                    try AuditChain.append(
                        AuditEvent(
                            actor: actor, operation: .verdictChange, domain: record.domain, app: record.app.description,
                            detail: "\(record.service.rawValue): \(previous) → \(record.verdict.rawValue)"),
                        at: Date(), db: db, keys: keys, path: vault.path)
                }
            }
        }
    }

    /// The verdict stored for the (service, app, domain) of `record`, as its audit entry names it:
    /// the raw value, `none` when nothing is stored, `untrusted` when the row fails authentication.
    private static func storedVerdict(of record: AssociationRecord, db: Database, keys: VaultKeys) throws -> String {
        guard
            let row = try Row.fetchOne(
                db.cachedStatement(sql: "\(table.select) WHERE service = ? AND app = ? AND domain = ?"),
                arguments: [record.service.rawValue, record.app.description, record.domain])
        else { return "none" }
        guard table.isAuthentic(row, keys: keys), let verdict = row["verdict"] as String? else { return "untrusted" }
        return verdict
    }

    /// Every trusted record, optionally only those of one app, ordered by app, service and
    /// domain. Records that fail authentication are left out (with a warning).
    public func all(app: ApplicationIdentifier? = nil) throws -> [AssociationRecord] {
        try vault.read { db, keys in
            let rows =
                if let app {
                    try Row.fetchAll(
                        db, sql: "\(Self.table.select) WHERE app = ? ORDER BY service, domain",
                        arguments: [app.description])
                } else {
                    try Row.fetchAll(db, sql: "\(Self.table.select) ORDER BY app, service, domain")
                }
            return try rows.compactMap { try trusted($0, keys: keys) }
        }
    }

    /// Passes a warning about stored verdicts to the vault's warning handler.
    func warn(_ message: String) {
        vault.warn(message)
    }

    /// The number of stored verdicts whose MAC fails.
    static func untrustedCount(_ db: Database, keys: VaultKeys) throws -> Int {
        try Row.fetchAll(db, sql: table.select).filter { !table.isAuthentic($0, keys: keys) }.count
    }

    /// The record of an authentic row; nil, with a warning, for one that fails authentication.
    /// The record of an authentic row; `app`, when given, is the app the row was selected by,
    /// which spares parsing its identifier again.
    private func trusted(_ row: Row, keys: VaultKeys, app: ApplicationIdentifier? = nil) throws -> AssociationRecord? {
        guard Self.table.isAuthentic(row, keys: keys) else {
            vault.warn(
                "The stored verdict for \(String(describing: row["app"] as DatabaseValue)) at \(String(describing: row["domain"] as DatabaseValue)) failed authentication (it was written or changed by something other than swcred): it counts as missing and is verified again."
            )
            return nil
        }
        return try Self.decode(row, app: app)
    }

    /// The column values of `record`, in `AuthenticatedTable.associations` order.
    static func values(of record: AssociationRecord) -> [DatabaseValue] {
        [
            record.service.rawValue.databaseValue, record.app.description.databaseValue,
            record.domain.databaseValue, record.verdict.rawValue.databaseValue, record.checkedAt.databaseValue,
            record.nextCheck.databaseValue, record.lastError.databaseValue, record.retryCount.databaseValue,
            record.documentDigest.map { Data($0) }.databaseValue, record.approvedAt.databaseValue,
        ]
    }

    private static func decode(_ row: Row, app selectedBy: ApplicationIdentifier? = nil) throws -> AssociationRecord {
        guard let service = AssociatedDomainEntry.Service(rawValue: row["service"]),
            let verdict = AssociationVerdict(rawValue: row["verdict"])
        else {
            throw SharedWebCredentialsError(
                .integrityFailure, "the associations table holds an unknown service or verdict")
        }
        return AssociationRecord(
            service: service, app: try app(row["app"], selectedBy: selectedBy), domain: row["domain"], verdict: verdict,
            checkedAt: row["checked_at"], nextCheck: row["next_check"], lastError: row["last_error"],
            retryCount: row["retry_count"], documentDigest: (row["document_digest"] as Data?).map { Array($0) },
            approvedAt: row["approved_at"])
    }

    /// The app of a row's `app` column: the app it was selected by when they are the same text.
    private static func app(_ text: String, selectedBy: ApplicationIdentifier?) throws -> ApplicationIdentifier {
        if let selectedBy, selectedBy.description == text { return selectedBy }
        return try ApplicationIdentifier(text)
    }
}
