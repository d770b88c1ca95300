import Foundation

/// A file stream that counts what passes through it, and bounds how long a field can get before
/// CSV.swift holds it in memory.
///
/// It counts bytes, for the progress bar, and double quotes, for the one check RFC 4180 parsers
/// skip. A well-formed CSV file holds an even number of `"` (every quoted field opens and closes,
/// an escaped quote is doubled); an odd count at the end means the file stops inside a quoted
/// field, i.e. it was truncated. CSV.swift takes such a field as ended by the end of the file, so
/// this is the fix-up that catches it.
///
/// It follows fields as RFC 4180 delimits them (a `,` or line break outside quotes ends one;
/// every `"` toggles "inside quotes", which an escaped `""` toggles twice) and hands on at most
/// ``fieldLimit`` bytes of any one field: the rest of it is read and dropped, and a `"` is added
/// before the delimiter when the part handed on was left inside quotes. What CSV.swift gets for
/// such a field is still longer than the vault's field limit (an escaped quote is two bytes for
/// one, so `2 × limit + 4` bytes hold at least `limit + 1` characters' bytes), so the row is
/// refused for it, while memory stays bounded whatever the file holds.
///
/// It also hands on at most ``rowFieldLimit`` fields of any one row: from the delimiter that
/// would start one more, the rest of the row is read and dropped up to its line break. A row of a
/// million commas would otherwise be a million fields in memory at once, each under the field
/// limit; what CSV.swift gets of it is ``rowFieldLimit`` fields, more than any header has, so the
/// row is refused for them.
final class CountingInputStream: InputStream {
    private let base: InputStream
    /// Bytes read from the file but not yet handed on: ``hasBytesAvailable`` reads ahead, since
    /// a file stream only learns of its end from a read that returns nothing, and CSV.swift takes
    /// that empty read for a read error.
    private var ahead: [UInt8] = []
    private var aheadStart = 0
    private var ended = false
    /// Bytes read from the file so far (dropped ones included).
    private(set) var bytesRead = 0
    /// Double quotes in the file so far (dropped ones included).
    private(set) var quoteCount = 0
    /// The last byte read from the file, to tell whether its last row ends with a line break.
    private(set) var lastByte: UInt8?
    /// How many bytes of one field are handed on at most.
    let fieldLimit: Int
    /// Whether the file so far is inside a quoted field.
    private var inQuotes = false
    /// Whether what was handed on so far is inside a quoted field.
    private var handedInQuotes = false
    /// Bytes of the current field so far.
    private var fieldBytes = 0
    /// Whether the rest of the current field is being dropped.
    private var dropping = false
    /// Fields of the current row so far, the one being read included.
    private var rowFields = 1
    /// Whether the rest of the current row is being dropped.
    private var droppingRow = false

    /// How many fields of one row are handed on at most.
    static let rowFieldLimit = 1024

    /// The bytes handed on of a field longer than `maximumFieldBytes`: enough that it still reads
    /// as longer than that.
    static func fieldLimit(forMaximumFieldBytes maximum: Int) -> Int { 2 * maximum + 4 }

    init?(path: String, fieldLimit: Int) {
        guard let base = InputStream(fileAtPath: path) else { return nil }
        self.base = base
        self.fieldLimit = fieldLimit
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

    /// Whether the file ends with a line break (its last row was not cut off mid-row).
    var endsWithLineBreak: Bool { lastByte == UInt8(ascii: "\n") || lastByte == UInt8(ascii: "\r") }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength length: Int) -> Int {
        // A buffer whose bytes were all dropped hands on nothing: read on, so that only the end
        // of the file returns 0.
        while hasBytesAvailable {
            let written = handOn(into: buffer, maxLength: length)
            if written > 0 { return written }
        }
        // (`streamStatus`, not `streamError`: corelibs Foundation traps reading the latter at the
        // end of a file stream.)
        return ended && base.streamStatus == .error ? -1 : 0
    }

    /// Hands on bytes read ahead (at least one is), dropping those of an over-long field.
    private func handOn(into buffer: UnsafeMutablePointer<UInt8>, maxLength length: Int) -> Int {
        // The state in locals for the loop: a class's stored properties would be checked for
        // exclusive access at every byte.
        let quote = UInt8(ascii: "\""), comma = UInt8(ascii: ","), limit = fieldLimit
        var inQuotes = inQuotes, handedInQuotes = handedInQuotes, dropping = dropping
        var rowFields = rowFields, droppingRow = droppingRow
        var fieldBytes = fieldBytes, quotes = 0, consumed = 0, written = 0
        let available = ahead.count - aheadStart
        ahead.withUnsafeBufferPointer { ahead in
            let bytes = UnsafeBufferPointer(rebasing: ahead[aheadStart...])
            while written < length && consumed < available {
                let byte = bytes[consumed]
                let endsField =
                    !inQuotes && (byte == UInt8(ascii: ",") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r"))
                if endsField && dropping {
                    dropping = false
                    if handedInQuotes {
                        // Close the quoted part handed on; the delimiter itself comes next round.
                        buffer[written] = quote
                        written += 1
                        handedInQuotes = false
                        continue
                    }
                }
                consumed += 1
                if byte == quote {
                    inQuotes.toggle()
                    quotes += 1
                }
                if endsField {
                    fieldBytes = 0
                    if byte != comma {
                        rowFields = 1
                        droppingRow = false
                    } else if rowFields == Self.rowFieldLimit {
                        droppingRow = true
                    } else if !droppingRow {
                        rowFields += 1
                    }
                } else {
                    fieldBytes += 1
                    if fieldBytes > limit { dropping = true }
                }
                if dropping || droppingRow { continue }
                buffer[written] = byte
                written += 1
                if byte == quote { handedInQuotes.toggle() }
            }
        }
        if consumed > 0 { lastByte = ahead[aheadStart + consumed - 1] }
        aheadStart += consumed
        bytesRead += consumed
        quoteCount += quotes
        self.inQuotes = inQuotes
        self.handedInQuotes = handedInQuotes
        self.dropping = dropping
        self.rowFields = rowFields
        self.droppingRow = droppingRow
        self.fieldBytes = fieldBytes
        return written
    }
}
