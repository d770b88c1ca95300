import PropertyBased
import Testing

@testable import SwcredBrowser

/// Native-messaging framing and the socket's JSON splitter as properties over generated message
/// lists (``GeneratedMessages``) cut into generated chunks. A failure prints the input and the
/// seed; `.fixedSeed("…")` on the test repeats it.
@Suite("Native messages and the JSON splitter over generated streams")
struct NativeMessagePropertyTests {
    /// Messages, the cap they are read under (small, so that some exceed it), and how the framed
    /// stream is cut: into chunks, and where it ends.
    struct Stream: Sendable, CustomStringConvertible {
        var messages: [[UInt8]]
        var limit: Int
        var chunks: [[UInt8]]
        var cut: Int

        var description: String {
            "messages \(messages.map { String(decoding: $0, as: UTF8.self) }) limit \(limit) chunks \(chunks.map(\.count)) cut \(cut)"
        }
    }

    static let framedStreams = Generator<Stream, Shrink.None<Stream>>(run: { random in
        let messages = (0..<Int.random(in: 0...6, using: &random)).map { _ in GeneratedMessages.object(&random) }
        let limit = Int.random(in: 8...200, using: &random)
        let bytes = messages.flatMap { header(UInt32($0.count)) + $0 }
        let cut = Bool.random(using: &random) ? bytes.count : Int.random(in: 0...bytes.count, using: &random)
        return Stream(
            messages: messages, limit: limit, chunks: GeneratedMessages.chunks(of: Array(bytes[..<cut]), &random),
            cut: cut)
    })

    @Test("framed messages read back in order however the bytes arrive; one over the cap or cut short is an error")
    func framingRoundTrip() async {
        await propertyCheck(count: 300, input: Self.framedStreams) { stream throws in
            // What the frame function writes is what the reference header (written apart) says.
            for message in stream.messages {
                #expect(try NativeMessageFraming.frame(message) == header(UInt32(message.count)) + message)
            }
            var reader = NativeMessageReader(
                source: ChunkListSource(chunks: stream.chunks), maximumLength: stream.limit)
            var offset = 0
            for message in stream.messages {
                let frameEnd = offset + 4 + message.count
                let expected: Result<[UInt8]?, NativeMessageFramingError> =
                    stream.cut == offset
                    ? .success(nil)
                    : stream.cut < offset + 4
                        ? .failure(.endOfStreamInHeader(received: stream.cut - offset))
                        : message.count > stream.limit
                            ? .failure(.incomingMessageTooLarge(length: UInt64(message.count), limit: stream.limit))
                            : stream.cut < frameEnd
                                ? .failure(
                                    .endOfStreamInBody(expected: message.count, received: stream.cut - offset - 4))
                                : .success(message)
                let read = Result { () throws(NativeMessageFramingError) in try reader.next() }
                #expect(read == expected, "\(stream)")
                guard case .success(let bytes?) = expected, read == expected, bytes == message else { return }
                offset = frameEnd
            }
            #expect(Result { () throws(NativeMessageFramingError) in try reader.next() } == .success(nil), "\(stream)")
        }
    }

    @Test("a too-large length prefix is refused before any of its body is read")
    func oversizedNeverRead() async {
        let input = Generator<(UInt32, Int), Shrink.None<(UInt32, Int)>>(run: { random in
            let limit = Int.random(in: 1...NativeMessageFraming.maximumIncomingLength, using: &random)
            return (UInt32.random(in: UInt32(limit + 1)...UInt32.max, using: &random), limit)
        })
        await propertyCheck(count: 300, input: input) { length, limit in
            let source = ChunkListSource(chunks: [header(length), [UInt8](repeating: UInt8(ascii: "x"), count: 64)])
            var reader = NativeMessageReader(source: source, maximumLength: limit)
            #expect(throws: NativeMessageFramingError.incomingMessageTooLarge(length: UInt64(length), limit: limit)) {
                try reader.next()
            }
        }
    }

    /// Messages as written on KeePassXC's socket: objects one after the other, whitespace
    /// between some, maybe a stray byte after them, cut into chunks.
    static let socketStreams = Generator<Stream, Shrink.None<Stream>>(run: { random in
        let messages = (0..<Int.random(in: 0...6, using: &random)).map { _ in GeneratedMessages.object(&random) }
        var bytes: [UInt8] = []
        for message in messages {
            bytes += Array([" ", "\n", "\r\n", "\t", ""].randomElement(using: &random)!.utf8) + message
        }
        let stray = Bool.random(using: &random)
        if stray {
            bytes += [[UInt8(ascii: "}")], [UInt8(ascii: "x")], [0], Array("\"".utf8)].randomElement(using: &random)!
        }
        return Stream(
            messages: messages, limit: Int.random(in: 2...300, using: &random),
            chunks: GeneratedMessages.chunks(of: bytes, &random), cut: stray ? bytes.count - 1 : bytes.count)
    })

    @Test(
        "the splitter yields the objects written however the bytes arrive; one over the cap or a stray byte is an error"
    )
    func splitterRoundTrip() async {
        await propertyCheck(count: 300, input: Self.socketStreams) { stream in
            var splitter = BrowserJSONStreamSplitter(maximumLength: stream.limit)
            var yielded: [[UInt8]] = []
            var failure: BrowserStreamError?
            for chunk in stream.chunks {
                do throws(BrowserStreamError) {
                    yielded += try splitter.feed(chunk)
                } catch {
                    failure = error
                    break
                }
            }
            // The objects up to the first that is too long come out whole and in order (on an
            // error, those completed by the read that met it are dropped with the connection);
            // then the error, or at the end the stray byte's, at its offset.
            let fitting = stream.messages.prefix { $0.count <= stream.limit }
            #expect(yielded == Array(fitting.prefix(yielded.count)), "\(stream)")
            if fitting.count < stream.messages.count {
                #expect(failure == .messageTooLarge(limit: stream.limit), "\(stream)")
            } else if stream.cut < stream.chunks.joined().count {
                #expect(failure == .notAnObject(offset: stream.cut), "\(stream)")
            } else {
                #expect(failure == nil && !splitter.isInsideMessage && yielded == stream.messages, "\(stream)")
            }
        }
    }
}
