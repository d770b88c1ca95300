import Foundation

/// The native-messaging wire format: each message is its UTF-8 JSON text preceded by its length
/// as a 32-bit unsigned integer in the host's byte order, in both directions.
///
/// The browsers' limits, which this type enforces:
/// - Chrome: "The maximum size of a single message from the native messaging host is 1 MB, mainly
///   to protect Chrome from misbehaving native applications. The maximum size of the message sent
///   to the native messaging host is 4 GB." (developer.chrome.com, "Native messaging", Native
///   messaging protocol.)
/// - Firefox: the same limits, in its implementation `toolkit/components/extensions/
///   NativeMessaging.sys.mjs`: `MAX_READ = 1024 * 1024` (what it accepts from the application) and
///   `MAX_WRITE = 0xffffffff` (what it may send, the largest 32-bit length); MDN's "Native
///   messaging" page states both.
/// - KeePassXC 2.7.4 caps every message at `NATIVEMSG_MAX_LENGTH = 1024 * 1024`
///   (`src/browser/BrowserShared.h`) on its socket too.
///
/// A host could thus be sent a 4 GiB message; no KeePassXC-Browser message comes near that (the
/// largest, `set-login`, carries a URL, a login and a password), so a host refuses anything above
/// ``maximumIncomingLength`` before it allocates a byte of it.
public enum NativeMessageFraming {
    /// The largest message a host accepts from the browser: 1 MiB, KeePassXC's own cap. The
    /// browsers would send up to 4 GiB (`UInt32.max` bytes).
    public static let maximumIncomingLength = 1024 * 1024
    /// The largest message a host may send to the browser: 1 MiB (1,048,576 bytes) in Chrome and
    /// Firefox alike; a longer one makes the browser drop the connection.
    public static let maximumOutgoingLength = 1024 * 1024
    /// The size of the length prefix.
    public static let headerLength = 4

    /// The frame for `message`: its length in the host's byte order, then its bytes.
    ///
    /// - Throws: ``NativeMessageFramingError/outgoingMessageTooLarge(length:limit:)`` when the
    ///   message is longer than `limit` (by default the browsers' 1 MiB), and
    ///   ``NativeMessageFramingError/emptyMessage`` for an empty one, which no browser accepts as
    ///   JSON.
    public static func frame(
        _ message: some Collection<UInt8>, limit: Int = maximumOutgoingLength
    ) throws(NativeMessageFramingError) -> [UInt8] {
        guard !message.isEmpty else { throw .emptyMessage }
        guard message.count <= limit, message.count <= Int(UInt32.max) else {
            throw .outgoingMessageTooLarge(length: message.count, limit: limit)
        }
        var frame = [UInt8]()
        frame.reserveCapacity(headerLength + message.count)
        withUnsafeBytes(of: UInt32(message.count)) { frame.append(contentsOf: $0) }
        frame.append(contentsOf: message)
        return frame
    }

    /// Reads a length prefix written in the host's byte order.
    static func length(ofHeader header: some Collection<UInt8>) -> UInt32 {
        precondition(header.count == headerLength)
        var value: UInt32 = 0
        withUnsafeMutableBytes(of: &value) { raw in
            for (index, byte) in header.enumerated() { raw[index] = byte }
        }
        return value
    }
}

/// Why a native message could not be read or written.
public enum NativeMessageFramingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The length prefix announces more than the host accepts; nothing of the body was read.
    case incomingMessageTooLarge(length: UInt64, limit: Int)
    /// A message to send is longer than the browser accepts.
    case outgoingMessageTooLarge(length: Int, limit: Int)
    /// A message of length zero, which is no JSON text.
    case emptyMessage
    /// The stream ended inside a length prefix, after `received` of its 4 bytes.
    case endOfStreamInHeader(received: Int)
    /// The stream ended inside a message body, after `received` of the `expected` bytes.
    case endOfStreamInBody(expected: Int, received: Int)
    /// `read(2)` or `write(2)` failed with `errno`.
    case systemCallFailed(call: String, errno: Int32)

    public var description: String {
        switch self {
        case .incomingMessageTooLarge(let length, let limit):
            return
                "a native message announces \(length) bytes, more than the \(limit) bytes a host accepts; it was not read"
        case .outgoingMessageTooLarge(let length, let limit):
            return "a native message of \(length) bytes is longer than the \(limit) bytes the browser accepts"
        case .emptyMessage:
            return "a native message of length 0 carries no JSON"
        case .endOfStreamInHeader(let received):
            return "the stream ended inside a message's 4-byte length prefix, after \(received) bytes"
        case .endOfStreamInBody(let expected, let received):
            return "the stream ended inside a message of \(expected) bytes, after \(received) bytes of it"
        case .systemCallFailed(let call, let code):
            return "\(call) failed: \(String(cString: strerror(code)))"
        }
    }
}
