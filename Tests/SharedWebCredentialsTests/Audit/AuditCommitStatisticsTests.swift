import Testing

@testable import SharedWebCredentials

/// The group-commit statistics the service's metrics and the benchmarks read: commits, entries,
/// the largest group, and the mean, which is 0 (not NaN) before the first commit.
@Suite("Audit log: group-commit statistics")
struct AuditCommitStatisticsTests {
    @Test("nothing committed is a mean of 0; groups of 3 and 1 are 2 commits, 4 entries, a largest of 3, a mean of 2")
    func counts() {
        var statistics = AuditCommitStatistics()
        #expect(statistics.meanGroup == 0)
        statistics.record(groupOf: 3)
        statistics.record(groupOf: 1)
        #expect(statistics.commits == 2 && statistics.entries == 4 && statistics.largestGroup == 3)
        #expect(statistics.meanGroup == 2)
    }
}
