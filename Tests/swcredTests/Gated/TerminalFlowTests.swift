import Foundation
import TestSupport
import Testing

/// The consent flows on a real pseudo-terminal (tmux): picker, confirmation, decline, and the
/// no-echo password prompt. The passphrase comes from a file, secrets are pasted from a tmux
/// buffer: nothing secret is ever on a command line.
@Suite("swcred consent on a terminal", .serialized)
struct TerminalFlowTests {
    static let app = GatedFixture.app

    private func session(_ fixture: GatedFixture, _ arguments: [String]) throws -> TerminalSession {
        let passphraseFile = fixture.directory.path("passphrase")
        guard
            FileManager.default.createFile(
                atPath: passphraseFile, contents: Data(fixture.passphrase.utf8), attributes: [.posixPermissions: 0o600])
        else { throw CocoaError(.fileWriteUnknown) }
        return try TerminalSession(
            executable: SwcredProcess.executableURL.path,
            arguments: arguments + ["--passphrase-file", passphraseFile] + fixture.networkArguments,
            environment: ["SWCRED_VAULT": fixture.vaultPath])
    }

    private func save(_ fixture: GatedFixture, account: String, password: String) throws {
        try fixture.expect(
            ["add", "--app", Self.app, "--domain", "shop.example", "--account", account, "--password-stdin", "--yes"],
            status: 0, stdin: password, network: true)
    }

    @Test("several matches: a numbered picker releases exactly the one chosen")
    func picker() async throws {
        try await GatedFixture.with { fixture in
            try save(fixture, account: "alice", password: "Alice-Pw-111")
            try save(fixture, account: "bob", password: "Bob-Pw-222")

            let terminal = try session(fixture, ["request", "--app", Self.app, "--domain", "shop.example"])
            let menu = try terminal.waitFor("Choose 1-2")
            #expect(menu.contains("1) alice on shop.example"))
            #expect(menu.contains("2) bob on shop.example"))
            #expect(!menu.contains("Alice-Pw-111") && !menu.contains("Bob-Pw-222"), "the picker never shows passwords")
            try terminal.type("2", "Enter")
            #expect(try terminal.exitStatus() == 0)
            let screen = try terminal.screen()
            #expect(screen.contains("shop.example\tbob\tBob-Pw-222") || screen.contains("Bob-Pw-222"))
            #expect(!screen.contains("Alice-Pw-111"), "only the chosen credential is released")
        }
    }

    @Test("a generated password is saved after a yes and shown once")
    func confirmAdd() async throws {
        try await GatedFixture.with { fixture in
            let terminal = try session(
                fixture, ["add", "--app", Self.app, "--domain", "shop.example", "--account", "carol", "--generate"])
            try terminal.waitFor("Save a password for \"carol\" on shop.example? [y/N]")
            try terminal.type("y", "Enter")
            #expect(try terminal.exitStatus() == 0)
            let saved = try fixture.expect(
                ["request", "--app", Self.app, "--domain", "shop.example", "--all"], status: 0, network: true)
            let password = try #require(saved.stdout.split(separator: "\t").last).trimmingCharacters(in: .newlines)
            #expect(try terminal.screen().contains(password))
        }
    }

    @Test("declining a delete changes nothing and exits 6")
    func declineDelete() async throws {
        try await GatedFixture.with { fixture in
            try save(fixture, account: "dave", password: "Dave-Pw-333")
            let terminal = try session(
                fixture, ["delete", "--app", Self.app, "--domain", "shop.example", "--account", "dave"])
            try terminal.waitFor("Delete the saved password for \"dave\" on shop.example? [y/N]")
            try terminal.type("n", "Enter")
            #expect(try terminal.exitStatus() == 6)
            try fixture.expect(
                ["request", "--app", Self.app, "--domain", "shop.example", "--account", "dave", "--all"], status: 0,
                network: true)
        }
    }

    @Test("an empty answer declines: only y or yes agrees")
    func emptyAnswerDeclines() async throws {
        try await GatedFixture.with { fixture in
            try save(fixture, account: "frank", password: "Frank-Pw-444")
            let terminal = try session(
                fixture, ["delete", "--app", Self.app, "--domain", "shop.example", "--account", "frank"])
            try terminal.waitFor("Delete the saved password for \"frank\" on shop.example? [y/N]")
            try terminal.type("Enter")
            #expect(try terminal.exitStatus() == 6)
            try fixture.expect(
                ["request", "--app", Self.app, "--domain", "shop.example", "--account", "frank", "--all"], status: 0,
                network: true)
        }
    }

    @Test("--password-stdin on a terminal prompts without echo")
    func passwordPrompt() async throws {
        try await GatedFixture.with { fixture in
            let secret = "Typed-Secret-Pw-444"
            let terminal = try session(
                fixture,
                ["add", "--app", Self.app, "--domain", "shop.example", "--account", "erin", "--password-stdin"])
            try terminal.waitFor("Password for \"erin\" on shop.example:")
            try terminal.paste(secret: secret)
            try terminal.type("Enter")
            try terminal.waitFor("[y/N]")
            #expect(!(try terminal.screen().contains(secret)), "the password is not echoed")
            try terminal.type("y", "Enter")
            #expect(try terminal.exitStatus() == 0)
            let saved = try fixture.expect(
                ["request", "--app", Self.app, "--domain", "shop.example", "--account", "erin", "--all"], status: 0,
                network: true)
            #expect(saved.stdout == "shop.example\terin\t\(secret)\n")
        }
    }

    @Test("the password prompt shows a hostile account name escaped, never raw")
    func promptEscapesAccount() async throws {
        try await GatedFixture.with { fixture in
            let terminal = try session(
                fixture,
                [
                    "add", "--app", Self.app, "--domain", "shop.example", "--account", "eve\u{1b}[2J\u{1b}[8m",
                    "--password-stdin",
                ])
            let screen = try terminal.waitFor("on shop.example:")
            #expect(screen.contains(#"Password for "eve\u{1b}[2J\u{1b}[8m" on shop.example:"#), "\(screen)")
            try terminal.type("C-c")
        }
    }
}
