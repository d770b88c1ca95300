import Foundation
import SharedWebCredentials
import TestSupport
import Testing

@Suite("many domains in one run")
struct ManyDomainsTests {
    @Test("1,000 domains are verified in one run, each host fetched once, with bounded concurrency")
    func thousandDomains() async throws {
        let site = try LoopbackSite()
        let hosts = (0..<1_000).map { "d\($0).bench.test" }
        let identity = try site.ca.issue(for: ["*.bench.test"])
        let inFlight = InFlightCounter()
        let other = try ApplicationIdentifier("ZZZZZ99999.com.example.other")
        let (results, requests, elapsed) = try await site.with(
            hosts: hosts, identity: identity, concurrency: 32,
            handler: { request in
                inFlight.record()
                return .aasa(approving: [LoopbackSite.app.description])
            }
        ) { verifier, server in
            var pairs: [(ApplicationIdentifier, AssociatedDomainEntry)] = []
            for host in hosts {
                let entry = try AssociatedDomainEntry("webcredentials:\(host)")
                pairs.append((LoopbackSite.app, entry))
                pairs.append((other, entry))
            }
            let clock = ContinuousClock()
            let start = clock.now
            let results = await verifier.verify(pairs)
            return (results, server.requests, clock.now - start)
        }
        #expect(results.count == 2_000)
        #expect(results.filter { $0.app == LoopbackSite.app }.allSatisfy { $0.verdict == .approved })
        #expect(results.filter { $0.app != LoopbackSite.app }.allSatisfy { $0.verdict == .denied })
        let failures = results.filter { $0.verdict == .unverified }.compactMap(\.summary)
        #expect(failures.isEmpty, "\(Set(failures).prefix(5))")
        #expect(requests.count == 1_000)
        #expect(Set(requests.map(\.host)).count == 1_000)
        print("association: 1,000 domains verified over loopback TLS in \(elapsed) (32 at a time)")
    }
}

/// Counts requests; a stand-in hook to show the handler runs once per host.
final class InFlightCounter: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var total = 0
    func record() {
        lock.lock()
        total += 1
        lock.unlock()
    }
}
