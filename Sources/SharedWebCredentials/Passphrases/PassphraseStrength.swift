import CZxcvbn

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// zxcvbn-c's estimate of how many guesses a passphrase takes: the estimator KeePassXC shows.
public enum PassphraseStrength {
    /// zxcvbn-c judges at most this many characters (Unicode scalars) of a passphrase.
    ///
    /// Its cost grows with about the cube of the length on crafted input: 100 characters of `$5`
    /// repeated take over 40 ms, 40 characters under 3 ms. Forty characters are far more than any
    /// verdict needs: the strictest threshold, a century at the capped rate of 10^9 guesses per
    /// second, is 62 bits. Leaving characters out can only lower the estimate, so a passphrase is
    /// never judged stronger than it is.
    public static let judgedCharacterLimit = 40

    /// The base-2 logarithm of the number of guesses zxcvbn-c expects `passphrase` to take,
    /// judging its first ``judgedCharacterLimit`` characters.
    ///
    /// `context` holds words an attacker would try first (the program's name, the vault's file
    /// name, the user name); zxcvbn-c treats them as its user dictionary. The passphrase is copied
    /// once, NUL-terminated, into locked memory that is wiped afterwards; zxcvbn-c's own working
    /// copies live in ordinary heap memory that it frees before returning. A passphrase holding a
    /// NUL byte is judged up to that byte, which can only lower the estimate.
    public static func estimatedBits(of passphrase: SecureBytes, context: [String] = []) -> Double {
        let judgedCount = judgedByteCount(of: passphrase)
        let terminated = SecureBytes(count: judgedCount + 1) { buffer in
            passphrase.withUnsafeBytes { source in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source.prefix(judgedCount)))
            }
            buffer[judgedCount] = 0
        }
        var dictionary: [UnsafePointer<CChar>?] = context.filter { !$0.isEmpty }.map { UnsafePointer(strdup($0)) }
        defer { for word in dictionary { free(UnsafeMutablePointer(mutating: word)) } }
        dictionary.append(nil)
        return terminated.withUnsafeBytes { bytes in
            dictionary.withUnsafeMutableBufferPointer { words in
                ZxcvbnMatch(bytes.baseAddress!.assumingMemoryBound(to: CChar.self), words.baseAddress, nil)
            }
        }
    }

    /// Whether `passphrase` is longer than what zxcvbn-c judges.
    public static func exceedsJudgedLength(_ passphrase: SecureBytes) -> Bool {
        judgedByteCount(of: passphrase) < passphrase.count
    }

    /// The bytes of the first ``judgedCharacterLimit`` characters: a UTF-8 continuation byte
    /// (10xxxxxx) never starts a character, so the cut never splits one.
    private static func judgedByteCount(of passphrase: SecureBytes) -> Int {
        passphrase.withUnsafeBytes { bytes in
            var characters = 0
            for (offset, byte) in bytes.enumerated() where byte & 0xC0 != 0x80 {
                if characters == judgedCharacterLimit { return offset }
                characters += 1
            }
            return bytes.count
        }
    }
}
