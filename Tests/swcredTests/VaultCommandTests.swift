import Foundation
import Testing

@testable import TestSupport

/// The vault commands of the `swcred` binary: init, passwd, rekey, status, and their bad inputs.
@Suite("swcred vault commands")
struct VaultCommandTests {
    private static let fastKDF = ["--kdf-opslimit", "1", "--kdf-memlimit", "8192"]
    private static let passphrase = ["SWCRED_PASSPHRASE": "vault commands test passphrase"]

    /// Writes a secret file readable by its owner only, as swcred requires of passphrase and key files.
    private func writePrivate(_ data: Data, to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: data, attributes: [.posixPermissions: 0o600])
        else { throw CocoaError(.fileWriteUnknown) }
    }

    private func initVault(_ path: String) throws {
        let result = try SwcredProcess.run(["init", "--vault", path] + Self.fastKDF, environment: Self.passphrase)
        #expect(result.status == 0, "\(result.stderr)")
    }

    @Test("init creates a 0600 vault in a 0700 directory; status describes it without a passphrase")
    func initAndStatus() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("data/swcred/vault.sqlite")
        try initVault(path)
        let fileMode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        let directoryMode =
            try FileManager.default.attributesOfItem(atPath: directory.path("data/swcred"))[
                .posixPermissions] as? Int
        #expect(fileMode == 0o600 && directoryMode == 0o700)
        let status = try SwcredProcess.run(["status", "--json", "--vault", path])
        #expect(status.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: status.stdoutData) as? [String: Any])
        #expect(json["format_version"] as? Int == 3)
        #expect(json["protection"] as? String == "passphrase")
        #expect(json["credentials"] as? Int == 0)
        #expect(json["path"] as? String == path)
        let kdf = try #require(json["kdf"] as? [String: Any])
        #expect(kdf["opslimit"] as? Int == 1 && kdf["memlimit"] as? Int == 8192)
        #expect(kdf["algorithm"] as? String == "argon2id13")
    }

    @Test("the default vault path follows SWCRED_VAULT, then XDG_DATA_HOME")
    func defaultPaths() throws {
        let directory = try TemporaryDirectory()
        let xdg = try SwcredProcess.run(
            ["init"] + Self.fastKDF,
            environment: Self.passphrase.merging(["XDG_DATA_HOME": directory.path("xdg")]) { $1 })
        #expect(xdg.status == 0)
        #expect(FileManager.default.fileExists(atPath: directory.path("xdg/swcred/vault.sqlite")))
        let explicit = try SwcredProcess.run(
            ["init"] + Self.fastKDF,
            environment: Self.passphrase.merging(["SWCRED_VAULT": directory.path("env.sqlite")]) { $1 })
        #expect(explicit.status == 0 && explicit.stdout.contains(directory.path("env.sqlite")))
    }

    @Test("the default KDF is Argon2id with opslimit 3 and 64 MiB; presets are accepted")
    func kdfPresets() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("default.sqlite")
        #expect(try SwcredProcess.run(["init", "--vault", path], environment: Self.passphrase).status == 0)
        let status = try SwcredProcess.run(["status", "--vault", path])
        #expect(status.stdout.contains("argon2id opslimit 3, memlimit 65536 KiB"))
        let interactive = directory.path("interactive.sqlite")
        let result = try SwcredProcess.run(
            ["init", "--vault", interactive, "--kdf", "interactive"], environment: Self.passphrase)
        #expect(result.status == 0)
        #expect(try SwcredProcess.run(["status", "--vault", interactive]).stdout.contains("opslimit 2"))
    }

    @Test("a key-file vault: init makes the key, commands unlock with --key-file, a passphrase is refused")
    func keyFileVault() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.sqlite")
        let key = directory.path("vault.key")
        let created = try SwcredProcess.run(["init", "--vault", path, "--key-file", key])
        #expect(created.status == 0, "\(created.stderr)")
        #expect(try FileManager.default.attributesOfItem(atPath: key)[.posixPermissions] as? Int == 0o600)
        #expect(try SwcredProcess.run(["rekey", "--vault", path, "--key-file", key]).status == 0)
        let verified = try SwcredProcess.run(["status", "--verify", "--vault", path, "--key-file", key])
        #expect(verified.status == 0 && verified.stdout.contains("key file"))
        let withPassphrase = try SwcredProcess.run(
            ["status", "--verify", "--vault", path], environment: Self.passphrase)
        #expect(withPassphrase.status == 7 && withPassphrase.stderr.contains("--key-file"))
        let passwd = try SwcredProcess.run(
            ["passwd", "--vault", path, "--key-file", key], environment: ["SWCRED_NEW_PASSPHRASE": "x"])
        #expect(passwd.status == 2)
    }

    @Test("no vault: exit 8 before any passphrase is asked for")
    func missingVault() throws {
        let directory = try TemporaryDirectory()
        for command in [["status"], ["status", "--verify"], ["rekey"], ["passwd"]] {
            let result = try SwcredProcess.run(command + ["--vault", directory.path("absent.sqlite")])
            #expect(result.status == 8, "\(command)")
            #expect(result.stderr.contains("No vault at") && result.stderr.contains("swcred init"))
        }
    }

    @Test("init refuses to overwrite a vault, any file, or a key file: exit 8, nothing touched")
    func initRefusesToOverwrite() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.sqlite")
        try initVault(path)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let again = try SwcredProcess.run(["init", "--vault", path] + Self.fastKDF, environment: Self.passphrase)
        #expect(again.status == 8 && again.stderr.contains("never overwrites"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)

        let key = directory.path("existing.key")
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: key))
        let keyClash = try SwcredProcess.run(["init", "--vault", directory.path("new.sqlite"), "--key-file", key])
        #expect(keyClash.status == 8 && keyClash.stderr.contains("never overwritten"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: key)) == Data("keep me".utf8))
        #expect(!FileManager.default.fileExists(atPath: directory.path("new.sqlite")))
    }

    @Test("bad arguments exit 2 with a message naming the problem")
    func badArguments() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.sqlite")
        let badPreset = try SwcredProcess.run(["init", "--vault", path, "--kdf", "fast"], environment: Self.passphrase)
        #expect(badPreset.status == 2 && badPreset.stderr.contains("interactive"))
        let badOps = try SwcredProcess.run(
            ["init", "--vault", path, "--kdf-opslimit", "0"], environment: Self.passphrase)
        #expect(badOps.status == 2 && badOps.stderr.contains("opslimit"))
        let badMemory = try SwcredProcess.run(
            ["init", "--vault", path, "--kdf-opslimit", "1", "--kdf-memlimit", "100"], environment: Self.passphrase)
        #expect(badMemory.status == 2 && badMemory.stderr.contains("memlimit"))
        let both = try SwcredProcess.run(
            ["init", "--vault", path, "--passphrase-file", "a", "--key-file", "b"])
        #expect(both.status == 2 && both.stderr.contains("not both"))
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("passphrase files: unreadable exits 2, empty is refused, one trailing newline is ignored")
    func passphraseFiles() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.sqlite")
        let unreadable = try SwcredProcess.run(
            ["init", "--vault", path, "--passphrase-file", directory.path("missing.txt")] + Self.fastKDF)
        #expect(unreadable.status == 2 && unreadable.stderr.contains("Cannot read the passphrase file"))
        let empty = directory.path("empty.txt")
        try writePrivate(Data(), to: empty)
        let emptyInit = try SwcredProcess.run(["init", "--vault", path, "--passphrase-file", empty] + Self.fastKDF)
        #expect(emptyInit.status == 2 && emptyInit.stderr.contains("empty"))
        #expect(!FileManager.default.fileExists(atPath: path))

        let file = directory.path("pass.txt")
        try writePrivate(Data("a passphrase read from a file\n".utf8), to: file)
        #expect(try SwcredProcess.run(["init", "--vault", path, "--passphrase-file", file] + Self.fastKDF).status == 0)
        let unlocked = try SwcredProcess.run(
            ["status", "--verify", "--vault", path], environment: ["SWCRED_PASSPHRASE": "a passphrase read from a file"]
        )
        #expect(unlocked.status == 0)
        let emptyUnlock = try SwcredProcess.run(["rekey", "--vault", path, "--passphrase-file", empty])
        #expect(emptyUnlock.status == 7 && emptyUnlock.stderr.contains("empty"))
    }

    @Test("no passphrase and no terminal: exit 7 saying how to supply one")
    func noPassphraseOffTerminal() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.sqlite")
        let initResult = try SwcredProcess.run(["init", "--vault", path] + Self.fastKDF)
        #expect(initResult.status == 7)
        #expect(initResult.stderr.contains("SWCRED_PASSPHRASE") && initResult.stderr.contains("--passphrase-file"))
        try initVault(path)
        let rekey = try SwcredProcess.run(["rekey", "--vault", path])
        #expect(rekey.status == 7 && rekey.stderr.contains("SWCRED_PASSPHRASE"))
        let passwd = try SwcredProcess.run(["passwd", "--vault", path], environment: Self.passphrase)
        #expect(passwd.status == 7 && passwd.stderr.contains("SWCRED_NEW_PASSPHRASE"))
    }

    @Test("a key file of the wrong size exits 2")
    func wrongSizeKeyFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.sqlite")
        let key = directory.path("vault.key")
        #expect(try SwcredProcess.run(["init", "--vault", path, "--key-file", key]).status == 0)
        let short = directory.path("short.key")
        try writePrivate(Data(repeating: 7, count: 31), to: short)
        let result = try SwcredProcess.run(["rekey", "--vault", path, "--key-file", short])
        #expect(result.status == 2 && result.stderr.contains("exactly 32"))
        let wrongKey = directory.path("wrong.key")
        try writePrivate(Data(repeating: 7, count: 32), to: wrongKey)
        let wrong = try SwcredProcess.run(["rekey", "--vault", path, "--key-file", wrongKey])
        #expect(wrong.status == 7 && wrong.stderr.contains("Wrong key file"))
    }

    @Test("a copy of the binary elsewhere carries its schema: init and verify work with no Migrations folder")
    func binaryCarriesSchema() throws {
        let directory = try TemporaryDirectory()
        let copy = URL(fileURLWithPath: directory.path("swcred-copy"))
        try FileManager.default.copyItem(at: SwcredProcess.executableURL, to: copy)
        let path = directory.path("vault.sqlite")
        let created = try SwcredProcess.run(
            ["init", "--vault", path] + Self.fastKDF, environment: Self.passphrase, executable: copy)
        #expect(created.status == 0, "\(created.stderr)")
        let verified = try SwcredProcess.run(
            ["status", "--verify", "--vault", path], environment: Self.passphrase, executable: copy)
        #expect(verified.status == 0 && verified.stdout.contains("credentials:  0"))
    }

    @Test("--help of each vault command explains it")
    func help() throws {
        for (command, phrase) in [
            ("init", "never"), ("passwd", "SWCRED_NEW_PASSPHRASE"), ("rekey", "one transaction"),
            ("status", "--verify"),
        ] {
            let result = try SwcredProcess.run([command, "--help"])
            #expect(result.status == 0 && result.stdout.contains(phrase), "\(command)")
            #expect(result.stdout.contains("--vault"))
        }
    }
}
