import Foundation
import Testing

@testable import TestSupport

/// Where `swcred` looks for the vault when no `--vault` or `SWCRED_VAULT` says: an absolute
/// `XDG_DATA_HOME`, else `HOME`. A relative `XDG_DATA_HOME` is ignored (the XDG specification);
/// a `HOME` that is empty or relative is refused, named, rather than a vault made relative to
/// wherever the command happens to run.
@Suite("swcred: the vault's default place")
struct VaultLocationTests {
    private static let fastKDF = ["--kdf-opslimit", "1", "--kdf-memlimit", "8192"]
    private static let passphrase = ["SWCRED_PASSPHRASE": "vault location test passphrase"]

    @Test("an absolute HOME holds the vault; a relative XDG_DATA_HOME is passed over for it")
    func homeHoldsTheVault() throws {
        let directory = try TemporaryDirectory()
        let made = try SwcredProcess.run(
            ["init"] + Self.fastKDF,
            environment: Self.passphrase.merging(["HOME": directory.path("home"), "XDG_DATA_HOME": "xdg"]) { $1 },
            currentDirectory: directory.path(""))
        #expect(made.status == 0, "\(made.stderr)")
        #expect(FileManager.default.fileExists(atPath: directory.path("home/.local/share/swcred/vault.sqlite")))
        #expect(!FileManager.default.fileExists(atPath: directory.path("xdg")))
    }

    @Test("a HOME that is empty or relative is refused, named, and nothing is made", arguments: ["", "relative/home"])
    func unusableHome(home: String) throws {
        let directory = try TemporaryDirectory()
        let refused = try SwcredProcess.run(
            ["init"] + Self.fastKDF,
            environment: Self.passphrase.merging(["HOME": home, "XDG_DATA_HOME": "xdg"]) { $1 },
            currentDirectory: directory.path(""))
        let problem = home.isEmpty ? "HOME is empty" : "HOME (\(home)) is not an absolute path"
        #expect(refused.status == 2, "\(refused.stderr)")
        #expect(
            refused.stderr.contains(
                "\(problem): pass --vault PATH or set SWCRED_VAULT to choose the vault file."), "\(refused.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path("")).isEmpty)
    }
}
