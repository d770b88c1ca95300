import Foundation

/// Writes framed native messages to a file descriptor (standard output of a native-messaging
/// host), finishing partial writes, so that the browser never sees half a frame.
public struct NativeMessageWriter {
    /// The descriptor written to; it is not closed.
    public let fileDescriptor: Int32
    /// The longest message sent: the browsers' 1 MiB unless a test lowers it.
    public let maximumLength: Int

    /// Writes to `fileDescriptor`.
    public init(fileDescriptor: Int32, maximumLength: Int = NativeMessageFraming.maximumOutgoingLength) {
        self.fileDescriptor = fileDescriptor
        self.maximumLength = maximumLength
    }

    /// Frames and writes one message; nothing is written when it is refused.
    ///
    /// - Throws: ``NativeMessageFramingError/outgoingMessageTooLarge(length:limit:)``,
    ///   ``NativeMessageFramingError/emptyMessage`` or
    ///   ``NativeMessageFramingError/systemCallFailed(call:errno:)``.
    public func write(_ message: some Collection<UInt8>) throws(NativeMessageFramingError) {
        let frame = try NativeMessageFraming.frame(message, limit: maximumLength)
        var written = 0
        while written < frame.count {
            let count = frame.withUnsafeBytes { raw in
                Glibc.write(fileDescriptor, raw.baseAddress! + written, raw.count - written)
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw .systemCallFailed(call: "write", errno: errno)
            }
            written += count
        }
    }
}
