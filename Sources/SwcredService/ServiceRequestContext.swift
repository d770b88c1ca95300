import Hummingbird
import Logging
import NIOCore

/// What a request carries besides itself: the connection it came on, for the peer's
/// credentials and for slowing down repeated failed authentications.
struct ServiceRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The connection.
    let channel: any Channel
    /// The process at the other end of a Unix socket connection; nil on TCP. Set by
    /// ``ServiceMiddleware`` before the route runs.
    var peer: PeerCredentials?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }

    /// Hummingbird's own decoding cap; the service reads bodies itself with the same cap.
    var maxUploadSize: Int { ServiceLimits.maximumBodySize }
}
