import Foundation
import TestSupport
import Testing

@testable import SharedWebCredentials

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 11, finding 8: secret files others can read, and vault files and directories others can
/// write, are refused with the `chmod` to run (exit 2); new directories are made 0700 at once;
/// the created vault file is the one SQLite opens.
@Suite("Vault file permissions")
struct FilePermissionTests {
    typealias Support = VaultTestSupport

    private func chmod(_ path: String, _ mode: mode_t) {
        #expect(Glibc.chmod(path, mode) == 0)
    }

    private func mode(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    @Test("a key file of mode 0644 is refused with the chmod to run; 0600 and 0400 are accepted")
    func keyFileReadableByOthers() throws {
        let directory = try TemporaryDirectory()
        let keyPath = directory.path("vault.key")
        let vaultPath = directory.path("vault.sqlite")
        _ = try Vault.create(at: vaultPath, protection: .newKeyFile(path: keyPath))
        chmod(keyPath, 0o644)
        let error = failure { _ = try KeyFile.read(at: keyPath) }
        #expect(error?.code == .invalidInput)
        #expect(error?.message.contains("chmod 600 \(keyPath)") == true, "\(String(describing: error))")
        let command = try SwcredProcess.run(["status", "--verify", "--vault", vaultPath, "--key-file", keyPath])
        #expect(command.status == 2 && command.stderr.contains("chmod 600"), "\(command.stderr)")
        chmod(keyPath, 0o400)
        #expect(try KeyFile.read(at: keyPath).count == KeyFile.length)
    }

    @Test("each read bit for group or others alone refuses a key file; write and execute bits are not reading")
    func keyFileModesOneBitAtATime() throws {
        let directory = try TemporaryDirectory()
        let keyPath = directory.path("vault.key")
        _ = try Vault.create(at: directory.path("vault.sqlite"), protection: .newKeyFile(path: keyPath))
        for mode: mode_t in [0o640, 0o604, 0o644, 0o660, 0o606] {
            chmod(keyPath, mode)
            #expect(
                failure { _ = try KeyFile.read(at: keyPath) }?.code == .invalidInput, "mode 0\(String(mode, radix: 8))")
        }
        for mode: mode_t in [0o600, 0o400, 0o610, 0o620, 0o601, 0o602] {
            chmod(keyPath, mode)
            #expect(failure { _ = try KeyFile.read(at: keyPath) } == nil, "mode 0\(String(mode, radix: 8))")
        }
    }

    @Test("a passphrase file of mode 0666 is refused; a pipe is not a file and is accepted")
    func passphraseFileReadableByOthers() throws {
        let directory = try TemporaryDirectory()
        let vault = try Support.makeVault(in: directory)
        let file = directory.path("pass phrase.txt")
        try Support.passphrase.write(toFile: file, atomically: false, encoding: .utf8)
        chmod(file, 0o666)
        let command = try SwcredProcess.run(["status", "--verify", "--vault", vault.path, "--passphrase-file", file])
        #expect(command.status == 2, "\(command.stderr)")
        #expect(command.stderr.contains("chmod 600 '\(file)'"), "\(command.stderr)")
        chmod(file, 0o600)
        #expect(
            try SwcredProcess.run(["status", "--verify", "--vault", vault.path, "--passphrase-file", file]).status == 0)
        let piped = try SwcredProcess.run(
            ["status", "--verify", "--vault", vault.path, "--passphrase-file", "/dev/stdin"],
            stdin: Data(Support.passphrase.utf8))
        #expect(piped.status == 0, "\(piped.stderr)")
    }

    @Test("a vault file, or its directory, writable by group or others is refused with the chmod to run")
    func vaultWritableByOthers() throws {
        let directory = try TemporaryDirectory()
        let path = try Support.makeVault(in: directory).path
        chmod(path, 0o664)
        var error = failure { _ = try Support.open(path) }
        #expect(error?.code == .invalidInput)
        #expect(error?.message.contains("chmod 600 \(path)") == true, "\(String(describing: error))")
        let command = try SwcredProcess.run(["status", "--vault", path])
        #expect(command.status == 2 && command.stderr.contains("chmod 600"), "\(command.stderr)")
        chmod(path, 0o600)
        chmod(directory.url.path, 0o777)
        error = failure { _ = try Support.open(path) }
        #expect(error?.code == .invalidInput)
        #expect(error?.message.contains("chmod 700 \(directory.url.path)") == true, "\(String(describing: error))")
        let initInside = try SwcredProcess.run(
            ["init", "--vault", directory.path("second.sqlite"), "--kdf-opslimit", "1", "--kdf-memlimit", "8192"],
            environment: ["SWCRED_PASSPHRASE": "test passphrase: violet kernel umbrella frost 93"])
        #expect(initInside.status == 2 && initInside.stderr.contains("chmod 700"), "\(initInside.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.path("second.sqlite")))
        chmod(directory.url.path, 0o700)
        _ = try Support.open(path)
    }

    @Test("under umask 000, init makes every missing directory 0700 and the vault 0600")
    func directoriesCreatedPrivate() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("a/b/c/vault.sqlite")
        let shell = try SwcredProcess.run(
            [
                "-c", #"umask 000 && exec "$0" init --vault "$1" --kdf-opslimit 1 --kdf-memlimit 8192"#,
                SwcredProcess.executableURL.path, path,
            ],
            environment: ["SWCRED_PASSPHRASE": "test passphrase: violet kernel umbrella frost 93"],
            executable: URL(fileURLWithPath: "/bin/sh"))
        #expect(shell.status == 0, "\(shell.stderr)")
        for created in ["a", "a/b", "a/b/c"] {
            #expect(try mode(directory.path(created)) == 0o700, "\(created)")
        }
        #expect(try mode(path) == 0o600)
    }

    @Test("a vault file replaced between its creation and SQLite's open is detected")
    func replacedAfterCreation() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.sqlite")
        let created = try VaultFiles.createVaultFile(path: path)
        try created.requireSameFile(path: path)
        // Moved away rather than deleted, so that the new file cannot reuse its inode number.
        #expect(rename(path, path + ".moved") == 0)
        #expect(FileManager.default.createFile(atPath: path, contents: Data(), attributes: [.posixPermissions: 0o600]))
        #expect(failure { try created.requireSameFile(path: path) }?.code == .integrityFailure)
    }
}
