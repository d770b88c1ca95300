import Foundation

/// Apple's "Never for this website" markers: a host the owner marked is refused by add until
/// the marker is cleared. Hosts are stored only as a blind index and a sealed copy.
public struct NeverSaveStore: Sendable {
    let vault: Vault

    /// Marks `host` (lower-cased), with a `never-save-add` audit entry in the same transaction.
    /// Marking an already marked host changes nothing and records nothing.
    public func mark(_ host: String) throws {
        let host = try Self.normalise(host)
        try vault.write { db, keys, commitment in
            let index = keys.hostIndex(host)
            guard try !Self.contains(db, index: index) else { return }
            try Self.store(db, keys: keys, host: host, createdAt: Int64(Date().timeIntervalSince1970))
            commitment.insertNeverSave(hostIndex: index, keys: keys)
            try AuditChain.append(
                AuditEvent(actor: .owner, operation: .neverSaveAdd, domain: host), at: Date(), db: db, keys: keys,
                path: vault.path)
        }
    }

    /// Whether `host` is marked.
    public func isMarked(_ host: String) throws -> Bool {
        let host = try Self.normalise(host)
        return try vault.read { db, keys in try Self.contains(db, index: keys.hostIndex(host)) }
    }

    /// Clears the marker of `host`, with a `never-save-remove` audit entry in the same
    /// transaction. Returns whether there was one (none: nothing changed, nothing recorded).
    @discardableResult
    public func clear(_ host: String) throws -> Bool {
        let host = try Self.normalise(host)
        return try vault.write { db, keys, commitment in
            let index = keys.hostIndex(host)
            guard try db.execute("DELETE FROM never_save WHERE host_index = ?", [.blob(index)]) > 0 else {
                return false
            }
            commitment.removeNeverSave(hostIndex: index, keys: keys)
            try AuditChain.append(
                AuditEvent(actor: .owner, operation: .neverSaveRemove, domain: host), at: Date(), db: db, keys: keys,
                path: vault.path)
            return true
        }
    }

    /// Every marked host, sorted; throws `.integrityFailure` if a marker is damaged.
    public func hosts() throws -> [String] {
        try vault.read { db, keys in
            try db.rows("SELECT host_index, sealed_host FROM never_save").map { row in
                guard let host = Self.openIfAuthentic(row, keys: keys) else {
                    throw vault.recordFailure(db, keys: keys, what: "A never-save marker")
                }
                return host
            }.sorted()
        }
    }

    private static func normalise(_ host: String) throws -> String {
        let normalised = host.lowercased()
        guard !normalised.isEmpty, normalised.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f }) else {
            throw SharedWebCredentialsError(
                .invalidInput, "A host must be a non-empty ASCII name without spaces (convert IDNs to xn-- form).")
        }
        return normalised
    }

    static func contains(_ db: any StoreReader, index: [UInt8]) throws -> Bool {
        try db.row("SELECT 1 FROM never_save WHERE host_index = ?", [.blob(index)]) != nil
    }

    static func store(_ db: any StoreWriter, keys: VaultKeys, host: String, createdAt: Int64) throws {
        let index = keys.hostIndex(host)
        let sealed = AuthenticatedEncryption.seal(
            SecureBytes(utf8: host), key: keys.recordKey,
            associatedData: VaultKeys.neverSaveAssociatedData(hostIndex: index))
        try db.execute(
            "INSERT INTO never_save (host_index, sealed_host, created_at) VALUES (?, ?, ?)",
            [.blob(index), .blob(sealed), .integer(createdAt)])
    }

    /// The host of a `never_save` row, or nil if it fails authentication (`format` is the
    /// legacy one only when ``FormatUpgrade`` reads a format-1 marker).
    /// The row's first two columns are `host_index` and `sealed_host`.
    static func openIfAuthentic(_ row: StoreRow, keys: VaultKeys, format: UInt32 = VaultKeys.formatVersion) -> String? {
        guard let index = row.blob(0), let sealed = row.blob(1),
            let host = AuthenticatedEncryption.open(
                sealed, key: keys.recordKey,
                associatedData: VaultKeys.neverSaveAssociatedData(hostIndex: index, format: format))
        else { return nil }
        return host.exposedString()
    }

    /// Opens every marker and counts those that fail authentication.
    static func verify(_ db: any StoreReader, keys: VaultKeys) throws -> (checked: Int, damaged: Int) {
        let rows = try db.rows("SELECT host_index, sealed_host FROM never_save")
        return (rows.count, rows.filter { openIfAuthentic($0, keys: keys) == nil }.count)
    }

    /// Re-seals every marker under `newKeys`. Part of key rotation.
    static func reencryptAll(
        _ db: any StoreWriter, from oldKeys: VaultKeys, to newKeys: VaultKeys, path: String
    )
        throws
    {
        let rows = try db.rows("SELECT host_index, sealed_host, created_at FROM never_save")
        try db.execute("DELETE FROM never_save", [])
        for row in rows {
            guard let host = openIfAuthentic(row, keys: oldKeys) else {
                throw SharedWebCredentialsError(
                    .integrityFailure,
                    "A never-save marker in \(path) failed authentication, so the key was not rotated (nothing changed)."
                )
            }
            try store(db, keys: newKeys, host: host, createdAt: row.integer(2) ?? 0)
        }
    }
}
