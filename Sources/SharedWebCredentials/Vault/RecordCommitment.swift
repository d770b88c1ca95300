import Foundation

/// A keyed commitment to the set of live records: which credentials and passkeys exist, at which
/// version, and which never-save markers exist.
///
/// It is an incremental multiset hash (``MultisetSum``): the sum mod 2^256 of a keyed BLAKE2b of
/// every live (id, version) pair. Adding, updating or deleting a record changes
/// it in O(1), in the same transaction as the record. Without the state key nobody can compute
/// the element of a record, so a record written back from an older copy (a rollback), a deleted
/// record inserted again or a record deleted behind swcred's back leaves a set whose sum differs.
///
/// The sum is stored in `vault_meta.record_commitment` followed by a MAC that binds it to the key
/// id and the format version, so that only sums swcred itself wrote are accepted: without the MAC,
/// an attacker who saw the file before and after a change could subtract that change's element
/// from a later sum. Every write checks the MAC before building on the sum (fail closed).
///
/// What a single file cannot show: the whole file, or the commitment together with the records it
/// covers, copied back from an older state of the same file.
final class RecordCommitment {
    private var sum: MultisetSum
    /// Whether the sum changed since it was loaded.
    private(set) var isChanged = false

    private init(sum: MultisetSum) {
        self.sum = sum
    }

    /// The commitment to an empty vault.
    static func empty() -> RecordCommitment { RecordCommitment(sum: .empty) }

    // MARK: Elements

    /// Adds the credential `id` at `version`.
    func insertCredential(id: some Collection<UInt8>, version: Int64, keys: VaultKeys) {
        add(Self.credentialElement(id: id, version: version, keys: keys), negated: false)
    }

    /// Removes the credential `id` at `version`.
    func removeCredential(id: some Collection<UInt8>, version: Int64, keys: VaultKeys) {
        add(Self.credentialElement(id: id, version: version, keys: keys), negated: true)
    }

    /// Adds the never-save marker with this host index.
    func insertNeverSave(hostIndex: [UInt8], keys: VaultKeys) {
        add(keys.stateMAC(table: "live:never_save", fields: [hostIndex]), negated: false)
    }

    /// Removes the never-save marker with this host index.
    func removeNeverSave(hostIndex: [UInt8], keys: VaultKeys) {
        add(keys.stateMAC(table: "live:never_save", fields: [hostIndex]), negated: true)
    }

    /// Adds the passkey `id` at `version`.
    func insertPasskey(id: some Collection<UInt8>, version: Int64, keys: VaultKeys) {
        add(Self.passkeyElement(id: id, version: version, keys: keys), negated: false)
    }

    /// Removes the passkey `id` at `version`.
    func removePasskey(id: some Collection<UInt8>, version: Int64, keys: VaultKeys) {
        add(Self.passkeyElement(id: id, version: version, keys: keys), negated: true)
    }

    /// A passkey's element: its own label, so that no passkey element equals a credential's, and
    /// a vault without passkeys keeps the commitment it had before passkeys existed.
    private static func passkeyElement(id: some Collection<UInt8>, version: Int64, keys: VaultKeys) -> [UInt8] {
        keys.stateMAC(
            table: "live:passkeys", fields: [Array(id), withUnsafeBytes(of: version.littleEndian) { Array($0) }])
    }

    private static func credentialElement(id: some Collection<UInt8>, version: Int64, keys: VaultKeys) -> [UInt8] {
        keys.stateMAC(
            table: "live:credentials", fields: [Array(id), withUnsafeBytes(of: version.littleEndian) { Array($0) }])
    }

    /// Adds (or subtracts) a 32-byte element mod 2^256.
    private func add(_ element: [UInt8], negated: Bool) {
        isChanged = true
        if negated { sum.remove(element) } else { sum.insert(element) }
    }

    /// Whether two commitments are equal (constant time).
    func matches(_ other: RecordCommitment) -> Bool {
        sum.matches(other.sum)
    }

    // MARK: Storage

    /// The commitment computed from the rows: what the stored one must equal. O(records).
    static func compute(_ db: any StoreReader, keys: VaultKeys) throws -> RecordCommitment {
        let commitment = empty()
        try db.forEachRow("SELECT id, version FROM credentials", []) { row in
            guard let id = row.blob(0), let version = row.integer(1) else { return }
            commitment.insertCredential(id: id, version: version, keys: keys)
        }
        try db.forEachRow("SELECT host_index FROM never_save", []) { row in
            guard let index = row.blob(0) else { return }
            commitment.insertNeverSave(hostIndex: index, keys: keys)
        }
        try db.forEachRow("SELECT id, version FROM passkeys", []) { row in
            guard let id = row.blob(0), let version = row.integer(1) else { return }
            commitment.insertPasskey(id: id, version: version, keys: keys)
        }
        return commitment
    }

    /// The stored commitment; throws `.integrityFailure` if it is missing or its MAC fails.
    /// `format` is an older one only when ``FormatUpgrade`` reads the commitment of a format-2 vault.
    static func load(
        _ db: any StoreReader, keys: VaultKeys, path: String, format: UInt32 = VaultKeys.formatVersion
    ) throws -> RecordCommitment {
        let stored = try db.value("SELECT record_commitment FROM vault_meta WHERE id = 1")?.blob
        guard let stored, stored.count == 64, let sum = MultisetSum(bytes: stored[0..<32]) else {
            throw SharedWebCredentialsError(
                .integrityFailure,
                "The record commitment of \(path) is missing: the vault metadata was altered. Restore the vault from a backup."
            )
        }
        let mac = Array(stored[32..<64])
        let expected = tag(sum: sum.bytes, keys: keys, format: format)
        guard mac.withUnsafeBytes({ given in expected.withUnsafeBytes { ConstantTime.equals(given, $0) } }) else {
            throw SharedWebCredentialsError(
                .integrityFailure,
                "The record commitment of \(path) failed authentication: the vault metadata was altered. Restore the vault from a backup."
            )
        }
        return RecordCommitment(sum: sum)
    }

    /// Writes the commitment (sum and MAC) to `vault_meta` with the new state seal, after checking
    /// the stored seal (``StateSeal/update(_:to:db:keys:path:)``).
    func store(_ db: any StoreWriter, keys: VaultKeys, path: String) throws {
        try StateSeal.update(.recordCommitment, to: sealedBytes(keys: keys), db: db, keys: keys, path: path)
        isChanged = false
    }

    /// Writes the commitment without touching the state seal: for the steps that reseal the
    /// whole state themselves. `format` is an older one only where tests write a vault as an older
    /// release did.
    func storeUnsealed(_ db: any StoreWriter, keys: VaultKeys, format: UInt32 = VaultKeys.formatVersion) throws {
        try db.execute(
            "UPDATE vault_meta SET record_commitment = ? WHERE id = 1", [.blob(sealedBytes(keys: keys, format: format))]
        )
        isChanged = false
    }

    /// The sum followed by its MAC, as `vault_meta.record_commitment` holds them.
    private func sealedBytes(keys: VaultKeys, format: UInt32 = VaultKeys.formatVersion) -> [UInt8] {
        let bytes = sum.bytes
        return bytes + Self.tag(sum: bytes, keys: keys, format: format)
    }

    private static func tag(sum: [UInt8], keys: VaultKeys, format: UInt32) -> [UInt8] {
        keys.stateMAC(
            table: "vault_meta",
            fields: [
                Array("record_commitment".utf8), keys.keyID,
                withUnsafeBytes(of: format.littleEndian) { Array($0) }, sum,
            ])
    }
}
