import Foundation
import SharedWebCredentialsTransfer

/// The import summary as text lines or JSON: counts, then every skipped row with its reason.
/// Nothing here comes from a password field.
enum ImportReport {
    /// The counts, as the confirmation shows them.
    static func counts(_ summary: ImportSummary) -> [String] {
        let how = summary.detected ? "detected" : "given"
        var lines = [
            "format:     \(summary.format.displayName) (\(summary.format.rawValue), \(how))",
            "added:      \(summary.added)",
            "updated:    \(summary.updated)",
            "unchanged:  \(summary.unchanged)",
            "skipped:    \(summary.skipped.count)",
        ]
        if summary.hasPasskeys {
            lines.insert(
                "passkeys:   \(summary.passkeysAdded) added, \(summary.passkeysReplaced) replaced, \(summary.passkeysUnchanged) unchanged",
                at: 4)
        }
        for (reason, count) in summary.skippedByReason { lines.append("  \(count) \(reason)") }
        for warning in summary.warnings { lines.append("warning:    \(warning)") }
        if !summary.insecure.isEmpty {
            lines.append(
                "http:       \(summary.insecure.count) imported for sites that send the password unencrypted (\(summary.insecure.prefix(10).joined(separator: ", "))\(summary.insecure.count > 10 ? ", …" : ""))"
            )
        }
        return lines
    }

    /// The full summary: counts, each skipped row, and what was done.
    static func lines(_ summary: ImportSummary, dryRun: Bool) -> [String] {
        var lines = counts(summary)
        for (location, reason) in summary.skipped { lines.append("skipped \(location): \(reason)") }
        if dryRun {
            lines.append("dry run: nothing was written")
        } else if summary.committed {
            let passkeys = summary.passkeysAdded + summary.passkeysReplaced
            lines.append(
                "imported: \(summary.added + summary.updated) credentials\(passkeys > 0 ? " and \(passkeys) passkeys" : "") saved"
            )
        }
        return lines
    }

    static func json(_ summary: ImportSummary, dryRun: Bool) throws -> Data {
        let object: [String: Any] = [
            "format": summary.format.rawValue,
            "detected": summary.detected,
            "dry_run": dryRun,
            "committed": summary.committed,
            "entries": summary.entries,
            "added": summary.added,
            "updated": summary.updated,
            "unchanged": summary.unchanged,
            "passkeys": [
                "added": summary.passkeysAdded, "replaced": summary.passkeysReplaced,
                "unchanged": summary.passkeysUnchanged,
            ],
            "skipped": summary.skipped.map { ["location": $0.location, "reason": $0.reason.description] },
            "skipped_by_reason": Dictionary(
                uniqueKeysWithValues: summary.skippedByReason.map { ($0.reason, $0.count) }),
            "insecure": summary.insecure,
            "warnings": summary.warnings,
        ]
        return try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
    }
}
