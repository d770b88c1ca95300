import Foundation

/// The seal over everything in `vault_meta` that protects the rest of the vault against rollback:
/// the key id, the key's epoch, the record commitment (``RecordCommitment``), the grant set's tag
/// (``GrantSet``), the audit log's sealed head (``AuditChain``) and the instance chains'
/// checkpoint (``AuditInstanceChains``).
///
/// Each of those carries its own MAC, but an older value of one of them is just as authentic as
/// the current one. Sealed together, none of them can be set back alone: rolling back the grant
/// rows with their digest, or cutting entries off the audit log with its head, leaves a seal that
/// no longer matches the record commitment and head beside it unless everything else was set back
/// to the same moment too. What no single database can show is that last case, the whole vault
/// copied back; a process that saw a later epoch or audit head refuses even that
/// (``StateHighWater``).
///
/// Every write that changes one of the sealed columns checks the stored seal first and writes the
/// new one in the same statement or transaction (fail closed: a write never blesses a rollback).
enum StateSeal {
    /// The `vault_meta` columns the seal covers, then the seal, as ``SealedState/init(_:keys:path:)`` reads them.
    static let columns = "\(columnsBeforeCheckpoint), audit_checkpoint"

    /// ``columns`` but the checkpoint: what a vault not yet migrated to instance chains (before
    /// migration 0013) has, read before the migrations run at unlock.
    static let columnsBeforeCheckpoint =
        "key_epoch, record_commitment, substr(grant_set, 1, 32), audit_head, state_seal"

    /// The seal of these column values under `keys`. A vault with no checkpoint (no instance
    /// chain yet) is sealed as before the checkpoint existed.
    static func seal(
        keys: VaultKeys, epoch: Int64, recordCommitment: [UInt8]?, grantTag: [UInt8]?, auditHead: [UInt8]?,
        auditCheckpoint: [UInt8]?
    ) -> [UInt8] {
        keys.stateMAC(
            table: "vault_meta",
            fields: [
                Array("state_seal".utf8), keys.keyID, withUnsafeBytes(of: epoch.littleEndian) { Array($0) },
                recordCommitment ?? [], grantTag ?? [], auditHead ?? [],
            ] + (auditCheckpoint.map { [Array("audit_checkpoint".utf8), $0] } ?? []))
    }

    /// Checks the stored seal and that the state is not behind what this process saw
    /// (``StateHighWater``), then writes `column` = `value` and the new seal in one statement.
    /// Throws `.integrityFailure` when either check fails (nothing is written).
    static func update(
        _ column: SealedColumn, to value: [UInt8], db: any StoreWriter, keys: VaultKeys, path: String
    ) throws {
        var state = try SealedState.load(db, keys: keys, path: path)
        try StateHighWater.check(state, path: path)
        state.replace(column, with: value)
        try db.perform(
            "UPDATE vault_meta SET \(column.rawValue) = ?, state_seal = ? WHERE id = 1",
            [.blob(value), .blob(state.seal(keys: keys))])
    }

    /// Writes the seal of the columns as they are now, without checking the old one: for the
    /// steps that checked it themselves before changing several columns at once (a new vault, a
    /// key change, the first seal of an older vault).
    static func reseal(_ db: any StoreWriter, keys: VaultKeys, path: String) throws {
        let state = try SealedState.load(db, keys: keys, path: path, checkingSeal: false)
        try db.perform("UPDATE vault_meta SET state_seal = ? WHERE id = 1", [.blob(state.seal(keys: keys))])
    }

    /// The error for a seal that does not match its columns.
    static func broken(_ path: String) -> SharedWebCredentialsError {
        SharedWebCredentialsError(
            .integrityFailure,
            "The sealed state of \(path) does not match its key epoch, record commitment, grant set and audit heads: one of them was set back to an older copy behind swcred's back. Nothing was changed; restore the vault from a backup."
        )
    }
}

/// A sealed column of `vault_meta` that a write replaces (``StateSeal/update(_:to:db:keys:path:)``).
enum SealedColumn: String {
    case recordCommitment = "record_commitment"
    case grantSet = "grant_set"
    case auditHead = "audit_head"
    case auditCheckpoint = "audit_checkpoint"
}

/// The sealed columns of `vault_meta` as one transaction read them.
struct SealedState {
    var epoch: Int64
    var recordCommitment: [UInt8]?
    /// The grant set's tag (its first 32 bytes).
    var grantTag: [UInt8]?
    var auditHead: [UInt8]?
    /// The instance chains' heads as the last write of the vault's chain read them
    /// (``AuditInstanceChains/checkpoint(_:keys:old:)``); nil before the first instance chain.
    var auditCheckpoint: [UInt8]?
    /// The stored seal, as read.
    let storedSeal: [UInt8]?

    /// The state in `row` (``StateSeal/columns``), its seal checked unless `checkingSeal` is false.
    init(_ row: StoreRow?, keys: VaultKeys, path: String, checkingSeal: Bool = true) throws {
        try self.init(unchecked: row, path: path)
        if checkingSeal {
            guard let storedSeal, AuditChain.equal(storedSeal, seal(keys: keys)) else { throw StateSeal.broken(path) }
        }
    }

    /// The state in `row` (``StateSeal/columns``), its seal not checked: what a vault shows before
    /// it is unlocked.
    init(unchecked row: StoreRow?, path: String) throws {
        guard let row, let epoch = row.integer(0) else {
            throw SharedWebCredentialsError(
                .integrityFailure,
                "\(path) is not a swcred vault (it has no vault metadata). Check the --vault path.")
        }
        self.epoch = epoch
        recordCommitment = row.blob(1)
        grantTag = row.blob(2)
        auditHead = row.blob(3)
        storedSeal = row.blob(4)
        auditCheckpoint = row.count > 5 ? row.blob(5) : nil
    }

    /// The state as `db` holds it now.
    static func load(
        _ db: any StoreReader, keys: VaultKeys, path: String, checkingSeal: Bool = true
    ) throws -> SealedState {
        try SealedState(
            db.row("SELECT \(StateSeal.columns) FROM vault_meta WHERE id = 1"), keys: keys, path: path,
            checkingSeal: checkingSeal)
    }

    /// The sequence number of the audit head (its first 8 bytes; 0 when there is none).
    var auditSequence: Int64 {
        guard let auditHead, auditHead.count >= 8 else { return 0 }
        var sequence: Int64 = 0
        withUnsafeMutableBytes(of: &sequence) { $0.copyBytes(from: auditHead[0..<8]) }
        return Int64(littleEndian: sequence)
    }

    /// The seal these values call for.
    func seal(keys: VaultKeys) -> [UInt8] {
        StateSeal.seal(
            keys: keys, epoch: epoch, recordCommitment: recordCommitment, grantTag: grantTag,
            auditHead: auditHead, auditCheckpoint: auditCheckpoint)
    }

    /// Replaces one column's value.
    mutating func replace(_ column: SealedColumn, with value: [UInt8]) {
        switch column {
        case .recordCommitment: recordCommitment = value
        case .grantSet: grantTag = Array(value.prefix(KeyedHash.digestLength))
        case .auditHead: auditHead = value
        case .auditCheckpoint: auditCheckpoint = value
        }
    }
}
