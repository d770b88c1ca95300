import Foundation
import Testing

@testable import TestSupport

/// Issue 13: `swcred item` end to end: JSON shapes, confirmation off a terminal (`--yes`) and on
/// one, exit codes from DESIGN.md, and the audit entries the changes leave.
@Suite("swcred item and audit commands")
struct OwnerCommandTests {
    private static let fastKDF = ["--kdf-opslimit", "1", "--kdf-memlimit", "8192"]
    private static let passphrase = "owner commands test passphrase"

    let directory: TemporaryDirectory
    let vault: String

    init() throws {
        directory = try TemporaryDirectory()
        vault = directory.path("vault.sqlite")
        let created = try SwcredProcess.run(["init", "--vault", vault] + Self.fastKDF, environment: environment)
        #expect(created.status == 0, "\(created.stderr)")
    }

    private var environment: [String: String] { ["SWCRED_PASSPHRASE": Self.passphrase] }

    @discardableResult
    private func swcred(
        _ arguments: [String], status: Int32 = 0, stdin: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> SwcredProcess.Result {
        let result = try SwcredProcess.run(
            arguments + ["--vault", vault], environment: environment, stdin: stdin.map { Data($0.utf8) })
        #expect(result.status == status, "swcred \(arguments): \(result.stderr)", sourceLocation: sourceLocation)
        return result
    }

    private func json(_ arguments: [String]) throws -> Any {
        try JSONSerialization.jsonObject(with: try swcred(arguments + ["--json"]).stdoutData)
    }

    private func shown(_ host: String, account: String) throws -> [String: Any] {
        try #require(try json(["item", "show", host, "--account", account]) as? [String: Any])
    }

    @Test("set, list, show, rename and remove, with their JSON shapes and exit codes")
    func lifecycle() throws {
        let added = try swcred(
            ["item", "set", "Example.com", "--account", "alice", "--password-stdin", "--label", "Work", "--yes"],
            stdin: "pw-alice")
        #expect(added.stderr.contains("added: \"alice\" on example.com"), "\(added.stderr)")
        #expect(added.stdout.isEmpty)
        let generated = try swcred(["item", "set", "example.com:8443", "--account", "bob", "--generate", "--yes"])
        let bobPassword = generated.stdout.trimmingCharacters(in: .newlines)
        #expect(bobPassword.count >= 20, "the generated password is printed once: \(generated.stdout)")

        let listed = try #require(try json(["item", "list"]) as? [[String: Any]])
        #expect(listed.count == 2)
        #expect(
            listed.map { Set($0.keys) } == [
                ["scheme", "server", "account", "label", "created", "modified"],
                ["scheme", "server", "port", "account", "label", "created", "modified"],
            ])
        #expect(listed[0]["server"] as? String == "example.com" && listed[0]["label"] as? String == "Work")
        #expect(listed.map { $0["scheme"] as? String } == ["https", "https"])
        #expect(listed[1]["port"] as? Int == 8443 && listed[1]["label"] is NSNull)
        #expect(try swcred(["item", "list"]).stdout.hasPrefix("example.com\talice\tWork\t"))
        let searched = try #require(try json(["item", "list", "--search", "BO"]) as? [[String: Any]])
        #expect(searched.map { $0["account"] as? String } == ["bob"])
        let byDomain = try #require(try json(["item", "list", "--domain", "example.com"]) as? [[String: Any]])
        #expect(byDomain.map { $0["account"] as? String } == ["alice"], "the default port only")

        let alice = try shown("example.com", account: "alice")
        #expect(alice["password"] as? String == "pw-alice", "off a terminal the password is printed")
        #expect(alice["label"] as? String == "Work" && alice["notes"] is NSNull && alice["otpauth"] is NSNull)
        #expect(
            Set(alice.keys) == [
                "scheme", "server", "account", "password", "label", "notes", "otpauth", "created", "modified",
            ])
        #expect(try shown("example.com:8443", account: "bob")["password"] as? String == bobPassword)

        try swcred(
            ["item", "set", "example.com", "--account", "alice", "--password-stdin", "--notes-stdin", "--yes"],
            stdin: "pw-alice-2\nfirst line\nsecond line\n")
        let changed = try shown("example.com", account: "alice")
        #expect(changed["password"] as? String == "pw-alice-2")
        #expect(changed["notes"] as? String == "first line\nsecond line" && changed["label"] as? String == "Work")

        try swcred(["item", "rename", "example.com", "--account", "alice", "--to", "alicia"])
        let renamed = try shown("example.com", account: "alicia")
        #expect(
            renamed["password"] as? String == "pw-alice-2" && renamed["notes"] as? String == "first line\nsecond line")
        #expect(renamed["created"] as? String == changed["created"] as? String)
        #expect(renamed["modified"] as? String == changed["modified"] as? String)
        try swcred(["item", "show", "example.com", "--account", "alice"], status: 5)

        try swcred(["item", "remove", "example.com", "--account", "alicia", "--yes"])
        try swcred(["item", "remove", "example.com", "--account", "alicia", "--yes"], status: 5)
        try swcred(["item", "show", "example.com", "--account", "alicia"], status: 5)
    }

    @Test("one account on one host over two ports and two schemes is four credentials, each listed with its scheme")
    func schemesAndPorts() throws {
        let sites = ["plain.test", "plain.test:8443", "http://plain.test", "http://plain.test:8443/"]
        for (number, site) in sites.enumerated() {
            let added = try swcred(
                ["item", "set", site, "--account", "alice", "--password-stdin", "--yes"], stdin: "pw-\(number)")
            #expect(added.stderr.contains("added: \"alice\""), "\(site): \(added.stderr)")
        }
        let listed = try #require(try json(["item", "list"]) as? [[String: Any]])
        #expect(listed.map { $0["scheme"] as? String } == ["https", "http", "https", "http"])
        #expect(listed.map { $0["port"] as? Int } == [nil, nil, 8443, 8443])
        #expect(
            try swcred(["item", "list"]).stdout.split(separator: "\n").map { $0.split(separator: "\t")[0] } == [
                "plain.test", "http://plain.test", "plain.test:8443", "http://plain.test:8443",
            ])
        for (number, site) in sites.enumerated() {
            let credential = try shown(site, account: "alice")
            #expect(credential["password"] as? String == "pw-\(number)", "\(site)")
            #expect(credential["scheme"] as? String == (site.hasPrefix("http://") ? "http" : "https"))
        }
        let byDomain = try #require(
            try json(["item", "list", "--domain", "http://plain.test:8443"]) as? [[String: Any]])
        #expect(byDomain.count == 1 && byDomain.first?["scheme"] as? String == "http")
        // Port 443 is the default of https only: http://plain.test:443 is a fifth site, with nothing saved.
        try swcred(["item", "show", "http://plain.test:443", "--account", "alice"], status: 5)
        try swcred(["item", "show", "ftp://plain.test", "--account", "alice"], status: 2)
        try swcred(["item", "remove", "http://plain.test", "--account", "alice", "--yes"])
        #expect(try shown("plain.test", account: "alice")["password"] as? String == "pw-0")
        #expect(try #require(try json(["item", "list"]) as? [[String: Any]]).count == 3)
    }

    /// Runs swcred with `input` written into a socket as its standard input: a descriptor that
    /// reopening `/dev/stdin` cannot open (ENXIO), as a pipe another user made cannot (EACCES).
    private func swcredReadingASocket(_ arguments: [String], input: String) throws -> SwcredProcess.Result {
        var ends: [Int32] = [0, 0]
        // Not inherited by the children other tests spawn meanwhile, which would hold it open.
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0, &ends) == 0)
        let process = Process()
        process.executableURL = SwcredProcess.executableURL
        process.arguments = arguments + ["--vault", vault]
        process.environment = ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "SWCRED_PASSPHRASE": Self.passphrase]
        let output = Pipe()
        let errors = Pipe()
        process.standardInput = FileHandle(fileDescriptor: ends[0], closeOnDealloc: false)
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Each end is closed exactly once, here: a second close could hit a descriptor that a
        // test running in parallel has opened since.
        close(ends[0])
        var input = Array(input.utf8)
        let written = write(ends[1], &input, input.count)
        close(ends[1])
        #expect(written == input.count)
        let stderr = errors.fileHandleForReading.readDataToEndOfFile()
        let stdout = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return SwcredProcess.Result(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self), stdoutData: stdout)
    }

    @Test(
        "item set changes one setting at a time: the label alone, the notes alone, the password alone; the others stay")
    func oneSettingAtATime() throws {
        func state() throws -> [String] {
            let item = try shown("example.com", account: "alice")
            return ["password", "label", "notes"].map { item[$0] as? String ?? "none" }
        }
        let set = ["item", "set", "example.com", "--account", "alice", "--password-stdin", "--yes"]
        try swcred(set + ["--notes-stdin", "--label", "Work"], stdin: "Pw-first-1\nnote one")
        #expect(try state() == ["Pw-first-1", "Work", "note one"])
        try swcred(set + ["--label", "Home"], stdin: "Pw-first-1")
        #expect(try state() == ["Pw-first-1", "Home", "note one"], "the label alone")
        try swcred(set + ["--notes-stdin"], stdin: "Pw-first-1\nnote two")
        #expect(try state() == ["Pw-first-1", "Home", "note two"], "the notes alone")
        try swcred(set, stdin: "Pw-second-2")
        #expect(try state() == ["Pw-second-2", "Home", "note two"], "the password alone")
    }

    @Test("--password-stdin and --notes-stdin read descriptor 0 itself: a socket works, not only a pipe of ours")
    func standardInputIsDescriptorZero() throws {
        let set = try swcredReadingASocket(
            ["item", "set", "example.com", "--account", "alice", "--password-stdin", "--yes"], input: "Pw-socket-1\n")
        #expect(set.status == 0, "\(set.stderr)")
        #expect(try shown("example.com", account: "alice")["password"] as? String == "Pw-socket-1")
        let withNotes = try swcredReadingASocket(
            ["item", "set", "example.com", "--account", "alice", "--password-stdin", "--notes-stdin", "--yes"],
            input: "Pw-socket-2\nnote one\n")
        #expect(withNotes.status == 0, "\(withNotes.stderr)")
        let shownNow = try shown("example.com", account: "alice")
        #expect(shownNow["password"] as? String == "Pw-socket-2" && shownNow["notes"] as? String == "note one")
    }

    @Test(
        "a password piped in by another user is read (the issue's `printf | sudo -u alice swcred ... --password-stdin`)",
        .enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")))
    func pipeOfAnotherUser() throws {
        // The pipe is root's (mode 0600); swcred runs as nobody, and finds no vault after reading it.
        let result = try SwcredProcess.run(
            [
                "--reuid=65534", "--regid=65534", "--clear-groups", SwcredProcess.executableURL.path, "add", "--app",
                "ABCDE12345.com.example.app", "--domain", "example.com", "--account", "alice", "--password-stdin",
                "--yes", "--vault", "/nonexistent/swcred/vault.sqlite",
            ], stdin: Data("Pw-other-user-1".utf8), executable: URL(fileURLWithPath: "/usr/bin/setpriv"))
        #expect(!result.stderr.contains("Cannot read"), "\(result.stderr)")
        #expect(result.status == 8, "read, then no vault at the path: \(result.stderr)")
    }

    @Test("off a terminal a change without --yes is refused (exit 6) and changes nothing")
    func confirmationRequired() throws {
        try swcred(["item", "set", "example.com", "--account", "alice", "--password-stdin", "--yes"], stdin: "one")
        let refused = try swcred(
            ["item", "set", "example.com", "--account", "alice", "--password-stdin"], status: 6, stdin: "two")
        #expect(refused.stderr.contains("--yes"), "\(refused.stderr)")
        try swcred(["item", "remove", "example.com", "--account", "alice"], status: 6)
        #expect(try shown("example.com", account: "alice")["password"] as? String == "one")
        // Setting the same password again changes nothing, so it needs no confirmation.
        let same = try swcred(["item", "set", "example.com", "--account", "alice", "--password-stdin"], stdin: "one")
        #expect(same.stderr.contains("unchanged"), "\(same.stderr)")
    }

    @Test("bad input: exit 2 with a message that names the problem")
    func badInput() throws {
        try swcred(["item", "set", "example.com", "--account", "a", "--password-stdin", "--yes"], stdin: "x")
        try swcred(["item", "set", "example.com", "--account", "b", "--password-stdin", "--yes"], stdin: "y")
        let taken = try swcred(["item", "rename", "example.com", "--account", "a", "--to", "b"], status: 2)
        #expect(taken.stderr.contains("already has a credential for the new account name"), "\(taken.stderr)")
        try swcred(["item", "rename", "example.com", "--account", "nobody", "--to", "c"], status: 5)
        try swcred(["item", "set", "example.com", "--account", "a", "--yes"], status: 2)
        try swcred(
            ["item", "set", "exa mple.com", "--account", "a", "--password-stdin", "--yes"], status: 2, stdin: "x")
        try swcred(["item", "show", "example.com"], status: 2)
        let operation = try swcred(["audit", "--operation", "bogus"], status: 2)
        #expect(operation.stderr.contains("unknown operation \"bogus\""), "\(operation.stderr)")
        let date = try swcred(["audit", "--since", "yesterday"], status: 2)
        #expect(date.stderr.contains("--since \"yesterday\" is not a date"), "\(date.stderr)")
        try swcred(["audit", "prune"], status: 2)
    }

    @Test("every change leaves one owner entry; audit filters and prints JSON; verify and prune")
    func auditTrail() throws {
        try swcred(["item", "set", "example.com", "--account", "alice", "--password-stdin", "--yes"], stdin: "one")
        try swcred(["item", "set", "example.com", "--account", "alice", "--password-stdin", "--yes"], stdin: "two")
        try swcred(["item", "rename", "example.com", "--account", "alice", "--to", "alicia"])
        try swcred(["item", "remove", "example.com", "--account", "alicia", "--yes"])
        try swcred(
            ["app", "add", "ABCDE12345.com.example.app", "--domain", "webcredentials:example.com"])
        let entries = try #require(try json(["audit"]) as? [[String: Any]])
        #expect(
            entries.map { $0["operation"] as? String } == [
                "item-set", "item-set", "item-rename", "item-remove", "app-add",
            ])
        #expect(entries.map { $0["seq"] as? Int } == [1, 2, 3, 4, 5])
        #expect(
            Set(entries[0].keys) == [
                "chain", "seq", "time", "actor", "operation", "outcome", "error", "domain", "account", "app",
                "released",
                "detail",
            ])
        #expect(entries.allSatisfy { $0["actor"] as? String == "owner" && $0["outcome"] as? String == "done" })
        #expect(entries[2]["account"] as? String == "alicia" && entries[2]["domain"] as? String == "example.com")
        #expect(entries[4]["app"] as? String == "ABCDE12345.com.example.app")
        let removals = try #require(try json(["audit", "--operation", "item-remove"]) as? [[String: Any]])
        #expect(removals.map { $0["seq"] as? Int } == [4])
        #expect((try json(["audit", "--since", "2999-01-01"]) as? [Any])?.isEmpty == true)
        #expect((try json(["audit", "--app", "ABCDE12345.com.example.app"]) as? [Any])?.isEmpty == true)
        #expect((try json(["audit", "--app", "owner", "--since", "2000-01-01T00:00:00Z"]) as? [Any])?.count == 5)
        let text = try swcred(["audit", "list"]).stdout
        #expect(text.contains("#3\t") && text.contains("\towner\titem-rename\tdone\texample.com\talicia\n"), "\(text)")
        #expect(try swcred(["audit", "verify"]).stdout.contains("audit log intact: 5 entries checked"))
        #expect(try swcred(["audit", "prune", "--before", "2999-01-01"]).stdout.contains("dropped 5 audit entries"))
        let kept = try #require(try json(["audit"]) as? [[String: Any]])
        #expect(kept.map { $0["operation"] as? String } == ["audit-prune"] && kept.first?["seq"] as? Int == 6)
        try swcred(["audit", "verify"])
        let status = try swcred(["status", "--verify"])
        #expect(status.stdout.contains("audit log:    intact"), "\(status.stdout)")
    }

    // MARK: On a terminal

    private func terminal(_ arguments: [String]) throws -> TerminalSession {
        let passphraseFile = directory.path("passphrase")
        if !FileManager.default.fileExists(atPath: passphraseFile) {
            guard
                FileManager.default.createFile(
                    atPath: passphraseFile, contents: Data(Self.passphrase.utf8), attributes: [.posixPermissions: 0o600]
                )
            else { throw CocoaError(.fileWriteUnknown) }
        }
        return try TerminalSession(
            executable: SwcredProcess.executableURL.path,
            arguments: arguments + ["--vault", vault, "--passphrase-file", passphraseFile], environment: [:])
    }

    @Test(
        "on a terminal: set asks before saving, remove asks before removing, show hides the password without --reveal")
    func onTerminal() throws {
        let set = try terminal(["item", "set", "example.com", "--account", "carol", "--password-stdin"])
        try set.waitFor("Password for \"carol\" on example.com:")
        try set.paste(secret: "Carol-Pw-1")
        try set.type("Enter")
        try set.waitFor("Save a password for \"carol\" on example.com? [y/N]")
        try set.type("y", "Enter")
        #expect(try set.exitStatus() == 0)
        #expect(!(try set.screen().contains("Carol-Pw-1")), "never echoed")

        let hidden = try terminal(["item", "show", "example.com", "--account", "carol"])
        #expect(try hidden.exitStatus() == 0)
        let screen = try hidden.screen()
        #expect(
            screen.contains("(hidden on a terminal; --reveal shows it)") && !screen.contains("Carol-Pw-1"), "\(screen)")
        let revealed = try terminal(["item", "show", "example.com", "--account", "carol", "--reveal"])
        #expect(try revealed.exitStatus() == 0)
        #expect(try revealed.screen().contains("password: Carol-Pw-1"))

        let declined = try terminal(["item", "remove", "example.com", "--account", "carol"])
        try declined.waitFor("Delete the saved password for \"carol\" on example.com? [y/N]")
        try declined.type("n", "Enter")
        #expect(try declined.exitStatus() == 6)
        let removed = try terminal(["item", "remove", "example.com", "--account", "carol"])
        try removed.waitFor("[y/N]")
        try removed.type("yes", "Enter")
        #expect(try removed.exitStatus() == 0)
        try swcred(["item", "show", "example.com", "--account", "carol"], status: 5)
    }
}
