import Foundation
import SharedWebCredentials
import Testing

@testable import TestSupport

/// What the diagnosis of a failed TLS handshake names, where BoringSSL says only "certificate
/// verify failed": a certificate not valid yet (a clock or a renewal gone wrong) names this
/// certificate, not an issuer, and its start; a certificate for another host from a CA that is not
/// trusted names the host first, since fixing the trust would still leave the wrong name.
@Suite("Verification over TLS: what a failed handshake's diagnosis names")
struct TLSDiagnosisTests {
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

    @Test("a certificate for another host from a CA not trusted names the wrong host before the trust")
    func wrongHostUntrusted() async throws {
        let site = try LoopbackSite()
        let (result, requests) = try await site.verify(
            identity: try site.ca.issue(for: ["other.example.net"]), trustCA: false,
            routes: [LoopbackSite.wellKnown: .aasa(approving: ["ABCDE12345.com.example.app"])])
        #expect(result.verdict == .unverified)
        let summary = result.summary ?? ""
        #expect(
            summary.contains("the certificate is for other.example.net, not example.com (wrong host)"), "\(summary)")
        #expect(requests.isEmpty)
    }

    @Test("the diagnosis's own handshake names the site (SNI), not the address --connect-to sends it to")
    func diagnosisNamesTheSite() async throws {
        let site = try LoopbackSite()
        let serverNames = try await site.with(
            hosts: ["example.com"], identity: try site.ca.issue(for: ["other.example.net"]), trustCA: false,
            handler: { _ in .aasa(approving: ["ABCDE12345.com.example.app"]) }
        ) { verifier, server in
            let entitlements = try Entitlements(strings: ["webcredentials:example.com"])
            let result = try await verifier.verify(
                app: LoopbackSite.app, entitlements: entitlements, domain: try DomainTarget("example.com"))
            #expect(result.summary?.contains("wrong host") == true, "\(String(describing: result.summary))")
            return server.serverNames
        }
        #expect(serverNames.count >= 2, "the fetch's handshake and the diagnosis's: \(serverNames)")
        #expect(serverNames.allSatisfy { $0 == "example.com" }, "\(serverNames)")
    }
}
