import Testing

@testable import SwcredBrowser

@Suite("Splitting the browser socket's stream into JSON objects")
struct BrowserJSONStreamSplitterTests {
    private func text(_ messages: [[UInt8]]) -> [String] { messages.map { String(decoding: $0, as: UTF8.self) } }

    @Test("two objects in one read, with whitespace between and around")
    func twoInOneRead() throws {
        var splitter = BrowserJSONStreamSplitter()
        #expect(
            try text(splitter.feed(Array((#" {"a":1}"# + "\n\t{\"b\":{\"c\":[2]}}\r\n ").utf8))) == [
                #"{"a":1}"#, #"{"b":{"c":[2]}}"#,
            ])
        #expect(!splitter.isInsideMessage)
    }

    @Test("one object across reads, byte by byte")
    func acrossReads() throws {
        var splitter = BrowserJSONStreamSplitter()
        let message = #"{"action":"get-logins","nested":{"x":"}"}}"#
        var found: [String] = []
        for byte in message.utf8 {
            found += try text(splitter.feed([byte]))
            if found.isEmpty { #expect(splitter.isInsideMessage) }
        }
        #expect(found == [message])
    }

    @Test("braces, brackets and escaped quotes and backslashes inside strings")
    func stringsAndEscapes() throws {
        var splitter = BrowserJSONStreamSplitter()
        let messages = [
            #"{"a":"}"}"#, #"{"a":"{{{"}"#, #"{"a":"\"}"}"#, #"{"a":"\\"}"#, #"{"a":"\\\"}\\"}"#, #"{"a":"]["}"#,
            #"{"a":"\u007d"}"#,
        ]
        #expect(try text(splitter.feed(Array(messages.joined().utf8))) == messages)
        // A backslash at the end of one read escapes the first byte of the next.
        #expect(try text(splitter.feed(Array(#"{"a":"\"#.utf8))) == [])
        #expect(try text(splitter.feed(Array(#""}"}"#.utf8))) == [#"{"a":"\"}"}"#])
    }

    @Test("bytes outside an object are refused with their position")
    func outsideAnObject() throws {
        for (input, offset) in [("x", 0), ("  }", 2), (#"{"a":1}]"#, 7), ("[1]", 0), ("\"s\"", 0), ("\u{0}", 0)] {
            var splitter = BrowserJSONStreamSplitter()
            #expect(throws: BrowserStreamError.notAnObject(offset: offset), "\(input.debugDescription)") {
                _ = try splitter.feed(Array(input.utf8))
            }
            #expect(!splitter.isInsideMessage)
        }
        #expect(BrowserStreamError.notAnObject(offset: 3).description.contains("byte 3 of the stream"))
    }

    @Test("an object longer than the limit is refused before it ends; one exactly at it is accepted")
    func sizeLimit() throws {
        var splitter = BrowserJSONStreamSplitter(maximumLength: 16)
        let exact = #"{"a":"123456789"}"#
        #expect(exact.utf8.count == 17)
        var small = BrowserJSONStreamSplitter(maximumLength: 17)
        #expect(try text(small.feed(Array(exact.utf8))) == [exact])
        #expect(throws: BrowserStreamError.messageTooLarge(limit: 16)) { _ = try splitter.feed(Array(exact.utf8)) }
        #expect(!splitter.isInsideMessage)
        // An unending object is refused once it passes the limit, without waiting for its end.
        var unending = BrowserJSONStreamSplitter(maximumLength: 16)
        #expect(throws: BrowserStreamError.messageTooLarge(limit: 16)) {
            _ = try unending.feed(Array(#"{"a":"#.utf8) + [UInt8](repeating: 0x41, count: 12))
        }
        #expect(BrowserStreamError.messageTooLarge(limit: 16).description.contains("longer than the 16 bytes"))
        #expect(BrowserJSONStreamSplitter().maximumLength == 1024 * 1024)
    }
}
