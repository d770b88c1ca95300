import Foundation

/// The plaintext tables whose rows the gate trusts (`apps`, `associations`): each row carries a
/// MAC under the vault's state key over the table, the row's identity and every other column
/// (``VaultKeys/stateMAC(table:values:)``). A row whose MAC fails was written by something other
/// than swcred and is never trusted.
struct AuthenticatedTable: Sendable {
    /// The table name.
    let name: String
    /// Every column but `mac`, the identity (primary key) first.
    let columns: [String]
    /// How many of ``columns`` make up the primary key.
    let identityCount: Int
    /// How many of the last ``columns`` later migrations added: each is left out of the MAC while
    /// it and every column after it are NULL, so that rows MAC'd before it existed stay valid
    /// (the fields are length-prefixed, so a NULL left out and a value present never coincide).
    let laterColumns: Int
    /// The columns ``select`` reads: ``columns``, then `mac`.
    let selectedColumns: [String]
    /// `SELECT` of every column in ``columns`` order, then `mac` (written once: it starts the
    /// queries of every request).
    let select: String

    init(name: String, columns: [String], identityCount: Int, laterColumns: Int = 0) {
        self.name = name
        self.columns = columns
        self.identityCount = identityCount
        self.laterColumns = laterColumns
        selectedColumns = columns + ["mac"]
        select = "SELECT \(selectedColumns.joined(separator: ", ")) FROM \(name)"
    }

    /// The condition that selects one row by its identity (one `?` per identity column).
    var whereIdentity: String {
        columns.prefix(identityCount).map { "\($0) = ?" }.joined(separator: " AND ")
    }

    /// An upsert of every column in ``columns`` order, then `mac`. (Not `INSERT OR REPLACE`,
    /// whose delete would cascade to the verdicts of an app.)
    var upsert: String {
        let placeholders = Array(repeating: "?", count: columns.count + 1).joined(separator: ", ")
        let updates = (columns.dropFirst(identityCount) + ["mac"]).map { "\($0) = excluded.\($0)" }
        return """
            INSERT INTO \(name) (\(columns.joined(separator: ", ")), mac) VALUES (\(placeholders))
            ON CONFLICT (\(columns.prefix(identityCount).joined(separator: ", "))) DO UPDATE SET \(updates.joined(separator: ", "))
            """
    }

    /// The registered apps.
    static let apps = AuthenticatedTable(
        name: "apps",
        columns: ["application_identifier", "entitlements", "registered_at", "certificate_fingerprints"],
        identityCount: 1, laterColumns: 1)

    /// The stored verdicts.
    static let associations = AuthenticatedTable(
        name: "associations",
        columns: [
            "service", "app", "domain", "verdict", "checked_at", "next_check", "last_error", "retry_count",
            "document_digest", "approved_at",
        ], identityCount: 3)

    /// The column values of a row read with ``select``.
    func values(of row: StoreRow) -> [StoreValue] {
        Array(row.values.prefix(columns.count))
    }

    /// The identity values of a row read with ``select``.
    func identity(of row: StoreRow) -> [StoreValue] {
        Array(row.values.prefix(identityCount))
    }

    /// The MAC of `values` (in ``columns`` order) under `keys`.
    func mac(_ values: [StoreValue], keys: VaultKeys) -> [UInt8] {
        keys.stateMAC(table: name, values: covered(values))
    }

    /// Whether a row read with ``select`` carries a valid MAC under `keys`.
    func isAuthentic(_ row: StoreRow, keys: VaultKeys) -> Bool {
        let mac = row.blob(columns.count)
        return keys.isAuthentic(table: name, values: covered(values(of: row)), mac: mac)
    }

    /// The values the MAC covers: all of them but trailing NULLs of ``laterColumns``.
    private func covered(_ values: [StoreValue]) -> [StoreValue] {
        var covered = values[...]
        while covered.count > columns.count - laterColumns, covered.last?.isNull == true { covered.removeLast() }
        return Array(covered)
    }

    /// Writes a row (values in ``columns`` order) with its MAC, recording in `changes` the row
    /// it replaces and the row it writes.
    func write(_ values: [StoreValue], db: any StoreWriter, keys: VaultKeys, changes: GrantChanges) throws {
        let mac = mac(values, keys: keys)
        try changes.replacing(name, where: whereIdentity, Array(values.prefix(identityCount)), db: db)
        try db.execute(upsert, values + [.blob(mac)])
        changes.wrote(mac)
    }
}

/// Re-MACs of every authenticated row, for key rotation and the format upgrade.
enum AuthenticatedRows {
    /// Re-MACs under `newKeys` every row that is authentic under `oldKeys` and in the sealed
    /// grant set `granted`, in one pass over the rows each table held when it began, and deletes
    /// every other row: re-MACed, it would be blessed. (The caller removed, and audited, such rows
    /// before; any found here appeared during the rotation.)
    static func remacAll(
        _ db: any StoreWriter, from oldKeys: VaultKeys, to newKeys: VaultKeys, granted: Set<[UInt8]>
    ) throws {
        for table in [AuthenticatedTable.associations, .apps, BrowserAssociationStore.table] {
            for row in try db.rows(table.select) {
                let identity = table.identity(of: row)
                guard table.isAuthentic(row, keys: oldKeys), let mac = row.blob(table.columns.count),
                    granted.contains(mac)
                else {
                    try db.execute("DELETE FROM \(table.name) WHERE \(table.whereIdentity)", identity)
                    continue
                }
                try db.execute(
                    "UPDATE \(table.name) SET mac = ? WHERE \(table.whereIdentity)",
                    [.blob(table.mac(table.values(of: row), keys: newKeys))] + identity)
            }
        }
    }

    /// Writes the MAC of every row of both tables under `keys`, trusting the rows as they are.
    static func macAll(_ db: any StoreWriter, keys: VaultKeys) throws {
        for table in [AuthenticatedTable.apps, .associations, BrowserAssociationStore.table] {
            for row in try db.rows(table.select) {
                try db.execute(
                    "UPDATE \(table.name) SET mac = ? WHERE \(table.whereIdentity)",
                    [.blob(table.mac(table.values(of: row), keys: keys))] + table.identity(of: row))
            }
        }
    }
}
