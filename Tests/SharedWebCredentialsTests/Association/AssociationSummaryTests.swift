import Foundation
import Testing

@testable import SharedWebCredentials

/// The one shape every verdict is shown in (CLI `--json`, text table, service), with the verdict
/// the gate would act on now.
@Suite("Association summaries: the verdict that counts now, in one JSON shape")
struct AssociationSummaryTests {
    private func record(verdict: AssociationVerdict, approvedDaysAgo: Double?) throws -> AssociationRecord {
        let now = Date()
        return AssociationRecord(
            service: .webcredentials, app: try ApplicationIdentifier("ABCDE12345.com.example.app"),
            domain: "shop.example", verdict: verdict, checkedAt: nil, nextCheck: now.addingTimeInterval(3600),
            lastError: nil, retryCount: 0, documentDigest: nil,
            approvedAt: approvedDaysAgo.map { now.addingTimeInterval(-$0 * 86_400) })
    }

    @Test("a fresh approval is approved; one past the staleness limit is unverified, as the gate treats it")
    func staleApproval() throws {
        #expect(AssociationSummary(try record(verdict: .approved, approvedDaysAgo: 1)).verdict == "approved")
        #expect(AssociationSummary(try record(verdict: .approved, approvedDaysAgo: 31)).verdict == "unverified")
        let strict = RecheckPolicy(stalenessLimit: 3_600)
        #expect(
            AssociationSummary(try record(verdict: .approved, approvedDaysAgo: 1), policy: strict).verdict
                == "unverified")
        #expect(AssociationSummary(try record(verdict: .denied, approvedDaysAgo: 1)).verdict == "denied")
    }

    @Test("every key is present, with null for a missing check time or error")
    func shape() throws {
        let data = try JSONEncoder().encode(AssociationSummary(try record(verdict: .unverified, approvedDaysAgo: nil)))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(Set(object.keys) == ["service", "app", "domain", "verdict", "checked_at", "next_check", "error"])
        #expect(object["checked_at"] is NSNull && object["error"] is NSNull)
        #expect(object["service"] as? String == "webcredentials")
    }
}
