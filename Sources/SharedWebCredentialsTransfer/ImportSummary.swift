/// What an import did, or would do: counts by outcome, every skipped row with its reason (never
/// its password), and the rows whose URL was plain `http:`.
public struct ImportSummary: Sendable {
    /// The file's format, given or detected.
    public let format: ImportFormat
    /// Whether the format was detected rather than given with `--format`.
    public let detected: Bool
    /// Rows or items read (blank lines aside).
    public internal(set) var entries = 0
    public internal(set) var added = 0
    public internal(set) var updated = 0
    public internal(set) var unchanged = 0
    /// Passkeys (CXF) added, replacing one with the same credential ID, or already there as they are.
    public internal(set) var passkeysAdded = 0
    public internal(set) var passkeysReplaced = 0
    public internal(set) var passkeysUnchanged = 0
    /// Each skipped row or item (its location, such as `row 7`) with its reason, in file order.
    public internal(set) var skipped: [(location: String, reason: SkipReason)] = []
    /// Rows or items whose URL was `http:`: imported, but the site sends the password in clear.
    public internal(set) var insecure: [String] = []
    /// What was read leniently, each said once (rows short of optional fields).
    public internal(set) var warnings: [String] = []
    /// Whether the changes were committed (false for a dry run or a declined confirmation).
    public internal(set) var committed = false

    /// The skipped count for each reason's category, in order of first occurrence.
    public var skippedByReason: [(reason: String, count: Int)] {
        var order: [String] = []
        var counts: [String: Int] = [:]
        for (_, reason) in skipped {
            if counts[reason.category] == nil { order.append(reason.category) }
            counts[reason.category, default: 0] += 1
        }
        return order.map { ($0, counts[$0] ?? 0) }
    }

    /// Whether anything would change in the vault.
    public var changesVault: Bool { added + updated + passkeysAdded + passkeysReplaced > 0 }

    /// Whether the file gave any passkey (to show their counts only then).
    public var hasPasskeys: Bool { passkeysAdded + passkeysReplaced + passkeysUnchanged > 0 }
}
