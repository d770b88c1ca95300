import Foundation
import SharedWebCredentials

/// Verdicts as `swcutil show` prints them, and as `verify --json` / `show --json` print them.
enum AssociationTable {
    /// One verdict in the JSON shape of DESIGN.md.
    struct Row: Encodable {
        let service: String
        let app: String
        let domain: String
        let verdict: String
        let checkedAt: String?
        let nextCheck: String
        let error: String?

        init(_ record: AssociationRecord, verdict: AssociationVerdict) {
            service = record.service.rawValue
            app = record.app.description
            domain = record.domain
            self.verdict = verdict.rawValue
            checkedAt = record.checkedAt?.formatted(.iso8601)
            nextCheck = record.nextCheck.formatted(.iso8601)
            error = record.lastError
        }

        enum CodingKeys: String, CodingKey {
            case service, app, domain, verdict, error
            case checkedAt = "checked_at"
            case nextCheck = "next_check"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(service, forKey: .service)
            try container.encode(app, forKey: .app)
            try container.encode(domain, forKey: .domain)
            try container.encode(verdict, forKey: .verdict)
            try container.encode(checkedAt, forKey: .checkedAt)
            try container.encode(nextCheck, forKey: .nextCheck)
            try container.encode(error, forKey: .error)
        }
    }

    /// Rows with the verdict that may be acted on now (stale approvals show as unverified).
    static func rows(_ records: [AssociationRecord], now: Date = Date()) -> [Row] {
        let policy = RecheckPolicy()
        return records.map { Row($0, verdict: policy.effectiveVerdict($0, at: now)) }
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
