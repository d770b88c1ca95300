import Glibc
import NIOCore
import SwcredPlatform

/// The process at the other end of a Unix socket connection, from `SO_PEERCRED`.
struct PeerCredentials: Sendable, Equatable {
    let pid: Int32
    let uid: UInt32
    let gid: UInt32

    /// The credentials of `channel`'s peer, or nil for a connection that has none (TCP). Throws
    /// when a Unix socket's peer cannot be read: such a connection is refused, never taken for one
    /// without credentials, which would skip the uid checks.
    static func of(_ channel: any Channel) async throws -> PeerCredentials? {
        guard case .unixDomainSocket? = channel.localAddress else { return nil }
        guard let provider = channel as? any SocketOptionProvider else { throw Unavailable() }
        // The layout and option of SwcredPlatform's SocketPeer, which the clients and the browser
        // socket read too.
        let credentials: SocketPeer = try await provider.unsafeGetSocketOption(
            level: .socket, name: NIOBSDSocket.Option(rawValue: SocketPeer.option)
        ).get()
        return PeerCredentials(pid: credentials.pid, uid: credentials.uid, gid: credentials.gid)
    }

    /// A Unix socket connection whose peer offers no credentials.
    struct Unavailable: Error {}
}
