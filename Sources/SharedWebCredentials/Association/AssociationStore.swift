import Foundation
import GRDB

/// The `associations` table: stored verdicts per (service, app, domain).
public struct AssociationStore: Sendable {
    private let writer: any DatabaseWriter

    /// Uses a database whose schema includes migration 0002.
    public init(writer: any DatabaseWriter) {
        self.writer = writer
    }

    /// The `domain` column value for an entry: host with `*.` and `:port` as in the entitlement.
    public static func domainKey(for entry: AssociatedDomainEntry) -> String {
        let host = entry.host.contains(":") ? "[\(entry.host)]" : entry.host
        return (entry.isWildcard ? "*." : "") + host + (entry.port.map { ":\($0)" } ?? "")
    }

    /// The record for `entry` of `app`, or nil if the site was never asked.
    public func record(app: ApplicationIdentifier, entry: AssociatedDomainEntry) throws -> AssociationRecord? {
        try writer.read { db in
            try Row.fetchOne(
                db, sql: "SELECT * FROM associations WHERE service = ? AND app = ? AND domain = ?",
                arguments: [entry.service.rawValue, app.description, Self.domainKey(for: entry)]
            ).map(Self.decode)
        }
    }

    /// Inserts or replaces `record`.
    public func save(_ record: AssociationRecord) throws {
        try save([record])
    }

    /// Inserts or replaces many records in one transaction.
    public func save(_ records: [AssociationRecord]) throws {
        try writer.write { db in
            for record in records {
                try db.execute(
                    sql: """
                        INSERT OR REPLACE INTO associations
                            (service, app, domain, verdict, checked_at, next_check, last_error, retry_count,
                             document_digest, approved_at)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        record.service.rawValue, record.app.description, record.domain, record.verdict.rawValue,
                        record.checkedAt, record.nextCheck, record.lastError, record.retryCount,
                        record.documentDigest.map { Data($0) }, record.approvedAt,
                    ])
            }
        }
    }

    /// Every record, optionally only those of one app, ordered by app, service and domain.
    public func all(app: ApplicationIdentifier? = nil) throws -> [AssociationRecord] {
        try writer.read { db in
            if let app {
                return try Row.fetchAll(
                    db, sql: "SELECT * FROM associations WHERE app = ? ORDER BY service, domain",
                    arguments: [app.description]
                ).map(Self.decode)
            }
            return try Row.fetchAll(db, sql: "SELECT * FROM associations ORDER BY app, service, domain").map(
                Self.decode)
        }
    }

    private static func decode(_ row: Row) throws -> AssociationRecord {
        guard let service = AssociatedDomainEntry.Service(rawValue: row["service"]),
            let verdict = AssociationVerdict(rawValue: row["verdict"])
        else {
            throw SharedWebCredentialsError(
                .integrityFailure, "the associations table holds an unknown service or verdict")
        }
        return AssociationRecord(
            service: service, app: try ApplicationIdentifier(row["app"]), domain: row["domain"], verdict: verdict,
            checkedAt: row["checked_at"], nextCheck: row["next_check"], lastError: row["last_error"],
            retryCount: row["retry_count"], documentDigest: (row["document_digest"] as Data?).map { Array($0) },
            approvedAt: row["approved_at"])
    }
}
