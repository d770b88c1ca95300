import Foundation
import SharedWebCredentials
import Testing

@testable import TestSupport

/// Where `swcred` looks for the vault when no `--vault` or `SWCRED_VAULT` says: an absolute
/// `XDG_DATA_HOME`, else `HOME`. A relative `XDG_DATA_HOME` is ignored (the XDG specification);
/// a `HOME` that is unset, empty or relative is refused, named, rather than a vault made relative
/// to wherever the command happens to run.
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

    @Test("a relative HOME is refused, named, and no vault is made where the command runs")
    func relativeHome() throws {
        let directory = try TemporaryDirectory()
        let refused = try SwcredProcess.run(
            ["init"] + Self.fastKDF,
            environment: Self.passphrase.merging(["HOME": "relative/home", "XDG_DATA_HOME": "xdg"]) { $1 },
            currentDirectory: directory.path(""))
        #expect(refused.status == 2, "\(refused.stderr)")
        #expect(
            refused.stderr.contains(
                "HOME (relative/home) is not an absolute path: pass --vault PATH or set SWCRED_VAULT to choose the vault file."
            ), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.path("relative")))
        #expect(!FileManager.default.fileExists(atPath: directory.path("xdg")))
    }

    @Test(
        "a HOME unset, empty or relative is named as such",
        arguments: [
            (nil, "HOME is not set"), ("", "HOME is empty"), ("home", "HOME (home) is not an absolute path"),
        ] as [(String?, String)])
    func unusableHome(home: String?, problem: String) {
        var environment = ["XDG_DATA_HOME": "xdg"]
        environment["HOME"] = home
        let refusal = #expect(throws: SharedWebCredentialsError.self) {
            try VaultLocation.resolve(explicitPath: nil, environment: environment)
        }
        #expect(refusal?.code == .invalidInput)
        #expect(
            refusal?.message == "\(problem): pass --vault PATH or set SWCRED_VAULT to choose the vault file.",
            "\(String(describing: refusal))")
    }
}
