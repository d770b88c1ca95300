import Foundation
import Testing

@testable import SharedWebCredentials

@Suite("Passphrases from the EFF large wordlist")
struct PassphraseGeneratorTests {
    static let committedFile = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Resources/eff-large-wordlist/eff_large_wordlist.txt")

    @Test("the embedded list is byte for byte the committed file: 7,776 distinct words, 12.925 bits each")
    func embeddedList() throws {
        let committed = try Data(contentsOf: Self.committedFile)
        #expect(Data(EFFLargeWordlist.embeddedText.utf8) == committed)
        #expect(EFFLargeWordlist.words.count == 7_776)
        #expect(Set(EFFLargeWordlist.words).count == 7_776)
        #expect(EFFLargeWordlist.words.first == "abacus" && EFFLargeWordlist.words.last == "zoom")
        #expect(String(format: "%.3f", EFFLargeWordlist.bitsPerWord) == "12.925")
    }

    @Test("words joined by a letter-free separator read back as the same words")
    func wordsStayApart() {
        let words = Set(EFFLargeWordlist.words)
        let sorted = EFFLargeWordlist.words.sorted()
        for (word, next) in zip(sorted, sorted.dropFirst()) {
            #expect(!next.hasPrefix(word), "\(word) is a prefix of \(next)")
        }
        for word in words where word.contains("-") {
            let parts = word.split(separator: "-").map(String.init)
            #expect(!parts.allSatisfy(words.contains), "\(word) splits into list words")
        }
        #expect(words.allSatisfy { $0.allSatisfy { $0 == "-" || ("a"..."z").contains($0) } })
    }

    @Test("entropy: 77.55 bits for six words, 51.70 for four")
    func entropy() throws {
        #expect(String(format: "%.2f", try PassphraseGenerator().entropyBits) == "77.55")
        #expect(String(format: "%.2f", try PassphraseGenerator(wordCount: 4).entropyBits) == "51.70")
        let generated = PasswordGenerator(style: .passphrase).next()
        #expect(generated.style == .passphrase && String(format: "%.2f", generated.entropyBits) == "77.55")
    }

    @Test("every word is in the list, with the word count and separator asked for")
    func shape() throws {
        let words = Set(EFFLargeWordlist.words)
        for (count, separator) in [(6, " "), (4, "/"), (9, " · "), (5, "")] {
            let generator = try PassphraseGenerator(wordCount: count, separator: separator)
            for _ in 0..<200 {
                let text = generator.next().exposedString()
                if separator.isEmpty {
                    #expect(text.allSatisfy { $0 == "-" || ("a"..."z").contains($0) })
                    continue
                }
                let parts = text.components(separatedBy: separator)
                #expect(parts.count == count && parts.allSatisfy(words.contains), "\(text)")
            }
        }
        let standard = PasswordGenerator(style: .passphrase).next().password
        #expect(standard.split(separator: "-").count >= 6, "\(standard)")
    }

    @Test("over 100,000 six-word passphrases every word appears and the counts pass a chi-square test")
    func uniformity() throws {
        let index = Dictionary(uniqueKeysWithValues: EFFLargeWordlist.words.enumerated().map { ($1, $0) })
        var counts = [Int](repeating: 0, count: index.count)
        let generator = try PassphraseGenerator(wordCount: 6, separator: " ")
        for _ in 0..<100_000 {
            for word in generator.next().exposedString().split(separator: " ") {
                counts[try #require(index[String(word)])] += 1
            }
        }
        let expected = 600_000.0 / Double(counts.count)
        let chiSquare = counts.reduce(0.0) { $0 + pow(Double($1) - expected, 2) / expected }
        // Wilson-Hilferty: the chi-square quantile for 7,775 degrees of freedom at an upper tail of
        // 10^-6 (z = 4.753), so a correct generator fails once in a million runs.
        let freedom = Double(counts.count - 1)
        let critical = freedom * pow(1 - 2 / (9 * freedom) + 4.753 * (2 / (9 * freedom)).squareRoot(), 3)
        #expect(chiSquare < critical, "chi-square \(chiSquare) >= \(critical)")
        #expect(counts.allSatisfy { $0 > 0 }, "a word never drawn: the draw misses part of the list")
    }

    @Test("bad word counts and separators are refused, naming the problem")
    func badInput() {
        for count in [0, 3, 65, -1] {
            #expect(throws: SharedWebCredentialsError.self) { try PassphraseGenerator(wordCount: count) }
        }
        let cases: [(String, String)] = [
            ("a", "the letter \"a\" (U+0061)"), ("-é-", "(U+00E9)"), ("\u{7}", "U+0007"),
            ("\u{202E}", "U+202E"), ("123456789", "9 characters"), ("\n", "U+000A"),
        ]
        for (separator, mention) in cases {
            do {
                _ = try PassphraseGenerator(separator: separator)
                Issue.record("separator \(separator.debugDescription) was accepted")
            } catch let error as SharedWebCredentialsError {
                #expect(error.code == .invalidInput && error.message.contains(mention), "\(error.message)")
            } catch {
                Issue.record("unexpected error \(error)")
            }
        }
    }
}
