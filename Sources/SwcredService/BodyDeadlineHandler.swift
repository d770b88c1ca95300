import NIOCore
import NIOHTTPTypes

/// Gives each request `timeout` from its head to its end (`--body-timeout`), so that a client
/// that sends its body slowly, or never, does not tie up a handler.
///
/// It sits in the connection's pipeline after HTTP decoding and runs on the connection's event
/// loop, so a request whose body is already complete costs nothing: the deadline is scheduled
/// only when a read leaves a request unfinished, and cancelled when its end arrives. When the
/// deadline passes first, the request's body stream fails with ``BodyDeadlineExpired``: the
/// handler waiting for the body answers 408, and the connection closes after that answer. (A
/// timer task beside every body read, as this replaced, cost two more tasks and a timer per
/// request on the cooperative threads.)
final class BodyDeadlineHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private let timeout: TimeAmount
    /// When the head of the request still being read arrived; nil between requests.
    private var unfinishedSince: NIODeadline?
    private var deadline: Scheduled<Void>?

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            unfinishedSince = .now()
        case .body:
            break
        case .end:
            unfinishedSince = nil
            cancelDeadline()
        }
        context.fireChannelRead(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if let unfinishedSince, deadline == nil {
            let loop = context.eventLoop.assumeIsolatedUnsafeUnchecked()
            deadline = loop.scheduleTask(deadline: unfinishedSince + timeout) { [weak self] in
                guard let self, self.unfinishedSince != nil else { return }
                // Once: the connection closes after the answer, whatever else of the body arrives.
                self.unfinishedSince = nil
                self.deadline = nil
                context.fireErrorCaught(BodyDeadlineExpired())
            }
        }
        context.fireChannelReadComplete()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelDeadline()
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelDeadline()
        context.fireChannelInactive()
    }

    private func cancelDeadline() {
        deadline?.cancel()
        deadline = nil
    }
}

/// A request's body did not arrive whole within `--body-timeout` (``BodyDeadlineHandler``).
struct BodyDeadlineExpired: Error {}
