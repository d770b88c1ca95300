import CZxcvbn

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// zxcvbn-c's estimate of how many guesses a passphrase takes: the estimator KeePassXC shows.
public enum PassphraseStrength {
    /// The base-2 logarithm of the number of guesses zxcvbn-c expects `passphrase` to take.
    ///
    /// `context` holds words an attacker would try first (the program's name, the vault's file
    /// name, the user name); zxcvbn-c treats them as its user dictionary. The passphrase is copied
    /// once, NUL-terminated, into locked memory that is wiped afterwards; zxcvbn-c's own working
    /// copies live in ordinary heap memory that it frees before returning. A passphrase holding a
    /// NUL byte is judged up to that byte, which can only lower the estimate.
    public static func estimatedBits(of passphrase: SecureBytes, context: [String] = []) -> Double {
        let terminated = SecureBytes(count: passphrase.count + 1) { buffer in
            passphrase.withUnsafeBytes { source in buffer.copyMemory(from: source) }
            buffer[passphrase.count] = 0
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
}
