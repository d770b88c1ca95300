/// Which audit chain an entry belongs to: the vault's own (`audit_log`, its head and anchor in
/// `vault_meta`, sealed with the rest of the vault's state) or a running instance's
/// (`audit_chain_log`, its head and anchor in its row of `audit_chains`; ``AuditInstanceChains``).
enum AuditScope: Equatable, Sendable {
    /// The vault's chain: every entry written with a change, and those of one-shot commands.
    case vault
    /// The chain of the instance named by these 16 bytes: the entries its process group-commits.
    case instance([UInt8])

    /// The length of an instance chain's name.
    static let nameLength = 16

    /// The query of every entry of this chain, in sequence order, its columns as
    /// ``AuditChain/covered(_:)`` and ``AuditChain/open(_:keys:scope:)`` read them.
    var selectEntries: StoreStatement {
        switch self {
        case .vault: StoreStatement("\(AuditChain.columns) ORDER BY seq", [])
        case .instance(let name):
            StoreStatement(
                "SELECT \(AuditChain.entryColumns) FROM audit_chain_log WHERE chain = ? ORDER BY seq", [.blob(name)])
        }
    }

    /// The tag of an entry given its first seven columns (as ``AuditChain/columns`` reads them),
    /// chained to `previous`; an instance chain's tags also cover the chain's name.
    func tag(of values: [StoreValue], keys: VaultKeys, previous: [UInt8]) -> [UInt8] {
        switch self {
        case .vault: keys.stateMAC(table: "audit_log", values: values + [.blob(previous)])
        case .instance(let name):
            keys.stateMAC(table: "audit_chain_log", values: [.blob(name)] + values + [.blob(previous)])
        }
    }

    /// The statement that rewrites an entry's sealed part and tag (a change of key).
    func retagging(sequence: Int64, sealed: StoreValue, tag: [UInt8]) -> StoreStatement {
        switch self {
        case .vault:
            StoreStatement(
                "UPDATE audit_log SET sealed = ?, tag = ? WHERE seq = ?", [sealed, .blob(tag), .integer(sequence)])
        case .instance(let name):
            StoreStatement(
                "UPDATE audit_chain_log SET sealed = ?, tag = ? WHERE chain = ? AND seq = ?",
                [sealed, .blob(tag), .blob(name), .integer(sequence)])
        }
    }

    /// What an entry's sealed part is bound to: its sequence number, and its chain's name.
    func associatedData(sequence: Int64) -> [UInt8] {
        switch self {
        case .vault: VaultKeys.auditAssociatedData(sequence: sequence)
        case .instance(let name): VaultKeys.auditAssociatedData(chain: name, sequence: sequence)
        }
    }

    /// The chain's name in hexadecimal, as ``AuditEntry/chain`` and messages give it; nil for
    /// the vault's chain.
    var displayName: String? {
        switch self {
        case .vault: nil
        case .instance(let name): name.map { String(format: "%02x", $0) }.joined()
        }
    }

    /// "the vault's chain" or "instance chain NAME", for messages.
    var described: String {
        displayName.map { "instance chain \($0)" } ?? "the vault's chain"
    }
}
