import Foundation
import SharedWebCredentials

/// Verdicts as `swcutil show` prints them, and as `verify --json` / `show --json` print them.
enum AssociationTable {
    /// Rows with the verdict that may be acted on now (stale approvals show as unverified).
    static func rows(_ records: [AssociationRecord]) -> [AssociationSummary] {
        records.map { AssociationSummary($0) }
    }

    /// A plain-text table, every cell escaped for the terminal (a stored error may quote a
    /// site's file), so that no cell can break a line or act on the terminal.
    static func text(_ records: [AssociationRecord]) -> String {
        let header = ["SERVICE", "APP", "DOMAIN", "VERDICT", "CHECKED", "NEXT CHECK", "LAST ERROR"]
        let lines = rows(records).map {
            [$0.service, $0.app, $0.domain, $0.verdict, $0.checkedAt ?? "never", $0.nextCheck, $0.error ?? "-"]
                .map(DisplayText.escaped)
        }
        if lines.isEmpty { return "no verdicts stored yet; run `swcred verify APPID`" }
        let widths = header.indices.map { column in ([header] + lines).map { $0[column].count }.max() ?? 0 }
        return ([header] + lines).map { cells in
            cells.enumerated().map { index, cell in
                index == cells.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}
