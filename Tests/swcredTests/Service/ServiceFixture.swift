import Foundation
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A ``GatedFixture`` (vault, apps, HTTPS sites on loopback) with `swcred serve` running on a
/// temporary socket, and helpers to make tokens and call the service.
final class ServiceFixture {
    let gated: GatedFixture
    let socketPath: String
    let logPath: String
    private(set) var service: ServiceProcess?

    private init(gated: GatedFixture) {
        self.gated = gated
        socketPath = gated.directory.path("run/swcred.sock")
        logPath = gated.directory.path("service.log")
    }

    /// Starts the service with the fixture's network arguments and `arguments`, and `environment`
    /// added to the fixture's.
    func start(_ arguments: [String] = [], environment: [String: String] = [:]) throws {
        service = try ServiceProcess.start(
            socketPath: socketPath, arguments: gated.networkArguments + arguments,
            environment: gated.environment.merging(environment) { _, added in added }, logPath: logPath)
    }

    /// The running service.
    var running: ServiceProcess {
        get throws {
            guard let service else { throw FixtureError(message: "the service is not running") }
            return service
        }
    }

    /// Makes a token with `swcred app token create` and returns its text.
    func token(app: String = GatedFixture.app, _ options: [String] = []) throws -> String {
        try tokenWithID(app: app, options).token
    }

    /// Makes a token and returns its text and its id (from the confirmation on standard error).
    func tokenWithID(app: String = GatedFixture.app, _ options: [String] = []) throws -> (token: String, id: String) {
        let created = try gated.expect(["app", "token", "create", app] + options, status: 0)
        let words = created.stderr.split(separator: " ")
        guard words.count > 3, words[1] == "created", words[2] == "token" else {
            throw FixtureError(message: "unexpected confirmation: \(created.stderr)")
        }
        return (created.stdout.trimmingCharacters(in: .newlines), String(words[3]))
    }

    /// An owner session, from the owner's proof with the fixture's vault and passphrase.
    func ownerSession() throws -> String {
        try OwnerSession.open(socketPath: socketPath, vaultPath: gated.vaultPath, passphrase: gated.passphrase)
    }

    /// One request to the service.
    func call(
        _ method: String, _ path: String, token: String? = nil, json: Any? = nil, body: Data? = nil,
        contentType: String? = "application/json"
    ) throws -> UnixHTTP.Response {
        try UnixHTTP.request(
            socketPath, method, path, token: token, json: json, body: body, contentType: contentType)
    }

    /// Runs the CLI through the service with `token` in SWCRED_TOKEN (never argv).
    func runThroughService(
        _ arguments: [String], token: String, stdin: String? = nil, extraEnvironment: [String: String] = [:]
    ) throws -> SwcredProcess.Result {
        var environment = ["SWCRED_SERVER": socketPath, "SWCRED_TOKEN": token]
        environment.merge(extraEnvironment) { _, new in new }
        return try SwcredProcess.run(arguments, environment: environment, stdin: stdin.map { Data($0.utf8) })
    }

    /// Runs `body` with a new fixture, stopping the service and the sites however it ends.
    static func with(_ body: (ServiceFixture) async throws -> Void) async throws {
        try await GatedFixture.with { gated in
            let fixture = ServiceFixture(gated: gated)
            defer { fixture.service?.stop(timeout: 10) }
            try await body(fixture)
        }
    }
}

extension GatedFixture {
    /// A copy of the fixture's vault in a new directory that `uid` owns (0755, so that its
    /// socket directory can be made there), for a service run as another user.
    func copyOfVault(ownedBy uid: UInt32, prefix: String) throws -> (home: TemporaryDirectory, vault: String) {
        let home = try TemporaryDirectory(prefix: prefix)
        chown(home.url.path, uid, uid)
        chmod(home.url.path, 0o755)
        let vault = home.path("vault.sqlite")
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: vaultPath + suffix) {
            try FileManager.default.copyItem(atPath: vaultPath + suffix, toPath: vault + suffix)
            chown(vault + suffix, uid, uid)
        }
        return (home, vault)
    }
}
