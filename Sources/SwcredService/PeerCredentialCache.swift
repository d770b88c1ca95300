import NIOCore
import Synchronization

/// The peer credentials of each open connection, read once when its first request arrives.
///
/// `SO_PEERCRED` is fixed when the peer connects, so a keep-alive connection need not ask the
/// kernel again for every request; asking meant a hop to the connection's event loop and back
/// (two thread wake-ups) in front of each request. An entry is dropped when its connection
/// closes, before the channel can be freed and its identity reused.
final class PeerCredentialCache: Sendable {
    private let entries = Mutex<[ObjectIdentifier: PeerCredentials?]>([:])

    /// The credentials of `channel`'s peer (nil on TCP), from the cache or read now; throws, and
    /// caches nothing, when a Unix socket's peer cannot be read.
    func credentials(of channel: any Channel) async throws -> PeerCredentials? {
        let key = ObjectIdentifier(channel)
        if let cached = entries.withLock({ $0[key] }) { return cached }
        let credentials = try await PeerCredentials.of(channel)
        let inserted = entries.withLock { entries -> Bool in
            guard entries[key] == nil else { return false }
            entries[key] = .some(credentials)
            return true
        }
        if inserted {
            channel.closeFuture.whenComplete { _ in _ = self.entries.withLock { $0.removeValue(forKey: key) } }
        }
        return credentials
    }
}
