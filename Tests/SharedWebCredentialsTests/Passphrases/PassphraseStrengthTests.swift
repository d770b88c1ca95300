import Foundation
import Testing

@testable import SharedWebCredentials

@Suite("Passphrase strength: zxcvbn-c, the offline attack model, and the verdict")
struct PassphraseStrengthTests {
    private func bits(_ passphrase: String, context: [String] = []) -> Double {
        PassphraseStrength.estimatedBits(of: SecureBytes(utf8: passphrase), context: context)
    }

    @Test("zxcvbn-c ranks common passwords far below long random ones; Tr0ub4dor&3 is 46.7 bits")
    func estimates() {
        #expect(bits("password") < 1)
        #expect(bits("a") < 3)
        #expect(bits("hunter2hunter2") < 30)
        #expect(abs(bits("Tr0ub4dor&3") - 46.74) < 0.01)
        #expect(bits("correct horse battery staple") > 70)
        #expect(bits("correct horse battery staple") > bits("correct horse"))
    }

    @Test("context words count as a user dictionary: the tool's and vault's names are cheap guesses")
    func contextWords() {
        let alone = bits("swcredvault")
        let withContext = bits("swcredvault", context: ["swcred", "vault.sqlite", "vault", ""])
        #expect(withContext < alone - 20, "\(withContext) vs \(alone)")
    }

    @Test("a NUL byte ends the judged text, which can only lower the estimate")
    func nulByte() {
        let short = bits("abc")
        let withNul = PassphraseStrength.estimatedBits(
            of: SecureBytes(copying: Array("abc".utf8) + [0] + Array("correct horse battery staple".utf8)))
        #expect(withNul == short)
    }

    @Test("only the first 40 characters are judged, cut between characters, and the explanation says so")
    func judgedPrefix() {
        let strongTail = "Xq7#vR2!mK9@pL4$wZ8&"
        let weakStart = String(repeating: "a", count: 40)
        #expect(bits(weakStart + strongTail) == bits(weakStart))
        #expect(bits(strongTail + weakStart) > 60)
        let accented = String(repeating: "\u{e9}", count: 40)
        #expect(bits(accented + "zz") == bits(accented))
        #expect(bits(String(accented.dropLast()) + "z") != bits(String(accented.dropLast()) + "\u{e9}"))
        let long = PassphraseAssessment(passphrase: SecureBytes(utf8: weakStart + strongTail), parameters: .default)
        #expect(long.verdict == .tooWeak)
        #expect(long.explanation.contains("for its first 40 characters (later ones are not counted)"))
        let exact = PassphraseAssessment(passphrase: SecureBytes(utf8: weakStart), parameters: .default)
        #expect(!exact.judgedPrefixOnly)
        #expect(!exact.explanation.contains("first 40"))
    }

    @Test("guesses per second = 3.35e12 / (3 x memlimit x opslimit), capped at 10^9")
    func attackRate() throws {
        #expect(abs(OfflineAttackModel.guessesPerSecond(.default) - 3.35e12 / (3 * 67_108_864 * 3)) < 1e-9)
        #expect(ApproximateWording.number(OfflineAttackModel.guessesPerSecond(.default)) == "5,500")
        #expect(ApproximateWording.number(OfflineAttackModel.guessesPerSecond(.sensitive)) == "260")
        let cheapest = try KDFParameters(opslimit: 1, memlimit: 8192)
        #expect(abs(OfflineAttackModel.guessesPerSecond(cheapest) - 3.35e12 / 24_576) < 1e-6)
        #expect(OfflineAttackModel.guessesPerSecond(opslimit: 1, memlimit: 1024) == 1e9)
        #expect(OfflineAttackModel.guessesPerSecond(opslimit: 1, memlimit: 1116) == 1e9)
        #expect(OfflineAttackModel.guessesPerSecond(opslimit: 1, memlimit: 1117) < 1e9)
        #expect(OfflineAttackModel.guessesPerSecond(opslimit: 0, memlimit: 0) == 1e9)
    }

    @Test("Tr0ub4dor&3 holds about 670 years at the default settings and about 10 days at the cheapest")
    func troubadour() throws {
        let passphrase = SecureBytes(utf8: "Tr0ub4dor&3")
        let atDefault = PassphraseAssessment(passphrase: passphrase, parameters: .default)
        #expect(atDefault.verdict == .strong)
        #expect(ApproximateWording.duration(seconds: atDefault.secondsToExhaust) == "about 670 years")
        #expect(atDefault.explanation.contains("46.7 bits"))
        #expect(atDefault.explanation.contains("3 passes over 64 MiB"))
        #expect(atDefault.explanation.contains("about 5,500 guesses per second"))
        let cheapest = PassphraseAssessment(
            passphrase: passphrase, parameters: try KDFParameters(opslimit: 1, memlimit: 8192))
        #expect(cheapest.verdict == .tooWeak)
        #expect(cheapest.explanation.contains("1 pass over 8 KiB"))
        #expect(cheapest.explanation.hasSuffix("about 10 days to try them all"), "\(cheapest.explanation)")
    }

    @Test("under a year is too weak, one to a hundred years weak, a century or more strong")
    func verdictThresholds() {
        let rate = OfflineAttackModel.guessesPerSecond(.default)
        func verdict(years: Double) -> PassphraseAssessment.Verdict {
            let bits = log2(years * OfflineAttackModel.secondsPerYear * rate)
            return PassphraseAssessment(estimatedBits: bits, parameters: .default).verdict
        }
        #expect(verdict(years: 0.999) == .tooWeak)
        #expect(verdict(years: 1.001) == .weak)
        #expect(verdict(years: 99.9) == .weak)
        #expect(verdict(years: 100.1) == .strong)
        #expect(PassphraseAssessment(estimatedBits: .nan, parameters: .default).verdict == .tooWeak)
        for (passphrase, expected) in [
            ("a", PassphraseAssessment.Verdict.tooWeak), ("password", .tooWeak), ("hunter2hunter2", .tooWeak),
            ("keyring-pass", .tooWeak), ("purple-monkey-dish", .weak), ("correct horse battery staple", .strong),
        ] {
            let judged = PassphraseAssessment(passphrase: SecureBytes(utf8: passphrase), parameters: .default)
            #expect(judged.verdict == expected, "\(passphrase): \(judged.explanation)")
        }
    }

    @Test("durations, numbers and sizes in words")
    func wording() {
        let year = OfflineAttackModel.secondsPerYear
        let cases: [(Double, String)] = [
            (0.2, "less than a second"), (1, "about 1 second"), (42, "about 42 seconds"), (90, "about 2 minutes"),
            (3 * 3_600 + 600, "about 3 hours"), (86_400, "about 1 day"), (200 * 86_400, "about 200 days"),
            (1.4 * year, "about 1 year"), (669.6 * year, "about 670 years"), (40_123 * year, "about 40,000 years"),
            (3.42e6 * year, "about 3.4 million years"), (2e9 * year, "about 2 billion years"),
            (5.5e12 * year, "about 5.5 trillion years"), (4.7e23 * year, "about 4.7 × 10^23 years"),
            (.infinity, "longer than can be counted"), (.nan, "an unknown time"),
        ]
        for (seconds, words) in cases {
            #expect(ApproximateWording.duration(seconds: seconds) == words, "\(seconds) s")
        }
        #expect(ApproximateWording.number(5_546.3) == "5,500")
        #expect(ApproximateWording.number(1.363e8) == "140,000,000")
        #expect(ApproximateWording.number(1e9) == "1,000,000,000")
        #expect(ApproximateWording.number(9.96) == "10")
        #expect(ApproximateWording.number(0.26) == "0.26")
        #expect(ApproximateWording.bytes(8_192) == "8 KiB")
        #expect(ApproximateWording.bytes(64 << 20) == "64 MiB")
        #expect(ApproximateWording.bytes(1 << 30) == "1 GiB")
        #expect(ApproximateWording.bytes(1_536) == "1.5 KiB")
        #expect(ApproximateWording.bytes(100) == "100 bytes")
    }
}
