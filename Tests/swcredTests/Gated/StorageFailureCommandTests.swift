import Foundation
import TestSupport
import Testing

/// `swcred add` on a vault whose file system is read-only or full: exit 13 (storage failure), a
/// message that says what to do, and every earlier credential still there afterwards.
@Suite("swcred on a read-only or full file system")
struct StorageFailureCommandTests {
    static let app = GatedFixture.app
    static let target = ["--app", GatedFixture.app, "--domain", "shop.example"]

    /// Runs the binary on the vault copy at `path`, with the fixture's passphrase (and network
    /// arguments, for the gated commands).
    private func run(
        _ fixture: GatedFixture, vault path: String, _ arguments: [String], stdin: String? = nil, network: Bool = true
    ) throws -> SwcredProcess.Result {
        try SwcredProcess.run(
            arguments + (network ? fixture.networkArguments : []),
            environment: ["SWCRED_VAULT": path, "SWCRED_PASSPHRASE": fixture.passphrase],
            stdin: stdin.map { Data($0.utf8) })
    }

    /// Adds alice in the fixture's vault, and copies that vault onto `filesystem`.
    private func seed(_ fixture: GatedFixture, onto filesystem: ScratchFilesystem) throws -> String {
        try fixture.expect(
            ["add"] + Self.target + ["--account", "alice", "--password-stdin", "--yes"], status: 0,
            stdin: "alice-first-pw", network: true)
        let path = filesystem.path("vault.sqlite")
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: fixture.vaultPath + suffix) {
            try FileManager.default.copyItem(atPath: fixture.vaultPath + suffix, toPath: path + suffix)
        }
        return path
    }

    /// Fails unless the vault at `path` releases alice's password and nothing for bob.
    private func expectOnlyAlice(_ fixture: GatedFixture, vault path: String) throws {
        let released = try run(fixture, vault: path, ["request"] + Self.target + ["--all"])
        #expect(released.status == 0, "\(released.stderr)")
        #expect(released.stdout == "shop.example\talice\talice-first-pw\n")
        let status = try run(fixture, vault: path, ["status", "--verify"], network: false)
        #expect(status.status == 0 && status.stdout.contains("damaged:      0"), "\(status.stdout) \(status.stderr)")
    }

    @Test(
        "add on a read-only file system exits 13 and says to make it writable; nothing changes",
        .enabled(if: ScratchFilesystem.isAvailable, "needs the right to mount a tmpfs"))
    func readOnlyFilesystem() async throws {
        try await GatedFixture.with { fixture in
            let filesystem = try ScratchFilesystem(kibibytes: 4096)
            let path = try seed(fixture, onto: filesystem)
            try filesystem.remount(readOnly: true)
            let refused = try run(
                fixture, vault: path, ["add"] + Self.target + ["--account", "bob", "--password-stdin", "--yes"],
                stdin: "bob-secret-pw")
            #expect(refused.status == 13, "\(refused.stderr)")
            #expect(refused.stderr.contains("read-only") && refused.stderr.contains("make it writable"))
            #expect(refused.stderr.contains("vault storage cannot be written"), "\(refused.stderr)")
            #expect(!refused.stderr.contains("bob-secret-pw"))
            try filesystem.remount(readOnly: false)
            try expectOnlyAlice(fixture, vault: path)
        }
    }

    @Test(
        "add on a full disk exits 13 and says to free space; nothing is half-written",
        .enabled(if: ScratchFilesystem.isAvailable, "needs the right to mount a tmpfs"))
    func fullDisk() async throws {
        try await GatedFixture.with { fixture in
            let filesystem = try ScratchFilesystem(kibibytes: 4096)
            let path = try seed(fixture, onto: filesystem)
            let filler = filesystem.fill()
            let refused = try run(
                fixture, vault: path, ["add"] + Self.target + ["--account", "bob", "--password-stdin", "--yes"],
                stdin: "bob-secret-pw")
            #expect(refused.status == 13, "\(refused.stderr)")
            #expect(refused.stderr.contains("full: free some space"), "\(refused.stderr)")
            #expect(!refused.stderr.contains("bob-secret-pw"))
            try FileManager.default.removeItem(atPath: filler)
            try expectOnlyAlice(fixture, vault: path)
        }
    }
}
