import Foundation

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
        let host = entry.host.utf8.contains(UInt8(ascii: ":")) ? "[\(entry.host)]" : entry.host
        return (entry.isWildcard ? "*." : "") + host + (entry.port.map { ":\($0)" } ?? "")
    }

    /// The record for `entry` of `app`, or nil if the site was never asked or the stored record
    /// fails authentication.
    public func record(app: ApplicationIdentifier, entry: AssociatedDomainEntry) throws -> AssociationRecord? {
        try vault.read { db, keys in try record(app: app, entry: entry, db: db, keys: keys) }
    }

    /// ``record(app:entry:)`` on the storage engine's threads: the caller suspends instead of
    /// blocking (a cooperative thread that blocks on the database can starve the very threads
    /// the database needs).
    public func record(app: ApplicationIdentifier, entry: AssociatedDomainEntry) async throws -> AssociationRecord? {
        try await vault.read { [self] db, keys in try record(app: app, entry: entry, db: db, keys: keys) }
    }

    /// ``record(app:entry:)`` as the transaction `db` sees it.
    func record(
        app: ApplicationIdentifier, entry: AssociatedDomainEntry, db: any StoreReader, keys: VaultKeys
    ) throws
        -> AssociationRecord?
    {
        let domain = Self.domainKey(for: entry)
        guard
            let row = try db.row(
                Self.selectOne, [.text(entry.service.rawValue), .text(app.description), .text(domain)]),
            let record = try trusted(row, keys: keys, app: app)
        else { return nil }
        // An authentic verdict may still be an older one put back (an approval the site has
        // since withdrawn): only a row in the sealed grant set is believed.
        try GrantCheck.require(
            row.blob(Self.table.columns.count), what: "The stored verdict for \(app) at \(domain)", db: db, keys: keys,
            path: vault.path)
        // The engine chose the row, and another app's or domain's verdict is just as authentic:
        // only its own authenticated columns say whose it is.
        guard record.service == entry.service, record.app.description == app.description, record.domain == domain
        else {
            vault.warn(
                "The database answered the lookup of \(app)'s verdict for \(domain) with the verdict of \(record.app) for \(record.domain): it counts as missing and is verified again."
            )
            return nil
        }
        return record
    }

    /// The query of one verdict by its identity (service, app, domain).
    private static let selectOne = "\(table.select) WHERE service = ? AND app = ? AND domain = ?"

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
        try vault.write(grants: { db, keys, changes in
            try Self.save(records, by: actor, db: db, keys: keys, changes: changes, path: vault.path)
        })
    }

    /// Saves `records` in the caller's write transaction, auditing each changed verdict.
    private static func save(
        _ records: [AssociationRecord], by actor: AuditActor, db: any StoreWriter, keys: VaultKeys,
        changes: GrantChanges, path: String
    ) throws {
        for record in records {
            let previous = try storedVerdict(of: record, db: db, keys: keys)
            try table.write(values(of: record), db: db, keys: keys, changes: changes)
            if previous != record.verdict.rawValue {
                try AuditChain.append(
                    AuditEvent(
                        actor: actor, operation: .verdictChange, domain: record.domain, app: record.app.description,
                        detail: "\(record.service.rawValue): \(previous) → \(record.verdict.rawValue)"),
                    at: Date(), db: db, keys: keys, path: path)
            }
        }
    }

    /// ``save(_:by:)-([AssociationRecord],_)`` on the storage engine's threads.
    public func save(_ records: [AssociationRecord], by actor: AuditActor = .owner) async throws {
        try await vault.write(grants: { [self] db, keys, changes in
            try Self.save(records, by: actor, db: db, keys: keys, changes: changes, path: vault.path)
        })
    }

    /// ``save(_:by:)-(AssociationRecord,_)`` on the storage engine's threads.
    public func save(_ record: AssociationRecord, by actor: AuditActor = .owner) async throws {
        try await save([record], by: actor)
    }

    /// The verdict stored for the (service, app, domain) of `record`, as its audit entry names it:
    /// the raw value, `none` when nothing is stored, `untrusted` when the row fails authentication.
    private static func storedVerdict(
        of record: AssociationRecord, db: any StoreReader, keys: VaultKeys
    ) throws
        -> String
    {
        guard
            let row = try db.row(
                "\(table.select) WHERE service = ? AND app = ? AND domain = ?",
                [.text(record.service.rawValue), .text(record.app.description), .text(record.domain)])
        else { return "none" }
        guard table.isAuthentic(row, keys: keys), let verdict = row.text(3) else { return "untrusted" }
        return verdict
    }

    /// Every trusted record, optionally only those of one app, ordered by app, service and
    /// domain. Records that fail authentication are left out (with a warning).
    public func all(app: ApplicationIdentifier? = nil) throws -> [AssociationRecord] {
        try vault.read { db, keys in try all(app: app, db: db, keys: keys) }
    }

    /// ``all(app:)`` as the transaction `db` sees it (the service reads an app's verdicts in
    /// its token's transaction).
    func all(app: ApplicationIdentifier?, db: any StoreReader, keys: VaultKeys) throws -> [AssociationRecord] {
        let rows =
            if let app {
                try db.rows("\(Self.table.select) WHERE app = ? ORDER BY service, domain", [.text(app.description)])
            } else {
                try db.rows("\(Self.table.select) ORDER BY app, service, domain")
            }
        // The engine chose the rows; another app's verdict, found through a lying index, is
        // left out by its own authenticated app.
        return try rows.compactMap { try trusted($0, keys: keys) }.filter { record in
            app.map { record.app.description == $0.description } ?? true
        }
    }

    /// Passes a warning about stored verdicts to the vault's warning handler.
    func warn(_ message: String) {
        vault.warn(message)
    }

    /// The number of stored verdicts whose MAC fails.
    static func untrustedCount(_ db: any StoreReader, keys: VaultKeys) throws -> Int {
        try db.rows(table.select).filter { !table.isAuthentic($0, keys: keys) }.count
    }

    /// The record of an authentic row; nil, with a warning, for one that fails authentication.
    /// The record of an authentic row; `app`, when given, is the app the row was selected by,
    /// which spares parsing its identifier again.
    private func trusted(
        _ row: StoreRow, keys: VaultKeys, app: ApplicationIdentifier? = nil
    ) throws -> AssociationRecord? {
        guard Self.table.isAuthentic(row, keys: keys) else {
            vault.warn(
                "The stored verdict for \(String(describing: row[1])) at \(String(describing: row[2])) failed authentication (it was written or changed by something other than swcred): it counts as missing and is verified again."
            )
            return nil
        }
        return try Self.decode(row, app: app)
    }

    /// The column values of `record`, in `AuthenticatedTable.associations` order.
    static func values(of record: AssociationRecord) -> [StoreValue] {
        [
            .text(record.service.rawValue), .text(record.app.description), .text(record.domain),
            .text(record.verdict.rawValue), .date(record.checkedAt), .date(record.nextCheck),
            StoreValue(record.lastError, StoreValue.text), .integer(Int64(record.retryCount)),
            StoreValue(record.documentDigest, StoreValue.blob), .date(record.approvedAt),
        ]
    }

    private static func decode(
        _ row: StoreRow, app selectedBy: ApplicationIdentifier? = nil
    ) throws
        -> AssociationRecord
    {
        guard let service = row.text(0).flatMap(AssociatedDomainEntry.Service.init(rawValue:)),
            let verdict = row.text(3).flatMap(AssociationVerdict.init(rawValue:)), let app = row.text(1),
            let domain = row.text(2), let nextCheck = row.date(5), let retryCount = row.integer(7)
        else {
            throw SharedWebCredentialsError(
                .integrityFailure, "the associations table holds an unknown service or verdict, or a malformed column")
        }
        return AssociationRecord(
            service: service, app: try Self.app(app, selectedBy: selectedBy), domain: domain, verdict: verdict,
            checkedAt: row.date(4), nextCheck: nextCheck, lastError: row.text(6), retryCount: Int(retryCount),
            documentDigest: row.blob(8), approvedAt: row.date(9))
    }

    /// The app of a row's `app` column: the app it was selected by when they are the same text.
    private static func app(_ text: String, selectedBy: ApplicationIdentifier?) throws -> ApplicationIdentifier {
        if let selectedBy, selectedBy.description == text { return selectedBy }
        return try ApplicationIdentifier(text)
    }
}
