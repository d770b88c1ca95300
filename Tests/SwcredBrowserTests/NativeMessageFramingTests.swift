import Foundation
import Testing

@testable import SwcredBrowser

/// A byte source over fixed bytes that hands out at most `chunk` bytes a read, and counts what it
/// gave, so a test can tell whether a body was read at all.
struct ChunkedSource: NativeMessageByteSource {
    var bytes: [UInt8]
    var chunk: Int
    var consumed = 0

    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(NativeMessageFramingError) -> Int {
        let count = min(chunk, buffer.count, bytes.count - consumed)
        for index in 0..<count { buffer[index] = bytes[consumed + index] }
        consumed += count
        return count
    }
}

/// A length prefix written independently of the code under test.
func header(_ length: UInt32) -> [UInt8] {
    #if _endian(little)
        return [UInt8(length & 0xff), UInt8((length >> 8) & 0xff), UInt8((length >> 16) & 0xff), UInt8(length >> 24)]
    #else
        return [UInt8(length >> 24), UInt8((length >> 16) & 0xff), UInt8((length >> 8) & 0xff), UInt8(length & 0xff)]
    #endif
}

@Suite("Native-messaging framing")
struct NativeMessageFramingTests {
    @Test("the length prefix is 4 bytes in the host's byte order, then the message")
    func frameLayout() throws {
        let message = [UInt8](repeating: UInt8(ascii: "x"), count: 258)
        let frame = try NativeMessageFraming.frame(message)
        #expect(Array(frame.prefix(4)) == header(258))
        #expect(Array(frame.dropFirst(4)) == message)
    }

    @Test("messages written to a pipe read back one by one, then nil at the end of the stream")
    func pipeRoundTrip() throws {
        let pipe = Pipe()
        let writer = NativeMessageWriter(fileDescriptor: pipe.fileHandleForWriting.fileDescriptor)
        let messages = [#"{"action":"change-public-keys"}"#, #"{"a":"é ✓"}"#, String(repeating: "y", count: 5000)]
        for message in messages { try writer.write(Array(message.utf8)) }
        try pipe.fileHandleForWriting.close()
        var reader = NativeMessageReader(fileDescriptor: pipe.fileHandleForReading.fileDescriptor)
        for message in messages {
            let read = try #require(try reader.next())
            #expect(String(decoding: read, as: UTF8.self) == message)
        }
        #expect(try reader.next() == nil)
    }

    @Test("a frame that arrives one byte per read is put together")
    func shortReads() throws {
        let message = Array(#"{"action":"get-logins"}"#.utf8)
        let bytes = try NativeMessageFraming.frame(message) + NativeMessageFraming.frame(message)
        var reader = NativeMessageReader(source: ChunkedSource(bytes: bytes, chunk: 1))
        #expect(try reader.next() == message)
        #expect(try reader.next() == message)
        #expect(try reader.next() == nil)
    }

    @Test("a pipe written a few bytes at a time, with pauses, reads as whole messages")
    func shortReadsFromAPipe() throws {
        let pipe = Pipe()
        let frame = try NativeMessageFraming.frame(Array(String(repeating: "z", count: 300).utf8))
        let writing = pipe.fileHandleForWriting
        let thread = Thread {
            var offset = 0
            while offset < frame.count {
                let end = min(offset + 3, frame.count)
                writing.write(Data(frame[offset..<end]))
                offset = end
                usleep(200)
            }
            try? writing.close()
        }
        thread.start()
        var reader = NativeMessageReader(fileDescriptor: pipe.fileHandleForReading.fileDescriptor)
        #expect(try reader.next()?.count == 300)
        #expect(try reader.next() == nil)
    }

    @Test(
        "a length over the cap is refused before any of the body is read",
        arguments: [
            UInt32(NativeMessageFraming.maximumIncomingLength + 1), UInt32.max,
        ])
    func overSize(length: UInt32) {
        let source = ChunkedSource(bytes: header(length) + [UInt8](repeating: 0x20, count: 64), chunk: 4096)
        var reader = NativeMessageReader(source: source)
        #expect(throws: NativeMessageFramingError.incomingMessageTooLarge(length: UInt64(length), limit: 1_048_576)) {
            try reader.next()
        }
    }

    @Test("a body of exactly the cap is read")
    func exactlyTheCap() throws {
        let body = [UInt8](repeating: UInt8(ascii: "a"), count: NativeMessageFraming.maximumIncomingLength)
        var reader = NativeMessageReader(source: ChunkedSource(bytes: header(UInt32(body.count)) + body, chunk: 65536))
        #expect(try reader.next()?.count == body.count)
    }

    @Test("a lower cap of the reader's own is honoured")
    func customCap() {
        var reader = NativeMessageReader(
            source: ChunkedSource(bytes: header(11) + Array("hello world".utf8), chunk: 64), maximumLength: 10)
        #expect(throws: NativeMessageFramingError.incomingMessageTooLarge(length: 11, limit: 10)) { try reader.next() }
    }

    @Test("the stream ending inside the length prefix is an error, not the end")
    func endOfStreamInHeader() {
        var reader = NativeMessageReader(source: ChunkedSource(bytes: [0x05, 0x00], chunk: 1))
        #expect(throws: NativeMessageFramingError.endOfStreamInHeader(received: 2)) { try reader.next() }
    }

    @Test("the stream ending inside a body is an error naming how much came")
    func endOfStreamInBody() {
        var reader = NativeMessageReader(source: ChunkedSource(bytes: header(10) + Array("abc".utf8), chunk: 2))
        #expect(throws: NativeMessageFramingError.endOfStreamInBody(expected: 10, received: 3)) { try reader.next() }
    }

    @Test("a zero length is refused both ways")
    func emptyMessage() {
        var reader = NativeMessageReader(source: ChunkedSource(bytes: header(0), chunk: 8))
        #expect(throws: NativeMessageFramingError.emptyMessage) { try reader.next() }
        #expect(throws: NativeMessageFramingError.emptyMessage) { try NativeMessageFraming.frame([UInt8]()) }
    }

    @Test("a message over the browsers' 1 MiB is not sent, and nothing reaches the pipe")
    func outgoingOverSize() throws {
        let pipe = Pipe()
        // Non-blocking, so that a writer that sent the message anyway fails on the full pipe
        // instead of hanging the test.
        let descriptor = pipe.fileHandleForWriting.fileDescriptor
        #expect(fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK) == 0)
        let writer = NativeMessageWriter(fileDescriptor: descriptor)
        let message = [UInt8](repeating: UInt8(ascii: "b"), count: 1024 * 1024 + 1)
        #expect(throws: NativeMessageFramingError.outgoingMessageTooLarge(length: 1_048_577, limit: 1_048_576)) {
            try writer.write(message)
        }
        try writer.write(Array("{}".utf8))
        try pipe.fileHandleForWriting.close()
        let written = pipe.fileHandleForReading.readDataToEndOfFile()
        #expect([UInt8](written) == header(2) + Array("{}".utf8))
    }

    @Test("a read that fails names the call and the reason")
    func readFailure() {
        var reader = NativeMessageReader(fileDescriptor: -1)
        #expect(throws: NativeMessageFramingError.systemCallFailed(call: "read", errno: EBADF)) { try reader.next() }
        #expect(
            NativeMessageFramingError.systemCallFailed(call: "read", errno: EBADF).description.contains("read failed"))
    }
}
