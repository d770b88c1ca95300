import Foundation
import Testing

@testable import TestSupport

/// A weak passphrase (one to a hundred years) on a real terminal (tmux): a warning, then a
/// question; only yes goes on. A refused one is never asked about.
@Suite(
    "Weak passphrase confirmation on a terminal",
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux"), "needs tmux"))
struct WeakPassphraseTerminalTests {
    static let question = "Use this passphrase anyway? [y/N]"

    /// Runs `swcred ARGUMENTS` on a terminal with the passphrase `passphrase` in a file (and the new
    /// passphrase in another for `passwd`), answers the question with `answer`, and returns the
    /// exit status and the screen.
    private func run(
        _ arguments: [String], in directory: TemporaryDirectory, passphrase: String, newPassphrase: String? = nil,
        answer: String?
    ) throws -> (Int32, String) {
        let file = try directory.writePrivateFile("passphrase-\(UUID().uuidString)", passphrase)
        var extra = ["--passphrase-file", file]
        if let newPassphrase {
            let newFile = try directory.writePrivateFile("new-\(UUID().uuidString)", newPassphrase)
            extra += ["--new-passphrase-file", newFile]
        }
        let terminal = try TerminalSession(
            executable: SwcredProcess.executableURL.path, arguments: arguments + extra, environment: [:])
        if let answer {
            try terminal.waitFor(Self.question)
            if answer.isEmpty { try terminal.type("Enter") } else { try terminal.type(answer, "Enter") }
        }
        let status = try terminal.exitStatus()
        return (status, try terminal.screen())
    }

    @Test("init: the warning and the question; yes creates the vault, no exits 6 with nothing written")
    func initConfirmation() throws {
        let directory = try TemporaryDirectory()
        let accepted = directory.path("accepted.sqlite")
        let (yes, yesScreen) = try run(
            ["init", "--vault", accepted], in: directory, passphrase: "purple-monkey-dish", answer: "y")
        #expect(yes == 0, "\(yesScreen)")
        #expect(yesScreen.contains("warning:") && yesScreen.contains("less than 100 years"))
        #expect(FileManager.default.fileExists(atPath: accepted))

        let declined = directory.path("declined.sqlite")
        let (no, noScreen) = try run(
            ["init", "--vault", declined], in: directory, passphrase: "purple-monkey-dish", answer: "n")
        #expect(no == 6, "\(noScreen)")
        #expect(noScreen.contains("no vault was created"))
        #expect(!FileManager.default.fileExists(atPath: declined))

        let enter = directory.path("enter.sqlite")
        let (empty, emptyScreen) = try run(
            ["init", "--vault", enter], in: directory, passphrase: "purple-monkey-dish", answer: "")
        #expect(empty == 6 && !FileManager.default.fileExists(atPath: enter), "\(emptyScreen)")
    }

    @Test("init: --allow-weak-passphrase warns without asking; a refused passphrase is not asked about")
    func noQuestion() throws {
        let directory = try TemporaryDirectory()
        let allowed = directory.path("allowed.sqlite")
        let (status, screen) = try run(
            ["init", "--vault", allowed, "--allow-weak-passphrase"], in: directory, passphrase: "purple-monkey-dish",
            answer: nil)
        #expect(status == 0 && screen.contains("warning:") && !screen.contains(Self.question), "\(screen)")

        let refused = directory.path("refused.sqlite")
        let (refusedStatus, refusedScreen) = try run(
            ["init", "--vault", refused], in: directory, passphrase: "hunter2hunter2", answer: nil)
        #expect(refusedStatus == 2 && !refusedScreen.contains(Self.question), "\(refusedScreen)")
        #expect(!FileManager.default.fileExists(atPath: refused))
    }

    @Test("passwd: declining keeps the old passphrase; yes changes it")
    func passwdConfirmation() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.sqlite")
        let old = "correct horse battery staple"
        let created = try SwcredProcess.run(["init", "--vault", path], environment: ["SWCRED_PASSPHRASE": old])
        #expect(created.status == 0, "\(created.stderr)")
        func unlocks(_ passphrase: String) throws -> Bool {
            try SwcredProcess.run(
                ["status", "--verify", "--vault", path], environment: ["SWCRED_PASSPHRASE": passphrase]
            ).status == 0
        }

        let (no, noScreen) = try run(
            ["passwd", "--vault", path], in: directory, passphrase: old, newPassphrase: "purple-monkey-dish",
            answer: "n")
        #expect(no == 6 && noScreen.contains("the passphrase was not changed"), "\(noScreen)")
        #expect(try unlocks(old) && !unlocks("purple-monkey-dish"))

        let (yes, yesScreen) = try run(
            ["passwd", "--vault", path], in: directory, passphrase: old, newPassphrase: "purple-monkey-dish",
            answer: "yes")
        #expect(yes == 0, "\(yesScreen)")
        #expect(try unlocks("purple-monkey-dish") && !unlocks(old))
    }
}
