import Foundation
import SharedWebCredentialsData

/// The EFF large wordlist: 7,776 words (five dice), 12.925 bits each. CC BY 3.0, Electronic
/// Frontier Foundation; embedded from `Resources/eff-large-wordlist/` (THIRD-PARTY-NOTICES.md).
///
/// No word is a prefix of another and none holds a letter-free run that splits it into two list
/// words, so words joined by any separator without letters read back as the same words: every
/// sequence of words gives a distinct passphrase.
public enum EFFLargeWordlist {
    /// The words in the list's order (the dice order), lower-case ASCII letters and `-`.
    public static let words: [String] = parse(EmbeddedEFFLargeWordlistData.text)

    /// The embedded file, byte for byte.
    public static var embeddedText: String { EmbeddedEFFLargeWordlistData.text }

    /// Bits of entropy in one word drawn uniformly: log2(7,776).
    public static var bitsPerWord: Double { log2(Double(words.count)) }

    /// The word of each `DICE<TAB>WORD` line.
    private static func parse(_ text: String) -> [String] {
        text.split(separator: "\n").map { line in
            let fields = line.split(separator: "\t")
            precondition(fields.count == 2, "the embedded EFF wordlist has a line that is not DICE<TAB>WORD")
            return String(fields[1])
        }
    }
}
