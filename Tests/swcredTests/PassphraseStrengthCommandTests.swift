import Foundation
import Testing

@testable import TestSupport

/// `init` and `passwd` judge a new passphrase with its Argon2id settings; `status` shows the
/// modelled attack rate; unlocking never judges.
@Suite("swcred passphrase strength")
struct PassphraseStrengthCommandTests {
    static let cheapestKDF = ["--kdf-opslimit", "1", "--kdf-memlimit", "8192"]

    private func initVault(
        _ path: String, _ passphrase: String, _ arguments: [String] = []
    ) throws
        -> SwcredProcess.Result
    {
        try SwcredProcess.run(["init", "--vault", path] + arguments, environment: ["SWCRED_PASSPHRASE": passphrase])
    }

    private func unlocks(_ path: String, with passphrase: String) throws -> Bool {
        let result = try SwcredProcess.run(
            ["status", "--verify", "--vault", path], environment: ["SWCRED_PASSPHRASE": passphrase])
        return result.status == 0
    }

    @Test(
        "init refuses guessable passphrases at the default settings: exit 2, no file, the figures and what to do",
        arguments: ["a", "password", "hunter2hunter2", "keyring-pass"])
    func refusesWeak(passphrase: String) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.sqlite")
        let result = try initVault(path, passphrase)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).isEmpty)
        #expect(result.stderr.contains("under a year"))
        #expect(result.stderr.contains("bits") && result.stderr.contains("about 5,500 guesses per second"))
        #expect(result.stderr.contains("swcred generate --style passphrase"))
        #expect(result.stderr.contains("--kdf") && result.stderr.contains("--allow-weak-passphrase"))
        #expect(result.stderr.contains("no vault was created"))
        #expect(!result.stderr.contains(passphrase == "a" ? "\"a\"" : passphrase), "the passphrase is never echoed")
        #expect(result.stderr.components(separatedBy: "error:").count == 2, "one error, once")
    }

    @Test("init accepts correct horse battery staple and six generated EFF words without a warning")
    func acceptsStrong() throws {
        let directory = try TemporaryDirectory()
        let generated = try SwcredProcess.run(["generate", "--style", "passphrase"])
        #expect(generated.status == 0)
        let words = generated.stdout.trimmingCharacters(in: .newlines)
        for (name, passphrase) in [("staple", "correct horse battery staple"), ("eff", words)] {
            let path = directory.path("\(name).sqlite")
            let result = try initVault(path, passphrase)
            #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
            #expect(try unlocks(path, with: passphrase))
        }
    }

    @Test("--allow-weak-passphrase accepts \"a\" with a warning; unlocking it later judges nothing")
    func allowWeak() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.sqlite")
        let result = try initVault(path, "a", ["--allow-weak-passphrase"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("warning:") && result.stderr.contains("under a year"))
        #expect(result.stderr.contains("--allow-weak-passphrase"))
        let unlocked = try SwcredProcess.run(
            ["status", "--verify", "--vault", path], environment: ["SWCRED_PASSPHRASE": "a"])
        #expect(unlocked.status == 0 && unlocked.stderr.isEmpty, "\(unlocked.stderr)")
    }

    @Test("Tr0ub4dor&3: accepted at the default settings, refused at the cheapest (about 10 days)")
    func settingsCount() throws {
        let directory = try TemporaryDirectory()
        let accepted = try initVault(directory.path("default.sqlite"), "Tr0ub4dor&3")
        #expect(accepted.status == 0 && accepted.stderr.isEmpty, "\(accepted.stderr)")
        let cheap = directory.path("cheap.sqlite")
        let refused = try initVault(cheap, "Tr0ub4dor&3", Self.cheapestKDF)
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("46.7 bits") && refused.stderr.contains("about 10 days"), "\(refused.stderr)")
        #expect(refused.stderr.contains("140,000,000 guesses per second"))
        #expect(!FileManager.default.fileExists(atPath: cheap))
    }

    @Test("one to a hundred years off a terminal: a warning, and the vault is made")
    func weakOffTerminal() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.sqlite")
        let result = try initVault(path, "purple-monkey-dish")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("warning:") && result.stderr.contains("less than 100 years"))
        #expect(result.stderr.contains("about 4 years"), "\(result.stderr)")
    }

    @Test("passwd to a refused passphrase exits 2 and the old one still unlocks; to a good one only the new one")
    func passwd() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.sqlite")
        let old = "correct horse battery staple"
        #expect(try initVault(path, old, Self.cheapestKDF).status == 0)
        let refused = try SwcredProcess.run(
            ["passwd", "--vault", path],
            environment: ["SWCRED_PASSPHRASE": old, "SWCRED_NEW_PASSPHRASE": "hunter2hunter2"])
        #expect(refused.status == 2 && refused.stderr.contains("the passphrase was not changed"), "\(refused.stderr)")
        #expect(try unlocks(path, with: old))
        #expect(try !unlocks(path, with: "hunter2hunter2"))

        let new = "a second correct horse battery staple"
        let changed = try SwcredProcess.run(
            ["passwd", "--vault", path], environment: ["SWCRED_PASSPHRASE": old, "SWCRED_NEW_PASSPHRASE": new])
        #expect(changed.status == 0 && changed.stderr.isEmpty, "\(changed.stderr)")
        #expect(try unlocks(path, with: new))
        #expect(try !unlocks(path, with: old))
    }

    @Test("passwd judges the new passphrase with the new --kdf settings, else the vault's own")
    func passwdSettings() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.sqlite")
        #expect(try initVault(path, "Tr0ub4dor&3").status == 0)
        let environment = ["SWCRED_PASSPHRASE": "Tr0ub4dor&3", "SWCRED_NEW_PASSPHRASE": "Tr0ub4dor&3!"]
        let weakened = try SwcredProcess.run(["passwd", "--vault", path] + Self.cheapestKDF, environment: environment)
        #expect(weakened.status == 2 && weakened.stderr.contains("1 pass over 8 KiB"), "\(weakened.stderr)")
        let status = try SwcredProcess.run(["status", "--vault", path])
        #expect(status.stdout.contains("opslimit 3, memlimit 65536 KiB"))
        #expect(try unlocks(path, with: "Tr0ub4dor&3"))
        let kept = try SwcredProcess.run(["passwd", "--vault", path], environment: environment)
        #expect(kept.status == 0 && kept.stderr.isEmpty, "\(kept.stderr)")
        #expect(try unlocks(path, with: "Tr0ub4dor&3!"))
    }

    @Test("key files are not judged: --allow-weak-passphrase with --key-file is a usage error")
    func keyFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.sqlite")
        let key = directory.path("vault.key")
        let flagged = try SwcredProcess.run(["init", "--vault", path, "--key-file", key, "--allow-weak-passphrase"])
        #expect(flagged.status == 2 && flagged.stderr.contains("a key file is not judged"), "\(flagged.stderr)")
        #expect(!FileManager.default.fileExists(atPath: path))
        let created = try SwcredProcess.run(["init", "--vault", path, "--key-file", key])
        #expect(created.status == 0 && created.stderr.isEmpty, "\(created.stderr)")
    }

    @Test("status shows the KDF settings and the modelled guesses per second")
    func status() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.sqlite")
        #expect(try initVault(path, "correct horse battery staple", Self.cheapestKDF).status == 0)
        let text = try SwcredProcess.run(["status", "--vault", path])
        #expect(text.stdout.contains("opslimit 1, memlimit 8 KiB"), "\(text.stdout)")
        #expect(text.stdout.contains("offline rate: about 140,000,000 guesses per second"), "\(text.stdout)")
        let json = try SwcredProcess.run(["status", "--json", "--vault", path])
        let object = try #require(try JSONSerialization.jsonObject(with: json.stdoutData) as? [String: Any])
        let kdf = try #require(object["kdf"] as? [String: Any])
        let rate = try #require(kdf["guesses_per_second"] as? Double)
        #expect(abs(rate - 3.35e12 / (3 * 8192)) < 1)
    }

    @Test("--help states the attack model")
    func help() throws {
        for command in ["init", "passwd"] {
            let help = try SwcredProcess.run([command, "--help"]).stdout
            #expect(help.contains("3.35e12") && help.contains("10^9"), "\(help)")
            #expect(help.contains("--allow-weak-passphrase"))
        }
    }
}
