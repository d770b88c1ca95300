import Foundation
import Testing

@testable import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 25: the binary on both engines: `init`, the owner's commands, `status --verify` and
/// `audit verify` with `--vault FILE` or `--store postgresql://...`, the same commands and exit
/// codes; and the store URL's refusals (a password in it, an unreachable server).
@Suite("swcred --store: the same commands on SQLite and PostgreSQL")
struct StoreOptionCommandTests {
    private static let fastKDF = ["--kdf-opslimit", "1", "--kdf-memlimit", "8192"]
    private static let environment = ["SWCRED_PASSPHRASE": "store option test passphrase"]

    enum Engine: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case sqlite, postgresql
        var testDescription: String { rawValue }

        /// The options that name a new, empty store of this engine.
        func storeArguments(in directory: TemporaryDirectory) throws -> [String] {
            switch self {
            case .sqlite: return ["--vault", directory.path("vault.sqlite")]
            case .postgresql: return ["--store", try TestPostgres.freshDatabase()]
            }
        }
    }

    @discardableResult
    private func swcred(
        _ arguments: [String], status: Int32 = 0, stdin: String? = nil,
        environment: [String: String] = Self.environment, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> SwcredProcess.Result {
        let result = try SwcredProcess.run(arguments, environment: environment, stdin: stdin.map { Data($0.utf8) })
        #expect(result.status == status, "swcred \(arguments): \(result.stderr)", sourceLocation: sourceLocation)
        return result
    }

    @Test("init, item set and show, status --verify, audit verify; a second init is exit 8", arguments: Engine.allCases)
    func lifecycle(engine: Engine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.storeArguments(in: directory)
        try swcred(["item", "list"] + store, status: 8)
        try swcred(["init"] + store + Self.fastKDF)
        try swcred(["init"] + store + Self.fastKDF, status: 8)
        try swcred(
            ["item", "set", "example.com", "--account", "alice", "--password-stdin", "--yes"] + store, stdin: "pw-alice"
        )
        let shown = try swcred(["item", "show", "example.com", "--account", "alice", "--json"] + store)
        let object = try #require(try JSONSerialization.jsonObject(with: shown.stdoutData) as? [String: Any])
        #expect(object["password"] as? String == "pw-alice")
        try swcred(["status", "--verify"] + store)
        let audit = try swcred(["audit", "verify"] + store)
        #expect(audit.stdout.contains("1 entries checked"), "\(audit.stdout)")
        try swcred(["item", "list"] + store, status: 7, environment: ["SWCRED_PASSPHRASE": "wrong passphrase"])
    }

    @Test("SWCRED_STORE names the store when no option does")
    func environmentVariable() throws {
        let url = try TestPostgres.freshDatabase()
        var environment = Self.environment
        environment["SWCRED_STORE"] = url
        try swcred(["init"] + Self.fastKDF, environment: environment)
        let status = try swcred(["status"], environment: environment)
        #expect(status.stdout.contains(url), "\(status.stdout)")
    }

    @Test("a password in the URL is refused without echoing it; an unreachable server is exit 13")
    func refusals() throws {
        let refused = try swcred(
            ["status", "--store", "postgresql://swcred:hunter2secret@/swcred?host=/nonexistent"], status: 2)
        #expect(refused.stderr.contains("password"))
        #expect(!refused.stderr.contains("hunter2secret"))
        let unreachable = try swcred(
            ["status", "--store", "postgresql://swcred@/swcred?host=/nonexistent"], status: 13)
        #expect(unreachable.stderr.contains("cannot be reached"), "\(unreachable.stderr)")
        try swcred(["status", "--store", "postgresql://swcred@/swcred?host=/x", "--vault", "/tmp/v"], status: 2)
    }

    @Test("store copy: SQLite to PostgreSQL and back, checked at each end; a second copy is exit 8; nothing leaks")
    func storeCopyRoundTrip() throws {
        let directory = try TemporaryDirectory()
        let first = directory.path("first.sqlite")
        try swcred(["init", "--vault", first] + Self.fastKDF)
        for (account, password) in [("alice", "copy-pw-alice"), ("bob", "copy-pw-bob")] {
            try swcred(
                ["item", "set", "example.com", "--account", account, "--password-stdin", "--yes", "--vault", first],
                stdin: password)
        }
        try swcred(["never-save", "never.example", "--vault", first])
        try swcred([
            "app", "add", "ABCDE12345.com.example.app", "--domain", "webcredentials:example.com", "--vault", first,
        ])
        let token = try swcred(["app", "token", "create", "ABCDE12345.com.example.app", "--vault", first])
        #expect(!token.stdout.isEmpty)

        let database = try TestPostgres.freshDatabase()
        let there = try swcred(["store", "copy", "--from", "sqlite:\(first)", "--to", database, "--json"])
        let report = try #require(try JSONSerialization.jsonObject(with: there.stdoutData) as? [String: Any])
        let rows = try #require(report["rows"] as? [String: Int])
        #expect(rows["credentials"] == 2 && rows["never_save"] == 1 && rows["apps"] == 1 && rows["app_tokens"] == 1)
        let checked = try #require(report["checked"] as? [String: Int])
        #expect(checked["credentials"] == 2 && checked["tokens"] == 1)
        #expect(checked["audit_entries"] == (rows["audit_log"] ?? 0) + 1)

        // The copy opens where it went, with the same passphrase, and holds the same passwords.
        let shown = try swcred(["item", "show", "example.com", "--account", "bob", "--json", "--store", database])
        #expect(shown.stdout.contains("copy-pw-bob"))
        try swcred(["status", "--verify", "--store", database])
        let log = try swcred(["audit", "list", "--store", database])
        #expect(log.stdout.contains("store-copy") && log.stdout.contains("copied from \(first)"), "\(log.stdout)")
        let sourceLog = try swcred(["audit", "list", "--vault", first])
        #expect(sourceLog.stdout.contains("copied to "), "\(sourceLog.stdout)")

        // A destination that holds a vault, or a file that exists, is refused before anything.
        let again = try swcred(["store", "copy", "--from", "sqlite:\(first)", "--to", database], status: 8)
        #expect(again.stderr.contains("already holds vault data"), "\(again.stderr)")
        try swcred(["store", "copy", "--from", "sqlite:\(first)", "--to", "sqlite:\(first)"], status: 2)

        // And back to a new file: the same passwords, the chain intact with both copies in it.
        let back = directory.path("back.sqlite")
        try swcred(["store", "copy", "--from", database, "--to", "sqlite:\(back)"])
        let returned = try swcred(["item", "show", "example.com", "--account", "alice", "--json", "--vault", back])
        #expect(returned.stdout.contains("copy-pw-alice"))
        try swcred(["audit", "verify", "--vault", back])
        let existing = try swcred(["store", "copy", "--from", database, "--to", "sqlite:\(back)"], status: 8)
        #expect(existing.stderr.contains("already exists"), "\(existing.stderr)")
        for result in [there, again] {
            #expect(!result.stdout.contains("copy-pw") && !result.stderr.contains("copy-pw"))
        }
    }

    @Test("store copy refuses a wrong passphrase (7) and a damaged source (9), and leaves no destination behind")
    func storeCopyRefusals() throws {
        let directory = try TemporaryDirectory()
        let source = directory.path("source.sqlite")
        try swcred(["init", "--vault", source] + Self.fastKDF)
        try swcred(
            ["item", "set", "example.com", "--account", "alice", "--password-stdin", "--yes", "--vault", source],
            stdin: "pw")
        let target = directory.path("target.sqlite")
        try swcred(
            ["store", "copy", "--from", "sqlite:\(source)", "--to", "sqlite:\(target)"], status: 7,
            environment: ["SWCRED_PASSPHRASE": "not the passphrase"])
        #expect(!FileManager.default.fileExists(atPath: target))
        let missing = try swcred(
            ["store", "copy", "--from", "sqlite:\(directory.path("none.sqlite"))", "--to", "sqlite:\(target)"],
            status: 8)
        #expect(missing.stderr.contains("none.sqlite"), "\(missing.stderr)")

        // One credential's ciphertext altered behind swcred's back: the source fails its check.
        let tamper = Process()
        tamper.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        tamper.arguments = [source, "UPDATE credentials SET sealed = zeroblob(length(sealed));"]
        try tamper.run()
        tamper.waitUntilExit()
        #expect(tamper.terminationStatus == 0)
        let database = try TestPostgres.freshDatabase()
        let damaged = try swcred(["store", "copy", "--from", "sqlite:\(source)", "--to", database], status: 9)
        #expect(damaged.stderr.contains("failed its integrity check"), "\(damaged.stderr)")
        #expect(try TestPostgres.psql(database, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'") == "0\n")
    }

    @Test("store copy SIGKILLed half-way: the database holds no vault rows, and the next copy succeeds")
    func storeCopyKilled() throws {
        let directory = try TemporaryDirectory()
        let source = directory.path("source.sqlite")
        try swcred(["init", "--vault", source] + Self.fastKDF)
        var csv = "Title,URL,Username,Password,Notes,OTPAuth\n"
        for index in 0..<3_000 { csv += "s\(index),https://site\(index).example/,user\(index),Pw-\(index)-x,,\n" }
        let file = try directory.writePrivateFile("import.csv", csv)
        try swcred(["import", file, "--format", "apple-csv", "--yes", "--vault", source])
        let database = try TestPostgres.freshDatabase()

        // Killed while the credentials table is being written: its progress line for the table
        // before has appeared, its own has not. (Polled on this thread: a suspended task could
        // wake too late on a busy cooperative pool.)
        let copy = Process()
        copy.executableURL = SwcredProcess.executableURL
        copy.arguments = ["store", "copy", "--from", "sqlite:\(source)", "--to", database]
        copy.environment = Self.environment
        let progress = directory.path("progress")
        FileManager.default.createFile(atPath: progress, contents: nil)
        copy.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: progress))
        copy.standardOutput = FileHandle.nullDevice
        try copy.run()
        var seen = ""
        let deadline = ContinuousClock.now + .seconds(60)
        while !seen.contains("copied app_tokens"), copy.isRunning, ContinuousClock.now < deadline {
            usleep(2_000)
            seen = (try? String(contentsOfFile: progress, encoding: .utf8)) ?? ""
        }
        kill(copy.processIdentifier, SIGKILL)
        copy.waitUntilExit()
        seen = (try? String(contentsOfFile: progress, encoding: .utf8)) ?? ""
        #expect(copy.terminationReason == .uncaughtSignal, "the copy ended before the kill: \(seen)")
        #expect(!seen.contains("copied credentials"), "killed too late to prove anything: \(seen)")

        for table in ["vault_meta", "credentials", "audit_log"] {
            let count =
                try TestPostgres.psql(
                    database, "SELECT count(*) FROM pg_tables WHERE tablename = '\(table)'"
                ) == "1\n" ? try TestPostgres.psql(database, "SELECT count(*) FROM \(table)") : "0\n"
            #expect(count == "0\n", "\(table) after the kill: \(count)")
        }
        try swcred(["item", "list", "--store", database], status: 8)
        let again = try swcred(["store", "copy", "--from", "sqlite:\(source)", "--to", database, "--json"])
        #expect(again.stdout.contains("\"credentials\":3000"), "\(again.stdout)")
    }
}
