/// Moves the grant set of a vault sealed before migration 0012 from the list `vault_meta.grant_set`
/// held (a MAC over the sorted MACs of every granted row, then those MACs) into `grant_members`
/// under a sealed sum (``GrantSet``), at the first unlock after that migration, in one transaction.
///
/// The list's MAC and the state seal are checked first: a list set back or edited is not moved,
/// and stays where it is, so that every grant check fails closed on it and `status --verify`
/// reports it while the owner can still read, export and rekey. Only listed rows that are still in the tables and authentic
/// become members, so nothing the old set refused is granted by the new one. The state seal is
/// then made anew over the sum. Only the holder of the vault key can compute the sum, which is
/// why this runs at unlock and not in the SQL migration.
enum GrantListUpgrade {
    /// Whether a stored `vault_meta.grant_set` is still a list (or anything but a sum).
    static func isList(_ stored: [UInt8], keys: VaultKeys) -> Bool {
        GrantSet.parseSum(stored, keys: keys) == nil
    }

    /// Whether the vault in `db` still holds its grant set as a list.
    private static func isNeeded(_ db: any StoreReader, keys: VaultKeys) throws -> Bool {
        guard let stored = try db.value("SELECT grant_set FROM vault_meta WHERE id = 1")?.blob else { return false }
        return isList(stored, keys: keys)
    }

    /// Runs the move inside the caller's write transaction, unless another process did it meanwhile.
    static func run(_ db: any StoreWriter, keys: VaultKeys, path: String) throws {
        guard try isNeeded(db, keys: keys), (try? SealedState.load(db, keys: keys, path: path)) != nil,
            let listed = list(try db.value("SELECT grant_set FROM vault_meta WHERE id = 1")?.blob, keys: keys)
        else { return }
        try GrantSet.replaceUnsealed(with: listed.intersection(GrantSet.liveMACs(db, keys: keys)), db: db, keys: keys)
        try StateSeal.reseal(db, keys: keys, path: path)
    }

    /// The MACs a stored list holds, or nil when it is not a list or its MAC fails.
    private static func list(_ stored: [UInt8]?, keys: VaultKeys) -> Set<[UInt8]>? {
        let width = KeyedHash.digestLength
        guard let stored, stored.count >= width, stored.count % width == 0 else { return nil }
        let macs = stride(from: width, to: stored.count, by: width).map { Array(stored[$0..<($0 + width)]) }
        let tag = keys.stateMAC(table: "vault_meta", fields: [Array("grant_set".utf8), keys.keyID] + macs)
        guard AuditChain.equal(Array(stored[0..<width]), tag) else { return nil }
        return Set(macs)
    }
}
