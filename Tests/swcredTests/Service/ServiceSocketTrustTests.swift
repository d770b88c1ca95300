import Foundation
import SharedWebCredentials
import Testing

@testable import SharedWebCredentialsClient

#if canImport(Glibc)
    import Glibc
#endif

/// The client's peer check on a descriptor, where no process run can make `SO_PEERCRED` fail:
/// it must refuse then, not fall back to some uid.
@Suite("the client's socket check: SO_PEERCRED")
struct ServiceSocketTrustTests {
    @Test("a descriptor SO_PEERCRED cannot answer for is refused")
    func peerCredentialsUnavailable() throws {
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        defer { ends.forEach { close($0) } }
        let error = #expect(throws: SharedWebCredentialsError.self) {
            try ServiceSocketTrust(trustedUID: nil).checkPeer(of: ends[0], listeningOn: "/run/x/swcred.sock")
        }
        #expect(error?.code == .vaultLocked)
        #expect(error?.message.hasPrefix("cannot tell which user listens on /run/x/swcred.sock") == true, "\(error!)")
        #expect(error?.message.contains("nothing was sent") == true)
    }

    @Test("a peer of the client's own uid passes")
    func ownPeer() throws {
        var ends: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0)
        defer { ends.forEach { close($0) } }
        try ServiceSocketTrust(trustedUID: nil).checkPeer(of: ends[0], listeningOn: "/run/x/swcred.sock")
    }
}
