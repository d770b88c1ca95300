/// The two kinds of runs the `max-repeating` and `max-sequential` rules limit, defined once for the
/// generators and the entropy counts.
public enum SequenceRuns {
    /// The character that continues an ascending run after `code`: the next letter of the same case
    /// or the next digit (`a`→`b`, `8`→`9`; nothing after `z`, `Z` or `9`).
    @inlinable
    public static func successor(of code: UInt8) -> UInt8? {
        switch code {
        case 0x30..<0x39, 0x41..<0x5A, 0x61..<0x7A: code + 1
        default: nil
        }
    }

    /// The character that continues a descending run after `code`.
    @inlinable
    public static func predecessor(of code: UInt8) -> UInt8? {
        switch code {
        case 0x31...0x39, 0x42...0x5A, 0x62...0x7A: code - 1
        default: nil
        }
    }

    /// Whether `characters` has no run of one repeated character longer than `maxRepeating` and no
    /// ascending or descending run longer than `maxSequential` (`nil`: unlimited).
    @inlinable
    public static func satisfies(
        _ characters: UnsafeBufferPointer<UInt8>, maxRepeating: Int?, maxSequential: Int?
    ) -> Bool {
        let repeatLimit = maxRepeating ?? Int.max
        let sequenceLimit = maxSequential ?? Int.max
        var repeated = 1
        var ascending = 1
        var descending = 1
        for index in characters.indices.dropFirst() {
            let previous = characters[index - 1]
            let code = characters[index]
            repeated = code == previous ? repeated + 1 : 1
            ascending = successor(of: previous) == code ? ascending + 1 : 1
            descending = predecessor(of: previous) == code ? descending + 1 : 1
            if repeated > repeatLimit || ascending > sequenceLimit || descending > sequenceLimit { return false }
        }
        return true
    }
}
