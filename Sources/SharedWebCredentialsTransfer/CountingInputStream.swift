import Foundation

/// A file stream that counts what passes through it: bytes, for the progress bar, and double
/// quotes, for the one check RFC 4180 parsers skip. A well-formed CSV file holds an even number
/// of `"` (every quoted field opens and closes, an escaped quote is doubled); an odd count at
/// the end means the file stops inside a quoted field, i.e. it was truncated. CSV.swift takes
/// such a field as ended by the end of the file, so this is the fix-up that catches it.
final class CountingInputStream: InputStream {
    private let base: InputStream
    /// Bytes read from the file but not yet handed on: ``hasBytesAvailable`` reads ahead, since
    /// a file stream only learns of its end from a read that returns nothing, and CSV.swift takes
    /// that empty read for a read error.
    private var ahead: [UInt8] = []
    private var aheadStart = 0
    private var ended = false
    /// Bytes handed on so far.
    private(set) var bytesRead = 0
    /// Double quotes handed on so far.
    private(set) var quoteCount = 0

    init?(path: String) {
        guard let base = InputStream(fileAtPath: path) else { return nil }
        self.base = base
        super.init(data: Data())
    }

    override func open() { base.open() }
    override func close() { base.close() }
    override var streamStatus: Stream.Status { base.streamStatus }
    override var streamError: Error? { base.streamError }

    override var hasBytesAvailable: Bool {
        if aheadStart < ahead.count { return true }
        guard !ended else { return false }
        ahead = [UInt8](repeating: 0, count: 64 * 1024)
        let count = ahead.withUnsafeMutableBufferPointer { base.read($0.baseAddress!, maxLength: $0.count) }
        ahead.removeLast(ahead.count - max(count, 0))
        aheadStart = 0
        if count <= 0 { ended = true }
        return count > 0
    }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength length: Int) -> Int {
        guard hasBytesAvailable else { return ended && base.streamError != nil ? -1 : 0 }
        let count = min(length, ahead.count - aheadStart)
        var quotes = 0
        for index in 0..<count {
            let byte = ahead[aheadStart + index]
            buffer[index] = byte
            if byte == UInt8(ascii: "\"") { quotes += 1 }
        }
        aheadStart += count
        bytesRead += count
        quoteCount += quotes
        return count
    }
}
