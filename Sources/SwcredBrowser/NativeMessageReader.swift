import Foundation

/// Where a ``NativeMessageReader`` gets bytes: fills as much of the buffer as it has now and
/// returns the count, 0 at the end of the stream. Short reads are normal.
public protocol NativeMessageByteSource {
    /// Reads at most `buffer.count` bytes into `buffer`.
    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(NativeMessageFramingError) -> Int
}

/// A file descriptor as a byte source (standard input of a native-messaging host, a socket).
/// It does not close the descriptor.
public struct FileDescriptorByteSource: NativeMessageByteSource {
    /// The descriptor read from.
    public let fileDescriptor: Int32

    /// Reads from `fileDescriptor`.
    public init(fileDescriptor: Int32) {
        self.fileDescriptor = fileDescriptor
    }

    /// Reads from the handle's descriptor.
    public init(_ handle: FileHandle) {
        self.init(fileDescriptor: handle.fileDescriptor)
    }

    public mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(NativeMessageFramingError) -> Int {
        while true {
            let count = Glibc.read(fileDescriptor, buffer.baseAddress, buffer.count)
            if count >= 0 { return count }
            if errno == EINTR { continue }
            throw .systemCallFailed(call: "read", errno: errno)
        }
    }
}

/// Reads framed native messages one at a time, incrementally: a message may arrive in any
/// number of short reads, and its body is read only after its length has been checked against
/// the limit.
public struct NativeMessageReader<Source: NativeMessageByteSource> {
    private var source: Source
    /// The longest message accepted.
    public let maximumLength: Int

    /// Reads from `source`, refusing messages longer than `maximumLength` bytes.
    public init(source: Source, maximumLength: Int = NativeMessageFraming.maximumIncomingLength) {
        self.source = source
        self.maximumLength = maximumLength
    }

    /// The next message's bytes, or `nil` when the stream ends cleanly between two messages.
    ///
    /// - Throws: ``NativeMessageFramingError/incomingMessageTooLarge(length:limit:)`` before any
    ///   of an over-long body is read (the stream is then out of step: stop reading it);
    ///   ``NativeMessageFramingError/emptyMessage`` for a zero length;
    ///   ``NativeMessageFramingError/endOfStreamInHeader(received:)`` and
    ///   ``NativeMessageFramingError/endOfStreamInBody(expected:received:)`` when the stream ends
    ///   mid-frame; ``NativeMessageFramingError/systemCallFailed(call:errno:)`` when a read fails.
    public mutating func next() throws(NativeMessageFramingError) -> [UInt8]? {
        let header = UnsafeMutableRawBufferPointer.allocate(byteCount: NativeMessageFraming.headerLength, alignment: 4)
        defer { header.deallocate() }
        let headerRead = try fill(header)
        if headerRead == 0 { return nil }
        guard headerRead == header.count else { throw .endOfStreamInHeader(received: headerRead) }
        let length = NativeMessageFraming.length(ofHeader: header)
        guard length > 0 else { throw .emptyMessage }
        guard UInt64(length) <= UInt64(maximumLength) else {
            throw .incomingMessageTooLarge(length: UInt64(length), limit: maximumLength)
        }
        let body = UnsafeMutableRawBufferPointer.allocate(byteCount: Int(length), alignment: 1)
        defer {
            // The body may be a plaintext message; leave nothing of it in freed memory.
            body.initializeMemory(as: UInt8.self, repeating: 0)
            body.deallocate()
        }
        let bodyRead = try fill(body)
        guard bodyRead == body.count else { throw .endOfStreamInBody(expected: body.count, received: bodyRead) }
        return [UInt8](body)
    }

    /// Reads until `buffer` is full or the stream ends; returns how many bytes were read.
    private mutating func fill(_ buffer: UnsafeMutableRawBufferPointer) throws(NativeMessageFramingError) -> Int {
        var filled = 0
        while filled < buffer.count {
            let count = try source.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
            if count == 0 { break }
            filled += count
        }
        return filled
    }
}

extension NativeMessageReader where Source == FileDescriptorByteSource {
    /// Reads from a file descriptor (standard input: 0).
    public init(fileDescriptor: Int32, maximumLength: Int = NativeMessageFraming.maximumIncomingLength) {
        self.init(source: FileDescriptorByteSource(fileDescriptor: fileDescriptor), maximumLength: maximumLength)
    }
}
