import CSodium

/// Passphrases of words drawn uniformly from the EFF large wordlist
/// (`swcred generate --style passphrase`).
///
/// Each word is `randombytes_uniform(7776)`: libsodium's unbiased draw from its CSPRNG (it
/// rejects the few 32-bit values that would favour some words). The project's buffered
/// ``SecureRandom`` is as uniform, but a passphrase needs only a handful of draws, so its speed
/// buys nothing here and the draw libsodium documents is used directly. The passphrase is built
/// in place in a ``SecureBytes``; the chosen word numbers are wiped before ``next()`` returns.
public struct PassphraseGenerator: Sendable {
    /// Words per passphrase unless told otherwise: 77.55 bits.
    public static let defaultWordCount = 6
    /// The fewest words accepted: 51.70 bits.
    public static let minimumWordCount = 4
    /// The most words accepted.
    public static let maximumWordCount = 64
    /// The separator unless told otherwise.
    public static let defaultSeparator = "-"
    /// The longest separator accepted, in characters.
    public static let maximumSeparatorLength = 8

    /// Words in each passphrase.
    public let wordCount: Int
    /// The text between words.
    public let separator: String

    /// A generator of `wordCount` words joined by `separator`.
    ///
    /// - Throws: `SharedWebCredentialsError(.invalidInput)` when `wordCount` is outside
    ///   ``minimumWordCount``...``maximumWordCount``, or `separator` is longer than
    ///   ``maximumSeparatorLength`` or holds a letter (it would run into the words, so the words
    ///   could no longer be told apart) or a control or formatting character.
    public init(wordCount: Int = defaultWordCount, separator: String = defaultSeparator) throws {
        guard (Self.minimumWordCount...Self.maximumWordCount).contains(wordCount) else {
            throw SharedWebCredentialsError(
                .invalidInput,
                "A passphrase needs \(Self.minimumWordCount) to \(Self.maximumWordCount) words, not \(wordCount): fewer than \(Self.minimumWordCount) is too easy to guess."
            )
        }
        guard separator.count <= Self.maximumSeparatorLength else {
            throw SharedWebCredentialsError(
                .invalidInput,
                "The separator is \(separator.count) characters long: use at most \(Self.maximumSeparatorLength).")
        }
        for scalar in separator.unicodeScalars {
            let code = "U+" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 4)
            if scalar.properties.isAlphabetic {
                throw SharedWebCredentialsError(
                    .invalidInput,
                    "The separator holds the letter \"\(scalar)\" (\(code)): letters would run into the words. Use punctuation, digits, a space or nothing."
                )
            }
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .unassigned, .privateUse:
                throw SharedWebCredentialsError(
                    .invalidInput,
                    "The separator holds the invisible or control character \(code). Use punctuation, digits, a space or nothing."
                )
            default: continue
            }
        }
        self.wordCount = wordCount
        self.separator = separator
    }

    /// The entropy of each passphrase: `wordCount` × log2(7,776) bits.
    public var entropyBits: Double { Double(wordCount) * EFFLargeWordlist.bitsPerWord }

    /// The next passphrase, as UTF-8 bytes in locked memory.
    public func next() -> SecureBytes {
        Sodium.ensureInitialized()
        let words = EFFLargeWordlist.words
        let separatorBytes = Array(separator.utf8)
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: wordCount) { chosen in
            defer { sodium_memzero(chosen.baseAddress!, chosen.count * MemoryLayout<Int>.stride) }
            var length = separatorBytes.count * (wordCount - 1)
            for position in 0..<wordCount {
                chosen[position] = Int(randombytes_uniform(UInt32(words.count)))
                length += words[chosen[position]].utf8.count
            }
            return SecureBytes(count: length) { buffer in
                var offset = 0
                for position in 0..<wordCount {
                    if position > 0 {
                        for byte in separatorBytes {
                            buffer[offset] = byte
                            offset += 1
                        }
                    }
                    for byte in words[chosen[position]].utf8 {
                        buffer[offset] = byte
                        offset += 1
                    }
                }
            }
        }
    }
}

extension String {
    /// The string with leading zeros up to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
