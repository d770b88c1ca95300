import Dispatch
import Foundation
import Glibc

/// The native-messaging host's relay (`swcred browser host`): what `keepassxc-proxy` does, with
/// the listener's trust checks on the client side.
///
/// Each framed message from the browser (standard input) goes to the socket unframed, in one
/// write; each whole JSON object from the socket goes to the browser framed. The relay ends when
/// the browser closes standard input (the normal end) or when the socket closes or fails.
public enum BrowserHostRelay {
    /// How the relay ended.
    public enum Ending: Equatable, Sendable {
        /// The browser closed standard input.
        case browserClosed
        /// The listener closed the connection.
        case listenerClosed
    }

    /// Connects to the listener at `socketPath`, after checking its directory (a real directory,
    /// ours, writable by nobody else) and the directories above it
    /// (``BrowserSocketTrust/checkAncestors(of:uid:)``), and checks that the listener runs as our
    /// uid.
    ///
    /// - Throws: ``BrowserSocketError/noListener(_:)`` when the directory or socket is missing or
    ///   nothing listens; the directory and peer errors of ``BrowserSocketTrust``.
    public static func connect(socketPath: String, uid: uid_t = getuid()) throws(BrowserSocketError) -> Int32 {
        let directory = BrowserSocketTrust.parentDirectory(of: socketPath)
        do {
            try BrowserSocketTrust.checkDirectory(directory, uid: uid)
        } catch .systemCallFailed(_, _, ENOENT) {
            throw .noListener(socketPath)
        }
        try BrowserSocketTrust.checkAncestors(of: directory, uid: uid)
        let descriptor: Int32
        do {
            descriptor = try BrowserSocketTrust.connectedSocket(socketPath)
        } catch .systemCallFailed(_, _, let code) where code == ENOENT || code == ECONNREFUSED {
            throw .noListener(socketPath)
        }
        do {
            try BrowserSocketTrust.checkPeer(of: descriptor, uid: uid)
        } catch {
            close(descriptor)
            throw error
        }
        return descriptor
    }

    /// Relays between the browser (`input`, `output`: framed) and the connected `socket`
    /// (unframed) until one side ends; closes nothing.
    ///
    /// - Throws: ``BrowserHostRelayError`` naming the side and the problem (a frame over the
    ///   limit, an object over 1 MiB from the socket, a failed read or write).
    public static func run(
        socket: Int32, input: Int32 = 0, output: Int32 = 1,
        maximumLength: Int = NativeMessageFraming.maximumIncomingLength
    ) throws(BrowserHostRelayError) -> Ending {
        final class Result: @unchecked Sendable {
            let lock = NSLock()
            var value: Swift.Result<Ending, BrowserHostRelayError>?
            let done = DispatchSemaphore(value: 0)
            func finish(_ result: Swift.Result<Ending, BrowserHostRelayError>) {
                let first = lock.withLock {
                    if value != nil { return false }
                    value = result
                    return true
                }
                if first { done.signal() }
            }
        }
        let result = Result()
        let fromSocket = Thread {
            result.finish(relaySocket(socket, to: output, maximumLength: maximumLength))
        }
        fromSocket.name = "swcred browser host: socket to browser"
        fromSocket.start()
        let fromBrowser = Thread {
            result.finish(relayBrowser(input, to: socket, maximumLength: maximumLength))
        }
        fromBrowser.name = "swcred browser host: browser to socket"
        fromBrowser.start()
        result.done.wait()
        // The other thread may still be blocked in a read; the process ends soon after.
        return try result.lock.withLock { result.value! }.get()
    }

    private static func relayBrowser(
        _ input: Int32, to socket: Int32, maximumLength: Int
    ) -> Result<Ending, BrowserHostRelayError> {
        var reader = NativeMessageReader(fileDescriptor: input, maximumLength: maximumLength)
        while true {
            let message: [UInt8]?
            do {
                message = try reader.next()
            } catch {
                return .failure(.browser(error))
            }
            guard var message else { return .success(.browserClosed) }
            defer { for index in message.indices { message[index] = 0 } }
            var written = 0
            while written < message.count {
                let count = message.withUnsafeBytes { raw in
                    send(socket, raw.baseAddress! + written, raw.count - written, Int32(MSG_NOSIGNAL))
                }
                if count < 0 {
                    if errno == EINTR { continue }
                    return .failure(.socketFailed(call: "send", errno: errno))
                }
                written += count
            }
        }
    }

    private static func relaySocket(
        _ socket: Int32, to output: Int32, maximumLength: Int
    ) -> Result<Ending, BrowserHostRelayError> {
        var splitter = BrowserJSONStreamSplitter(maximumLength: maximumLength)
        let writer = NativeMessageWriter(fileDescriptor: output)
        let capacity = 64 * 1024
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 1)
        defer {
            splitter.wipe()
            buffer.initializeMemory(as: UInt8.self, repeating: 0)
            buffer.deallocate()
        }
        while true {
            let count = recv(socket, buffer.baseAddress, capacity, 0)
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(.socketFailed(call: "recv", errno: errno))
            }
            if count == 0 {
                return splitter.isInsideMessage ? .failure(.socketEndedInsideMessage) : .success(.listenerClosed)
            }
            do {
                for var message in try splitter.feed(UnsafeRawBufferPointer(rebasing: buffer[..<count])) {
                    defer { for index in message.indices { message[index] = 0 } }
                    do {
                        try writer.write(message)
                    } catch {
                        return .failure(.browser(error))
                    }
                }
            } catch {
                return .failure(.socketStream(error))
            }
        }
    }
}

/// Why the relay stopped on an error; never carries a message's content.
public enum BrowserHostRelayError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Reading from or writing to the browser failed (a frame over the limit, a frame cut off, a
    /// closed standard output).
    case browser(NativeMessageFramingError)
    /// The listener's bytes could not be split into messages.
    case socketStream(BrowserStreamError)
    /// The listener closed the connection inside a message.
    case socketEndedInsideMessage
    case socketFailed(call: String, errno: Int32)

    public var description: String {
        switch self {
        case .browser(let error): return "the browser's side: \(error)"
        case .socketStream(let error): return "the listener's side: \(error)"
        case .socketEndedInsideMessage: return "the listener closed the connection in the middle of a message"
        case .socketFailed(let call, let code):
            return "\(call) on the browser socket failed: \(String(cString: strerror(code)))"
        }
    }
}
