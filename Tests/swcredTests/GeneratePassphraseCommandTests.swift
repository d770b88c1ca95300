import Foundation
import Testing

@testable import TestSupport

/// `swcred generate --style passphrase`: EFF words, `--words`, `--separator`, `--json`.
@Suite("swcred generate --style passphrase")
struct GeneratePassphraseCommandTests {
    /// The committed EFF large wordlist's words.
    static let words: Set<String> = {
        let file = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Resources/eff-large-wordlist/eff_large_wordlist.txt")
        let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        return Set(text.split(separator: "\n").compactMap { $0.split(separator: "\t").last.map(String.init) })
    }()

    @Test("default: six words from the list joined by -, one passphrase per line")
    func defaults() throws {
        #expect(Self.words.count == 7_776)
        let result = try SwcredProcess.run(["generate", "--style", "passphrase", "--count", "50"])
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 50)
        for line in lines {
            // Four list words hold a dash (yo-yo, drop-down, t-shirt, felt-tip): rejoin across them.
            var parts: [String] = []
            for piece in line.split(separator: "-").map(String.init) {
                if let last = parts.last, !Self.words.contains(last), Self.words.contains(last + "-" + piece) {
                    parts[parts.count - 1] = last + "-" + piece
                } else {
                    parts.append(piece)
                }
            }
            #expect(parts.count == 6 && parts.allSatisfy(Self.words.contains), "\(line)")
        }
    }

    @Test("--words and --separator; --json gives entropy_bits 77.55 for six words")
    func options() throws {
        let spaced = try SwcredProcess.run(["generate", "--style", "passphrase", "--words", "8", "--separator", " "])
        let words = spaced.stdout.trimmingCharacters(in: .newlines).split(separator: " ").map(String.init)
        #expect(spaced.status == 0 && words.count == 8 && words.allSatisfy(Self.words.contains), "\(spaced.stdout)")

        let json = try SwcredProcess.run(
            ["generate", "--style", "passphrase", "--json", "--count", "3", "--separator", "\"/"])
        #expect(json.status == 0, "\(json.stderr)")
        let entries = try #require(try JSONSerialization.jsonObject(with: json.stdoutData) as? [[String: Any]])
        #expect(entries.count == 3)
        for entry in entries {
            #expect(entry["style"] as? String == "passphrase")
            #expect(json.stdout.contains("\"entropy_bits\": 77.55"))
            let passphrase = try #require(entry["password"] as? String)
            let parts = passphrase.components(separatedBy: "\"/")
            #expect(parts.count == 6 && parts.allSatisfy(Self.words.contains), "\(passphrase)")
        }
        let four = try SwcredProcess.run(["generate", "--style", "passphrase", "--words", "4", "--json"])
        #expect(four.stdout.contains("\"entropy_bits\": 51.70"), "\(four.stdout)")
    }

    @Test("bad --words and --separator exit 2 with the problem named")
    func badInput() throws {
        let cases: [([String], String)] = [
            (["--style", "passphrase", "--words", "3"], "4 to 64 words, not 3"),
            (["--style", "passphrase", "--words", "65"], "not 65"),
            (["--style", "passphrase", "--separator", "x"], "\"x\" (U+0078)"),
            (["--style", "passphrase", "--separator", "\u{1B}[2J"], "U+001B"),
            (["--words", "6"], "--style passphrase"),
            (["--style", "strong", "--separator", "-"], "--style passphrase"),
        ]
        for (arguments, mention) in cases {
            let result = try SwcredProcess.run(["generate"] + arguments)
            #expect(result.status == 2 && result.stdout.isEmpty, "\(arguments)")
            #expect(result.stderr.contains(mention), "\(arguments): \(result.stderr)")
            #expect(!result.stderr.contains("\u{1B}"), "control characters are escaped")
        }
    }
}
