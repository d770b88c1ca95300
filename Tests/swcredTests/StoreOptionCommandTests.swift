import Foundation
import Testing

@testable import TestSupport

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
}
