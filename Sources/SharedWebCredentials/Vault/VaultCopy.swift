import Foundation

/// What ``Vault/copy(from:to:secret:configuration:progress:)`` copied and checked.
public struct VaultCopyReport: Sendable, Equatable {
    /// Rows copied, by table (``VaultTables``), in the order they were copied.
    public let rows: [TableRows]
    /// The destination's integrity report, after the copy: every record opened, every app and
    /// verdict MAC checked, the commitment and the audit chain verified.
    public let destination: VaultIntegrityReport
    /// App tokens whose MAC was checked at the destination.
    public let tokensChecked: Int
    /// Audit entries verified at the destination (the source's, and the copy's own).
    public let auditEntriesChecked: Int

    /// The rows of one table.
    public struct TableRows: Sendable, Equatable {
        public let table: String
        public let count: Int
    }
}

extension Vault {
    /// Copies the vault in `source` to the empty store `destination`, all or nothing, and checks
    /// the copy by opening it: every credential, passkey and never-save marker decrypted, every
    /// app, verdict and token MAC checked, the record commitment and the audit chain verified,
    /// each count equal to the source's.
    ///
    /// The rows move byte for byte (the cryptography is the same on both engines), read in one
    /// transaction of the source and written in one of the destination, which also gets a
    /// `store-copy` audit entry naming the source; the source gets one naming the destination.
    /// The source must pass its own integrity check first (a damaged vault is not copied), and
    /// `destination` must hold no vault data: a SQLite file that does not exist yet, or a
    /// PostgreSQL database with no vault tables or only empty ones (`.vaultExists` otherwise).
    /// If anything fails, the destination is left as it was: the new file is removed, and rows
    /// written to a database are deleted again.
    ///
    /// `progress` is told each table's name and row count as it is copied.
    public static func copy(
        from source: VaultStore, to destination: VaultStore, secret: VaultSecret,
        configuration: VaultConfiguration = VaultConfiguration(),
        progress: (VaultCopyReport.TableRows) -> Void = { _ in }
    ) throws -> VaultCopyReport {
        guard source.location != destination.location else {
            throw SharedWebCredentialsError(
                .invalidInput, "The source and the destination are the same store (\(source.location)).")
        }
        let vault = try open(store: source, secret: secret, configuration: configuration)
        let expected = try vault.verifyIntegrity()
        let expectedTokens = try vault.appTokens.list().count
        let expectedEntries = try vault.audit.verify().entriesChecked + 1

        func fill(_ storage: any VaultStorage) throws -> VaultCopyReport {
            let rows = try vault.copyRows(into: storage, destination: destination, progress: progress)
            let copy = try open(store: destination, secret: secret, configuration: configuration)
            let report = try copy.integrityReport()
            let tokens = try copy.appTokens.list().count
            let entries = try copy.audit.verify().entriesChecked
            guard report.isIntact, report.credentialsChecked == expected.credentialsChecked,
                report.passkeysChecked == expected.passkeysChecked, tokens == expectedTokens,
                entries == expectedEntries
            else {
                throw SharedWebCredentialsError(
                    .integrityFailure,
                    "The copy at \(destination.location) did not check out (\(report.problems.joined(separator: "; ")); \(report.credentialsChecked) of \(expected.credentialsChecked) credentials, \(tokens) of \(expectedTokens) tokens, \(entries) of \(expectedEntries) audit entries); it was removed and the source is unchanged. Please report this."
                )
            }
            return VaultCopyReport(
                rows: rows, destination: report, tokensChecked: tokens, auditEntriesChecked: entries)
        }

        let report: VaultCopyReport
        switch destination {
        case .file(let path):
            report = try SQLiteStorage.create(path: path, busyTimeout: configuration.busyTimeout, fill)
        case .postgresql(let url, let password):
            let storage = try PostgresStorage(url: url, password: password, busyTimeout: configuration.busyTimeout)
            if try storage.verifySchema() != .empty {
                try requireNoVaultData(storage)
            }
            do {
                report = try fill(storage)
            } catch {
                try? storage.write { db in
                    for table in VaultTables.all.reversed() { try db.execute("DELETE FROM \(table.name)", []) }
                }
                throw error
            }
        }
        _ = try vault.audit.append(
            AuditEvent(actor: .owner, operation: .storeCopy, detail: "copied to \(destination.location)"))
        return report
    }

    /// Refuses a database that holds any vault row.
    private static func requireNoVaultData(_ storage: any VaultStorage) throws {
        try storage.read { db in
            for table in VaultTables.all where try db.integer(table.count) != 0 {
                throw SharedWebCredentialsError(
                    .vaultExists,
                    "\(storage.location) already holds vault data (its \(table.name) table has rows); nothing was copied. Copy into an empty database."
                )
            }
        }
    }

    /// Migrates `storage` and writes every row of this vault into it in one transaction, with
    /// a `store-copy` entry naming the source at the end of its audit chain; returns the rows
    /// per table, each count checked against the destination's before the commit.
    private func copyRows(
        into storage: any VaultStorage, destination: VaultStore,
        progress: (VaultCopyReport.TableRows) -> Void
    ) throws -> [VaultCopyReport.TableRows] {
        try storage.migrate()
        return try read { source, keys in
            try storage.write { target in
                var copied: [VaultCopyReport.TableRows] = []
                for table in VaultTables.all {
                    guard try target.integer(table.count) == 0 else {
                        throw SharedWebCredentialsError(
                            .vaultExists,
                            "\(storage.location) gained rows in \(table.name) while the copy ran; nothing was copied.")
                    }
                    var count = 0
                    try source.forEachRow(table.selectAll, []) { row in
                        try target.execute(table.insert, row.values)
                        count += 1
                    }
                    guard try target.integer(table.count) == Int64(count) else {
                        throw SharedWebCredentialsError(
                            .internalError,
                            "\(table.name) holds another number of rows at \(storage.location) than the \(count) written; nothing was copied. Please report this."
                        )
                    }
                    let rows = VaultCopyReport.TableRows(table: table.name, count: count)
                    progress(rows)
                    copied.append(rows)
                }
                try AuditChain.append(
                    AuditEvent(actor: .owner, operation: .storeCopy, detail: "copied from \(path)"), at: Date(),
                    db: target, keys: keys, path: storage.location)
                return copied
            }
        }
    }
}
