import Foundation
import PropertyBased
import SwcredBrowser

/// Generated browser messages for the framing and splitter properties: JSON objects as the
/// extension writes them, with strings full of what a splitter or a framer could trip on
/// (braces, brackets, quotes, backslashes, escapes, non-ASCII), nested objects and arrays.
enum GeneratedMessages {
    private static let stringPieces = [
        "{", "}", "[", "]", "\"", "\\", "\\\"", "\\\\", "a", "é", "✓", "😀", " ", "\n", "\u{0}", "get-logins", ":", ",",
    ]

    /// One JSON object, serialized by Foundation.
    static func object(_ random: inout any SeededRandomNumberGenerator, depth: Int = 0) -> [UInt8] {
        let value = dictionary(&random, depth: depth)
        return Array(try! JSONSerialization.data(withJSONObject: value, options: [.sortedKeys]))
    }

    private static func dictionary(_ random: inout any SeededRandomNumberGenerator, depth: Int) -> [String: Any] {
        var dictionary: [String: Any] = [:]
        for _ in 0..<Int.random(in: 0...4, using: &random) {
            dictionary[string(&random)] = value(&random, depth: depth)
        }
        return dictionary
    }

    private static func value(_ random: inout any SeededRandomNumberGenerator, depth: Int) -> Any {
        switch Int.random(in: 0..<(depth < 3 ? 6 : 4), using: &random) {
        case 0, 1: string(&random)
        case 2: Int.random(in: -1000...1000, using: &random)
        case 3: Bool.random(using: &random)
        case 4: dictionary(&random, depth: depth + 1)
        default: (0..<Int.random(in: 0...3, using: &random)).map { _ in value(&random, depth: depth + 1) }
        }
    }

    private static func string(_ random: inout any SeededRandomNumberGenerator) -> String {
        (0..<Int.random(in: 0...6, using: &random)).map { _ in stringPieces.randomElement(using: &random)! }.joined()
    }

    /// Cuts `bytes` into consecutive pieces of random sizes (empty ones included), as reads of a
    /// socket or a pipe may return them.
    static func chunks(of bytes: [UInt8], _ random: inout any SeededRandomNumberGenerator) -> [[UInt8]] {
        var chunks: [[UInt8]] = []
        var start = 0
        while start < bytes.count {
            let size = [0, 1, 1, 2, 3, 4, 5, 17, 64, 1000].randomElement(using: &random)!
            let end = min(bytes.count, start + size)
            chunks.append(Array(bytes[start..<end]))
            start = end
        }
        return chunks
    }
}

/// A byte source that hands out the chunks it was given, one per read (a chunk longer than the
/// buffer across several), so a reader meets every way the bytes can arrive.
struct ChunkListSource: NativeMessageByteSource {
    var chunks: [[UInt8]]
    /// Bytes handed out so far.
    var consumed = 0

    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(NativeMessageFramingError) -> Int {
        while let first = chunks.first, first.isEmpty { chunks.removeFirst() }
        guard let first = chunks.first else { return 0 }
        let count = min(first.count, buffer.count)
        for index in 0..<count { buffer[index] = first[index] }
        chunks[0].removeFirst(count)
        consumed += count
        return count
    }
}
