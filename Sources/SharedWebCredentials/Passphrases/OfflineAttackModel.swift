/// How fast someone who copied the vault file can guess its passphrase (DESIGN.md, "Passphrase
/// strength").
///
/// Argon2id is bound by memory bandwidth: each guess writes its `memlimit` bytes and reads them
/// back about twice on every pass, so it moves about 3 × memlimit × opslimit bytes. One high-end
/// GPU streams about 3.35 TB/s, which at the default 3 passes over 64 MiB is about 5,500 guesses
/// per second. Below a few KiB the memory traffic no longer dominates, so the rate is capped at
/// 10^9 guesses per second.
public enum OfflineAttackModel {
    /// The attacker's memory bandwidth in bytes per second: one high-end GPU.
    public static let memoryBandwidth = 3.35e12
    /// The fastest guessing the model allows, whatever the parameters.
    public static let maximumGuessesPerSecond = 1e9
    /// Seconds in a (Julian) year.
    public static let secondsPerYear = 31_557_600.0

    /// Guesses per second against Argon2id with `opslimit` passes over `memlimit` bytes:
    /// 3.35e12 / (3 × memlimit × opslimit), at most 10^9.
    public static func guessesPerSecond(opslimit: UInt64, memlimit: UInt64) -> Double {
        let bytesPerGuess = 3 * Double(memlimit) * Double(opslimit)
        guard bytesPerGuess > 0 else { return maximumGuessesPerSecond }
        return min(memoryBandwidth / bytesPerGuess, maximumGuessesPerSecond)
    }

    /// Guesses per second against Argon2id with `parameters`.
    public static func guessesPerSecond(_ parameters: KDFParameters) -> Double {
        guessesPerSecond(opslimit: parameters.opslimit, memlimit: parameters.memlimit)
    }
}
