import Foundation
import Synchronization
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A vault, a registered app and real HTTPS sites on loopback, for driving the `swcred` binary.
///
/// Sites (all served by one TLS server with a certificate from a throwaway CA):
/// `shop.example` lists ``app``; `other.example` lists ``otherApp`` only; `down.example` is
/// routed to a closed port. ``app``'s entitlement covers shop, other and down; ``otherApp``'s
/// covers other. Their Digital Asset Links lists: `shop.example` grants ``androidApp`` (signed
/// by ``androidFingerprint``) get_login_creds; `other.example` grants it only to its sibling
/// ``androidSibling``. The Android app is not registered by ``make()``.
final class GatedFixture {
    static let app = "ABCDE12345.com.example.app"
    static let otherApp = "ZZZZZ99999.com.example.other"
    static let androidApp = "android:com.example.shop"
    static let androidSibling = "com.example.shop.lite"
    static let androidFingerprint =
        "14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5"

    /// A statement list granting get_login_creds to `package`, signed by ``androidFingerprint``.
    static func assetLinks(granting package: String) -> TestRoute {
        .json(
            """
            [{"relation": ["delegate_permission/common.get_login_creds"],
              "target": {"namespace": "android_app", "package_name": "\(package)",
                         "sha256_cert_fingerprints": ["\(androidFingerprint)"]}}]
            """)
    }

    let directory: TemporaryDirectory
    let server: TestHTTPSServer
    let caFile: String
    let vaultPath: String
    /// A PostgreSQL store URL every run names through `SWCRED_STORE` instead of the vault file,
    /// or nil for the SQLite file.
    let store: String?
    /// Every argument list given to the binary, to prove no password was ever in argv.
    private(set) var argumentLists: [[String]] = []
    /// Everything the binary wrote to standard error, to prove no password was ever logged.
    private(set) var diagnostics = ""

    private init(
        directory: TemporaryDirectory, server: TestHTTPSServer, caFile: String, store: String?, shopFetches: FetchLog
    ) {
        self.directory = directory
        self.shopFetches = shopFetches
        self.server = server
        self.caFile = caFile
        self.store = store
        vaultPath = directory.path("vault.sqlite")
    }

    /// When each request for shop.example's association file arrived.
    final class FetchLog: Sendable {
        private let times = Mutex<[ContinuousClock.Instant]>([])
        func record() { times.withLock { $0.append(.now) } }
        var all: [ContinuousClock.Instant] { times.withLock { $0 } }
    }

    /// The requests for shop.example's association file.
    let shopFetches: FetchLog

    /// Starts the sites and creates a vault with both apps registered: in the SQLite file, or in
    /// the PostgreSQL database of `store`. shop.example answers its association file after
    /// `shopDelay` milliseconds (a slow site).
    static func make(store: String? = nil, shopDelay: Int64 = 0) async throws -> GatedFixture {
        let shopFetches = FetchLog()
        let directory = try TemporaryDirectory()
        let ca = try TestCertificateAuthority()
        let caFile = try ca.writePEM(into: directory)
        let hosts = ["shop.example", "other.example", "down.example"]
        let server = try await TestHTTPSServer.start(identity: try ca.issue(for: hosts)) { request in
            if request.path == "/.well-known/assetlinks.json" {
                switch request.host {
                case "shop.example": return assetLinks(granting: String(androidApp.dropFirst("android:".count)))
                case "other.example": return assetLinks(granting: androidSibling)
                default: return .status(404)
                }
            }
            guard request.path == "/.well-known/apple-app-site-association" else { return .status(404) }
            switch request.host {
            case "shop.example":
                shopFetches.record()
                return shopDelay > 0
                    ? .delayed(milliseconds: shopDelay, .aasa(approving: [app])) : .aasa(approving: [app])
            case "other.example": return .aasa(approving: [otherApp])
            default: return .status(404)
            }
        }
        let fixture = GatedFixture(
            directory: directory, server: server, caFile: caFile, store: store, shopFetches: shopFetches)
        try fixture.expect(["init", "--kdf", "interactive"], status: 0)
        try fixture.expect(
            [
                "app", "add", app, "--domain", "webcredentials:shop.example", "--domain",
                "webcredentials:other.example",
                "--domain", "webcredentials:down.example",
            ], status: 0)
        try fixture.expect(["app", "add", otherApp, "--domain", "webcredentials:other.example"], status: 0)
        return fixture
    }

    /// The passphrase of the vault (given through the environment, never argv).
    let passphrase = "gated fixture passphrase 42"

    /// The environment every run gets.
    var environment: [String: String] {
        var environment = ["SWCRED_VAULT": vaultPath, "SWCRED_PASSPHRASE": passphrase]
        if let store { environment["SWCRED_STORE"] = store }
        return environment
    }

    /// `--ca-file` and `--connect-to` rules that send the test hosts to the loopback server
    /// (and `down.example` to a port nothing listens on).
    var networkArguments: [String] {
        [
            "--ca-file", caFile, "--connect-to", server.connectTo("shop.example"), "--connect-to",
            server.connectTo("other.example"), "--connect-to", "down.example:443:127.0.0.1:1",
        ]
    }

    /// Runs the binary; network arguments are appended for commands that take them.
    @discardableResult
    func run(_ arguments: [String], stdin: String? = nil, network: Bool = false) throws -> SwcredProcess.Result {
        let full = arguments + (network ? networkArguments : [])
        argumentLists.append(full)
        let result = try SwcredProcess.run(full, environment: environment, stdin: stdin.map { Data($0.utf8) })
        diagnostics += result.stderr
        return result
    }

    /// Runs the binary and fails unless it exits with `status`.
    @discardableResult
    func expect(
        _ arguments: [String], status: Int32, stdin: String? = nil, network: Bool = false
    ) throws -> SwcredProcess.Result {
        let result = try run(arguments, stdin: stdin, network: network)
        guard result.status == status else {
            throw FixtureError(
                message:
                    "swcred \(arguments.joined(separator: " ")) exited \(result.status), expected \(status): \(result.stderr)"
            )
        }
        return result
    }

    /// Bytes of the vault file and its WAL and shared-memory files.
    func vaultBytes() -> Data {
        ["", "-wal", "-shm"].compactMap { FileManager.default.contents(atPath: vaultPath + $0) }.reduce(Data(), +)
    }

    /// Everything the store holds, as an attacker who reads it sees it: the file's bytes, or every
    /// table of the database as `psql` prints it.
    func storedBytes() throws -> Data {
        guard let store else { return vaultBytes() }
        let tables = try TestPostgres.psql(store, "SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
            .split(separator: "\n")
        return Data(try tables.map { try TestPostgres.psql(store, "SELECT * FROM \($0)") }.joined().utf8)
    }

    /// Runs `sql` on the store behind swcred's back, as its owner could: with `sqlite3` on the
    /// file, or `psql` on the database. `sqlite` and `postgresql` are the same change in each
    /// engine's dialect.
    func tamper(sqlite: String, postgresql: String) throws {
        if let store {
            try TestPostgres.psql(store, postgresql)
            return
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [vaultPath, sqlite]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw FixtureError(message: "sqlite3 exited \(process.terminationStatus) on \(sqlite)")
        }
    }

    /// The two engines the gated suites run on.
    enum Engine: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case sqlite, postgresql
        var testDescription: String { rawValue }

        /// The store URL a fixture on this engine gets: nil for the vault file, a new database.
        func store() throws -> String? {
            self == .postgresql ? try TestPostgres.freshDatabase() : nil
        }
    }

    /// Starts one `swcred serve` per name on this fixture's store and sites (socket
    /// `run-NAME/swcred.sock`, log `service-NAME.log`, then `arguments`), runs `body` with them,
    /// and stops those still running however `body` ends (SIGTERM, as their user would).
    func withServices(
        _ names: [String], arguments: [String] = [], _ body: ([ServiceProcess]) async throws -> Void
    ) async throws {
        var services: [ServiceProcess] = []
        defer { for service in services { _ = service.stop(timeout: 10) } }
        for name in names {
            services.append(
                try ServiceProcess.start(
                    socketPath: directory.path("run-\(name)/swcred.sock"), arguments: networkArguments + arguments,
                    environment: environment, logPath: directory.path("service-\(name).log")))
        }
        try await body(services)
    }

    /// Runs `body` with a new fixture and stops its server however `body` ends.
    static func with(
        store: String? = nil, shopDelay: Int64 = 0, _ body: (GatedFixture) async throws -> Void
    ) async throws {
        let fixture = try await make(store: store, shopDelay: shopDelay)
        do {
            try await body(fixture)
        } catch {
            try? await fixture.server.stop()
            throw error
        }
        try await fixture.server.stop()
    }
}

/// A fixture step that did not go as expected.
struct FixtureError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
