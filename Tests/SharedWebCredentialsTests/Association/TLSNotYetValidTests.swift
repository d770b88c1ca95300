import Foundation
import Testing

@testable import TestSupport

/// A site whose certificate starts its validity in the future (a clock or a renewal gone wrong):
/// the handshake fails, nothing is requested, and the diagnosis names this certificate, not an
/// issuer, and the date it becomes valid.
@Suite("Verification over TLS: a certificate not valid yet")
struct TLSNotYetValidTests {
    @Test("a certificate not valid yet is a TLS failure that names it and its start")
    func notYetValid() async throws {
        let site = try LoopbackSite()
        let start = Date() + 2 * 86_400
        let identity = try site.ca.issue(for: ["example.com"], validFrom: start, validUntil: start + 30 * 86_400)
        let (result, requests) = try await site.verify(
            identity: identity, routes: [LoopbackSite.wellKnown: .aasa(approving: ["ABCDE12345.com.example.app"])])
        #expect(result.verdict == .unverified)
        let summary = result.summary ?? ""
        #expect(summary.contains("the certificate is not valid before"), "\(summary)")
        #expect(!summary.contains("issuing certificate"), "\(summary)")
        #expect(requests.isEmpty)
    }
}
