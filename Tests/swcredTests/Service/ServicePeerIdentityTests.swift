import Testing

@testable import SwcredService

/// The service's side of `SO_PEERCRED`: a Unix socket peer whose credentials cannot be read is
/// refused, never served as if it came over TCP, where no uid check applies. No process run can
/// make the kernel fail that call, so the decision is tested where it is made.
@Suite("swcred serve: a peer it cannot identify")
struct ServicePeerIdentityTests {
    @Test("a failed SO_PEERCRED is a refused connection, not a TCP peer")
    func unreadablePeerIsRefused() async {
        let error = await #expect(throws: APIError.self) {
            _ = try await ServiceMiddleware.identify { throw PeerCredentials.Unavailable() }
        }
        #expect(error?.status == .forbidden)
        #expect(error?.code == "peer-refused")
        #expect(error?.message.contains("SO_PEERCRED failed") == true)
    }

    @Test("a readable peer, and a TCP connection without one, pass through as they are")
    func readablePeerPasses() async throws {
        let peer = PeerCredentials(pid: 42, uid: 1000, gid: 1000)
        #expect(try await ServiceMiddleware.identify { peer } == peer)
        #expect(try await ServiceMiddleware.identify { nil } == nil)
    }
}
