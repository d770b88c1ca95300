import Glibc
import NIOCore

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
        let credentials: PeerCredentialsLayout = try await provider.unsafeGetSocketOption(
            level: .socket, name: NIOBSDSocket.Option(rawValue: soPeerCred)
        ).get()
        return PeerCredentials(pid: credentials.pid, uid: credentials.uid, gid: credentials.gid)
    }

    /// A Unix socket connection whose peer offers no credentials.
    struct Unavailable: Error {}
}

/// `struct ucred` of `<sys/socket.h>` (pid_t, uid_t, gid_t), which Glibc's Swift module leaves
/// out because it needs `_GNU_SOURCE`.
private struct PeerCredentialsLayout {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
}

/// `SO_PEERCRED` (17 on x86, ARM and the other architectures of asm-generic), hidden from Swift
/// for the same reason.
private let soPeerCred: Int32 = 17
