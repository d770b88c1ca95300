import Foundation
import Testing

@testable import TestSupport

/// `swcred import` and `swcred export` end to end: the built binary, a real vault file.
@Suite("swcred import and export")
struct TransferCommandTests {
    static let environment = ["SWCRED_PASSPHRASE": "transfer commands test passphrase"]
    static let passwords = ["Cmd-Pw-1,\"q\"", "Cmd-Pw-2", "Cmd-Pw-3", "Cmd-Pw-4"]
    static let chrome = #"""
        name,url,username,password,note
        one,https://one.example/,ann,"Cmd-Pw-1,""q""",first
        two,https://two.example:8443/x,ben,Cmd-Pw-2,
        three,http://three.example/,cat,Cmd-Pw-3,

        """#

    /// A fresh vault and a directory for files.
    struct Fixture {
        let directory: TemporaryDirectory
        let vault: String

        init() throws {
            directory = try TemporaryDirectory()
            vault = directory.path("vault.sqlite")
            let created = try SwcredProcess.run(
                ["init", "--vault", vault, "--kdf-opslimit", "1", "--kdf-memlimit", "8192"],
                environment: TransferCommandTests.environment)
            #expect(created.status == 0, "\(created.stderr)")
        }

        func run(_ arguments: [String]) throws -> SwcredProcess.Result {
            // Before a `--`, after which every word is an argument (a credential ID may start with -).
            var arguments = arguments
            arguments.insert(contentsOf: ["--vault", vault], at: arguments.firstIndex(of: "--") ?? arguments.endIndex)
            return try SwcredProcess.run(arguments, environment: TransferCommandTests.environment)
        }

        /// The vault's credentials through an Apple CSV export to standard output, sorted.
        func exportedLines() throws -> [String] {
            let exported = try run(["export", "--format", "apple-csv", "--output", "-", "--yes"])
            #expect(exported.status == 0, "\(exported.stderr)")
            return exported.stdout.components(separatedBy: "\r\n").sorted()
        }
    }

    @Test("import needs --yes off a terminal (exit 6, nothing written); with it, every row is saved and summarised")
    func importWithYes() throws {
        let fixture = try Fixture()
        let file = try fixture.directory.writePrivateFile("chrome.csv", Self.chrome)
        let refused = try fixture.run(["import", file])
        #expect(refused.status == 6 && refused.stderr.contains("--yes"))
        #expect(try fixture.run(["status"]).stdout.contains("credentials:  0"))

        let imported = try fixture.run(["import", file, "--yes", "--json"])
        #expect(imported.status == 0, "\(imported.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: imported.stdoutData) as? [String: Any])
        #expect(json["format"] as? String == "chrome-csv" && json["detected"] as? Bool == true)
        #expect(json["added"] as? Int == 3 && json["committed"] as? Bool == true)
        #expect(json["insecure"] as? [String] == ["row 4"])
        let lines = try fixture.exportedLines()
        #expect(lines.contains("two,https://two.example:8443/,ben,Cmd-Pw-2,,"))
        #expect(lines.contains("one,https://one.example/,ann,\"Cmd-Pw-1,\"\"q\"\"\",first,"))
        for result in [refused, imported] {
            for password in Self.passwords { #expect(!result.stderr.contains(password)) }
        }
    }

    @Test("--dry-run prints the counts and writes nothing")
    func dryRun() throws {
        let fixture = try Fixture()
        let file = try fixture.directory.writePrivateFile("chrome.csv", Self.chrome)
        let result = try fixture.run(["import", file, "--dry-run"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("added:      3") && result.stdout.contains("dry run: nothing was written"))
        #expect(try fixture.run(["status"]).stdout.contains("credentials:  0"))
    }

    @Test("a failed import leaves the vault as it was: status --verify clean, same count, same passwords")
    func failedImport() throws {
        let fixture = try Fixture()
        let good = try fixture.directory.writePrivateFile("chrome.csv", Self.chrome)
        #expect(try fixture.run(["import", good, "--yes"]).status == 0)
        let before = try fixture.exportedLines()
        let bad =
            Self.chrome.replacingOccurrences(of: "Cmd-Pw-1", with: "Changed-Pw-1")
            + "bad,https://dan:Url-Secret-9@bad host.example/?token=Url-Token-8,dan,Cmd-Pw-4,\n"
        let badFile = try fixture.directory.writePrivateFile("bad.csv", bad)
        let failed = try fixture.run(["import", badFile, "--yes", "--on-conflict", "replace"])
        #expect(failed.status == 2)
        #expect(failed.stderr.contains("row 5") && failed.stderr.contains("Nothing was imported"))
        #expect(!failed.stderr.contains("Cmd-Pw-4") && !failed.stderr.contains("Changed-Pw-1"))
        // The URL's user information and query are no part of the message: only its host.
        #expect(!failed.stderr.contains("Url-Secret-9") && !failed.stderr.contains("Url-Token-8"), "\(failed.stderr)")
        #expect(failed.stderr.components(separatedBy: "error:").count == 2, "one error, printed once")
        let verified = try fixture.run(["status", "--verify"])
        #expect(verified.status == 0 && verified.stdout.contains("damaged:      0"))
        #expect(try fixture.exportedLines() == before)

        let skipping = try fixture.run(["import", badFile, "--yes", "--on-conflict", "replace", "--skip-invalid"])
        #expect(skipping.status == 0)
        #expect(
            skipping.stdout.contains("skipped row 5: the URL for host \"bad host.example\" cannot be used"),
            "\(skipping.stdout)")
        #expect(!skipping.stdout.contains("Url-Secret-9") && !skipping.stdout.contains("Url-Token-8"))
        #expect(skipping.stdout.contains("updated:    1"))
    }

    @Test("an encrypted Bitwarden export is refused with exit 2 and what to do")
    func encryptedBitwarden() throws {
        let fixture = try Fixture()
        let file = try fixture.directory.writePrivateFile(
            "bw.json", "{\"encrypted\": true, \"passwordProtected\": true, \"data\": \"2.abc|def\"}")
        let refused = try fixture.run(["import", file, "--yes"])
        #expect(refused.status == 2 && refused.stderr.contains("encrypted Bitwarden export"))
    }

    @Test("export writes a new 0600 file, refuses to overwrite, needs --yes off a terminal, and names lost fields")
    func export() throws {
        let fixture = try Fixture()
        let file = try fixture.directory.writePrivateFile("chrome.csv", Self.chrome)
        #expect(try fixture.run(["import", file, "--yes"]).status == 0)
        let output = fixture.directory.path("out.csv")
        let unconfirmed = try fixture.run(["export", "--format", "chrome-csv", "--output", output])
        #expect(unconfirmed.status == 6 && !FileManager.default.fileExists(atPath: output))
        let exported = try fixture.run(["export", "--format", "chrome-csv", "--output", output, "--yes"])
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect(exported.stderr.contains("not encrypted") && exported.stderr.contains("one-time-password URIs"))
        let mode = try FileManager.default.attributesOfItem(atPath: output)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let written = try String(contentsOfFile: output, encoding: .utf8)
        #expect(written.hasPrefix("name,url,username,password,note\r\n") && written.contains("Cmd-Pw-2"))
        let again = try fixture.run(["export", "--format", "apple-csv", "--output", output, "--yes"])
        #expect(again.status == 2 && again.stderr.contains("never overwrites"))
        #expect(try String(contentsOfFile: output, encoding: .utf8) == written)
        for result in [unconfirmed, exported, again] {
            for password in Self.passwords { #expect(!result.stderr.contains(password)) }
        }
        // No file but the vault's own and the export (and the test's input) is left behind, and
        // the vault's files hold no password in clear.
        let names = try FileManager.default.contentsOfDirectory(atPath: fixture.directory.path("")).sorted()
        #expect(
            Set(names).isSubset(of: ["chrome.csv", "out.csv", "vault.sqlite", "vault.sqlite-wal", "vault.sqlite-shm"]))
        for name in names where name.hasPrefix("vault.sqlite") {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: fixture.directory.path(name)))
            for password in Self.passwords { #expect(bytes.range(of: Data(password.utf8)) == nil) }
        }
    }

    @Test("a large file shows a progress bar on a terminal, and none off one")
    func progressBar() throws {
        let fixture = try Fixture()
        var csv = "name,url,username,password,note\n"
        for index in 0..<12_000 {
            csv += "n\(index),https://host\(index).example/,user\(index),Bar-Pw-\(index),padding\n"
        }
        let file = try fixture.directory.writePrivateFile("large.csv", csv)
        let passphraseFile = try fixture.directory.writePrivateFile(
            "passphrase", Self.environment["SWCRED_PASSPHRASE"]!)
        let terminal = try TerminalSession(
            executable: SwcredProcess.executableURL.path,
            arguments: ["import", file, "--dry-run", "--vault", fixture.vault, "--passphrase-file", passphraseFile],
            environment: [:])
        #expect(try terminal.exitStatus() == 0)
        let screen = try terminal.screen()
        #expect(screen.contains("importing [\(String(repeating: "#", count: 30))] 100%"))
        #expect(screen.contains("added:      12000"))
        let piped = try fixture.run(["import", file, "--dry-run"])
        #expect(piped.status == 0 && !piped.stderr.contains("importing ["))
    }

    @Test("on a terminal, import shows the summary and imports after a yes; export asks before writing")
    func terminalConfirmation() throws {
        let fixture = try Fixture()
        let file = try fixture.directory.writePrivateFile("chrome.csv", Self.chrome)
        let passphraseFile = try fixture.directory.writePrivateFile(
            "passphrase", Self.environment["SWCRED_PASSPHRASE"]!)
        let terminal = try TerminalSession(
            executable: SwcredProcess.executableURL.path,
            arguments: ["import", file, "--vault", fixture.vault, "--passphrase-file", passphraseFile],
            environment: [:])
        let screen = try terminal.waitFor("Import into")
        #expect(screen.contains("added:      3") && screen.contains("http:"))
        try terminal.type("y", "Enter")
        #expect(try terminal.exitStatus() == 0)
        #expect(try fixture.run(["status"]).stdout.contains("credentials:  3"))

        let output = fixture.directory.path("out.json")
        let exporting = try TerminalSession(
            executable: SwcredProcess.executableURL.path,
            arguments: [
                "export", "--format", "cxf", "--output", output, "--vault", fixture.vault, "--passphrase-file",
                passphraseFile,
            ],
            environment: [:])
        try exporting.waitFor("Write 3 passwords unencrypted")
        try exporting.type("n", "Enter")
        #expect(try exporting.exitStatus() == 6)
        #expect(!FileManager.default.fileExists(atPath: output))

        let toTerminal = try TerminalSession(
            executable: SwcredProcess.executableURL.path,
            arguments: [
                "export", "--format", "apple-csv", "--output", "-", "--yes", "--vault", fixture.vault,
                "--passphrase-file", passphraseFile,
            ],
            environment: [:])
        #expect(try toTerminal.exitStatus() == 2)
        let refusal = try toTerminal.screen()
        #expect(refusal.contains("would print every password on the terminal") && !refusal.contains("Cmd-Pw-2"))
    }
}

/// Passkeys through `swcred import` and `swcred export` (issue 26), with keys written by
/// Tests/Passkeys/cxf_passkeys.py (pyca/cryptography's PKCS#8).
extension TransferCommandTests {
    /// A CXF document holding passkeys of `kinds`, and their credential IDs, from the Python tool.
    static func foreignPasskeys(_ kinds: [String]) throws -> (document: Data, ids: [String]) {
        let answer = try PasskeyTools.run(
            "cxf_passkeys.py", input: ["rp_id": "login.example.com", "passkeys": kinds])
        let ids = try #require(answer["passkeys"] as? [[String: Any]]).compactMap { $0["credential_id"] as? String }
        return (try JSONSerialization.data(withJSONObject: try #require(answer["cxf"])), ids)
    }

    @Test(
        "passkeys: imported from CXF (an RSA one listed, not kept), exported only as CXF, and imported again elsewhere")
    func passkeysThroughCXF() throws {
        let source = try Fixture()
        let foreign = try Self.foreignPasskeys(["ES256", "Ed25519", "RSA"])
        let file = source.directory.path("foreign.json")
        try foreign.document.write(to: URL(fileURLWithPath: file))
        let imported = try source.run(["import", file, "--yes"])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("passkeys:   2 added, 0 replaced, 0 unchanged"), "\(imported.stdout)")
        #expect(
            imported.stdout.contains(
                "skipped item 3: a passkey for login.example.com with an RSA key: swcred signs only with ES256 (P-256) and Ed25519"
            ), "\(imported.stdout)")
        #expect(imported.stdout.contains("imported: 0 credentials and 2 passkeys saved"), "\(imported.stdout)")
        let listed = try source.run(["passkey", "list"])
        for id in foreign.ids.prefix(2) { #expect(listed.stdout.contains(id), "\(listed.stdout)") }
        #expect(!listed.stdout.contains(foreign.ids[2]))

        let csv = try source.run(["export", "--format", "apple-csv", "--output", "-", "--yes"])
        #expect(csv.status == 0, "\(csv.stderr)")
        #expect(
            csv.stderr.contains(
                "apple-csv cannot carry passkeys: the vault's 2 passkeys are left out (export with --format cxf to keep them)"
            ), "\(csv.stderr)")

        let exportedFile = source.directory.path("export.json")
        let exported = try source.run(["export", "--format", "cxf", "--output", exportedFile, "--yes"])
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect(exported.stderr.contains("exported 0 credentials and 2 passkeys"), "\(exported.stderr)")

        let destination = try Fixture()
        let again = try destination.run(["import", exportedFile, "--yes", "--json"])
        #expect(again.status == 0, "\(again.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: again.stdoutData) as? [String: Any])
        #expect((json["passkeys"] as? [String: Int])?["added"] == 2, "\(again.stdout)")
        for id in foreign.ids.prefix(2) {
            let before = try source.run(["passkey", "show", "--", id])
            let after = try destination.run(["passkey", "show", "--", id])
            #expect(after.status == 0 && after.stdout == before.stdout, "\(after.stdout)\n\(before.stdout)")
        }
        #expect(try destination.run(["status", "--verify"]).status == 0)
    }
}
