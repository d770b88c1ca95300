/// Splits the unframed byte stream of KeePassXC's browser socket into whole JSON objects.
///
/// `keepassxc-proxy` 2.7.4 writes each message from the browser as its bytes alone, and a read
/// of the socket may return part of one message or several; this finds where each top-level
/// object ends by counting braces outside strings (a backslash escapes the next byte inside a
/// string). It does not validate the JSON: the engine parses each object it yields.
///
/// Whitespace between objects is skipped. Anything else outside an object, a closing brace
/// without an opening one, or an object longer than ``maximumLength`` is an error, after which
/// the stream is out of step and the connection should be dropped.
public struct BrowserJSONStreamSplitter {
    /// The longest object accepted: 1 MiB, KeePassXC's `NATIVEMSG_MAX_LENGTH`.
    public let maximumLength: Int
    private var pending: [UInt8] = []
    private var depth = 0
    private var inString = false
    private var escaped = false
    /// Bytes consumed so far, for error positions.
    private var offset = 0

    /// A splitter refusing objects longer than `maximumLength` bytes.
    public init(maximumLength: Int = NativeMessageFraming.maximumIncomingLength) {
        self.maximumLength = maximumLength
    }

    /// Whether part of an object is waiting for more bytes.
    public var isInsideMessage: Bool { !pending.isEmpty }

    /// Feeds `bytes` and returns every object they complete, in order.
    public mutating func feed(_ bytes: some Sequence<UInt8>) throws(BrowserStreamError) -> [[UInt8]] {
        var messages: [[UInt8]] = []
        for byte in bytes {
            defer { offset += 1 }
            if depth == 0 {
                switch byte {
                case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                    continue
                case UInt8(ascii: "{"):
                    depth = 1
                    pending.append(byte)
                    continue
                default:
                    wipe()
                    throw .notAnObject(offset: offset)
                }
            }
            guard pending.count < maximumLength else {
                wipe()
                throw .messageTooLarge(limit: maximumLength)
            }
            pending.append(byte)
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth == 0 {
                    messages.append(pending)
                    wipe()
                }
            default: break
            }
        }
        return messages
    }

    /// Forgets the partial object, zeroing its bytes first.
    public mutating func wipe() {
        for index in pending.indices { pending[index] = 0 }
        pending.removeAll()
        depth = 0
        inString = false
        escaped = false
    }
}

/// Why bytes on the browser socket could not be split into messages; the connection is dropped.
public enum BrowserStreamError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A byte other than whitespace or `{` where a message should start.
    case notAnObject(offset: Int)
    /// A message grew past the limit before it ended.
    case messageTooLarge(limit: Int)

    public var description: String {
        switch self {
        case .notAnObject(let offset):
            return "byte \(offset) of the stream is outside any JSON object: each message must be one JSON object"
        case .messageTooLarge(let limit):
            return "a message is longer than the \(limit) bytes accepted; the connection was dropped"
        }
    }
}
