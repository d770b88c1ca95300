import Foundation
import GRDB

/// The `apps` table: which apps the vault owner registered, with their entitlements.
public struct AppRegistry: Sendable {
    private let writer: any DatabaseWriter

    /// Uses a database whose schema includes migration 0002.
    public init(writer: any DatabaseWriter) {
        self.writer = writer
    }

    /// Registers `app`; registering it again replaces its entitlement and drops verdicts for
    /// entries it no longer has.
    public func register(_ app: ApplicationIdentifier, entitlements: Entitlements, at date: Date) throws {
        let json = String(decoding: try JSONEncoder().encode(entitlements.entries), as: UTF8.self)
        let domains = entitlements.entries.map { AssociationStore.domainKey(for: $0) }
        try writer.write { db in
            try db.execute(
                sql: """
                    INSERT INTO apps (application_identifier, entitlements, registered_at) VALUES (?, ?, ?)
                    ON CONFLICT (application_identifier) DO UPDATE SET entitlements = excluded.entitlements
                    """,
                arguments: [app.description, json, date])
            let kept = Set(zip(entitlements.entries.map(\.service.rawValue), domains).map { "\($0) \($1)" })
            let rows = try Row.fetchAll(
                db, sql: "SELECT service, domain FROM associations WHERE app = ?", arguments: [app.description])
            for row in rows where !kept.contains("\(row["service"] as String) \(row["domain"] as String)") {
                try db.execute(
                    sql: "DELETE FROM associations WHERE service = ? AND app = ? AND domain = ?",
                    arguments: [row["service"] as String, app.description, row["domain"] as String])
            }
        }
    }

    /// The registration of `app`, or nil.
    public func find(_ app: ApplicationIdentifier) throws -> RegisteredApp? {
        try writer.read { db in
            try Row.fetchOne(
                db, sql: "SELECT * FROM apps WHERE application_identifier = ?", arguments: [app.description]
            ).map(Self.decode)
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

    /// Every registered app, ordered by identifier.
    public func all() throws -> [RegisteredApp] {
        try writer.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM apps ORDER BY application_identifier").map(Self.decode)
        }
    }

    /// Removes `app` and its verdicts; returns whether it was registered.
    @discardableResult
    public func remove(_ app: ApplicationIdentifier) throws -> Bool {
        try writer.write { db in
            try db.execute(sql: "DELETE FROM associations WHERE app = ?", arguments: [app.description])
            try db.execute(sql: "DELETE FROM apps WHERE application_identifier = ?", arguments: [app.description])
            return db.changesCount > 0
        }
    }

    private static func decode(_ row: Row) throws -> RegisteredApp {
        let entries = try JSONDecoder().decode([String].self, from: Data((row["entitlements"] as String).utf8))
        return RegisteredApp(
            identifier: try ApplicationIdentifier(row["application_identifier"]),
            entitlements: try Entitlements(strings: entries),
            registeredAt: row["registered_at"])
    }
}
