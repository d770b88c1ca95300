import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Starting, stopping, locking and sharing the vault with the CLI.
@Suite("swcred serve: start, stop, lock, and the vault shared with the CLI", .serialized)
struct ServiceLifecycleTests {
    static let app = GatedFixture.app

    @Test("a second serve on the same socket is refused while the first lives, and allowed after a SIGKILL")
    func secondServeRefused() async throws {
        try await ServiceFixture.with { fixture in
            try fixture.start()
            let socketMode = try #require(
                try FileManager.default.attributesOfItem(atPath: fixture.socketPath)[.posixPermissions] as? Int)
            #expect(socketMode == 0o600)
            let directoryMode = try #require(
                try FileManager.default.attributesOfItem(
                    atPath: (fixture.socketPath as NSString).deletingLastPathComponent)[
                        .posixPermissions] as? Int)
            #expect(directoryMode == 0o700)

            let second = try ServiceProcess.launch(
                socketPath: fixture.socketPath, arguments: fixture.gated.networkArguments,
                environment: fixture.gated.environment, logPath: fixture.gated.directory.path("second.log"))
            second.waitUntilExit()
            #expect(second.terminationStatus == 11)
            let secondLog = try String(contentsOfFile: fixture.gated.directory.path("second.log"), encoding: .utf8)
            #expect(secondLog.contains("another swcred serve is running on \(fixture.socketPath)"))
            #expect(try fixture.call("GET", "/v1/health").status == 200, "the first still answers")

            #expect(try fixture.running.stop(signal: SIGKILL) == SIGKILL)
            #expect(FileManager.default.fileExists(atPath: fixture.socketPath), "a stale socket stays after SIGKILL")
            try fixture.start()
            #expect(try fixture.call("GET", "/v1/health").status == 200, "the stale socket was replaced")
        }
    }

    /// Issue 30, section 5: these are bad options, not a busy socket (exit 11).
    @Test("a socket directory that is not a directory exits 2 and says so")
    func unusableSocketDirectory() async throws {
        try await GatedFixture.with { gated in
            let file = gated.directory.path("plain-file")
            #expect(FileManager.default.createFile(atPath: file, contents: Data()))
            try Self.expectUnusable(file + "/swcred.sock", "\(file) is not a directory: pass another --socket", gated)
        }
    }

    @Test("a file at the socket's path that is not a socket exits 2, says so, and is left as it was")
    func fileAtSocketPath() async throws {
        try await GatedFixture.with { gated in
            let directory = gated.directory.path("run")
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            let file = directory + "/swcred.sock"
            #expect(FileManager.default.createFile(atPath: file, contents: Data("notes\n".utf8)))
            try Self.expectUnusable(
                file, "\(file) exists and is not a socket: remove it or pass another --socket", gated)
            #expect(FileManager.default.contents(atPath: file) == Data("notes\n".utf8))
        }
    }

    @Test(
        "a socket directory that is another user's exits 2 and says whose",
        .enabled(if: getuid() == 0, "needs root to give a directory to another uid"))
    func foreignSocketDirectory() async throws {
        try await GatedFixture.with { gated in
            let foreign = gated.directory.path("foreign")
            try FileManager.default.createDirectory(
                atPath: foreign, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            #expect(chown(foreign, 65534, 65534) == 0)
            try Self.expectUnusable(
                foreign + "/swcred.sock",
                "the socket directory \(foreign) belongs to uid 65534, not to you: pass another --socket", gated)
        }
    }

    /// Starts the service on `socketPath` and expects exit 2 (bad options) with `message`.
    static func expectUnusable(_ socketPath: String, _ message: String, _ gated: GatedFixture) throws {
        let refused = try ServiceProcess.refusal(
            socketPath: socketPath, arguments: gated.networkArguments, environment: gated.environment,
            logPath: gated.directory.path("refused.log"))
        #expect(refused.status == 2, "\(socketPath): \(refused.log)")
        #expect(refused.log.contains("swcred serve: \(message)\n"), "\(refused.log)")
    }

    @Test("SIGTERM under load: every acknowledged write is in the vault, exit 0, socket removed")
    func sigtermUnderLoad() async throws {
        try await ServiceFixture.with { fixture in
            try fixture.start()
            let token = try fixture.token()
            let acknowledged = try await writeUnderLoad(fixture, token: token, stopWith: SIGTERM, expectStatus: 0)
            #expect(!FileManager.default.fileExists(atPath: fixture.socketPath))
            try expectPresent(acknowledged, fixture: fixture)
        }
    }

    @Test("SIGKILL under load: integrity_check is ok and every acknowledged write is present")
    func sigkillUnderLoad() async throws {
        try await ServiceFixture.with { fixture in
            try fixture.start()
            let token = try fixture.token()
            let acknowledged = try await writeUnderLoad(fixture, token: token, stopWith: SIGKILL, expectStatus: SIGKILL)
            let check = Process()
            check.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
            check.arguments = [fixture.gated.vaultPath, "PRAGMA integrity_check;"]
            let output = Pipe()
            check.standardOutput = output
            try check.run()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            check.waitUntilExit()
            #expect(text == "ok\n")
            try expectPresent(acknowledged, fixture: fixture)
        }
    }

    /// Eight writers add credentials until the service is stopped with `signal`; returns the
    /// accounts whose write was acknowledged with 200.
    private func writeUnderLoad(
        _ fixture: ServiceFixture, token: String, stopWith signal: Int32, expectStatus: Int32
    ) async throws -> [String] {
        let socketPath = fixture.socketPath
        let service = try fixture.running
        let writers = (0..<8).map { writer in
            BackgroundWork<[String]> {
                var acknowledged: [String] = []
                for index in 0..<100_000 {
                    let account = "load-\(writer)-\(index)"
                    guard
                        let response = try? UnixHTTP.request(
                            socketPath, "PUT", "/v1/credentials", token: token,
                            json: ["domain": "shop.example", "account": account, "password": "Pw-\(account)"])
                    else { break }
                    if response.status == 200 { acknowledged.append(account) }
                }
                return acknowledged
            }
        }
        try await Task.sleep(for: .seconds(2))
        let status = service.stop(signal: signal)
        #expect(
            status == expectStatus,
            "\(service.log.split(separator: "\n").filter { $0.contains("Fatal") || $0.contains("error") }.prefix(20))\n\(service.log.suffix(2000))"
        )
        var all: [String] = []
        for writer in writers { all += try await writer.value }
        #expect(all.count > 8, "the load wrote something before the signal")
        return all
    }

    private func expectPresent(_ accounts: [String], fixture: ServiceFixture) throws {
        let released = try fixture.gated.expect(
            ["request", "--app", Self.app, "--domain", "shop.example", "--all", "--offline"], status: 0, network: true)
        let saved = Set(released.stdout.split(separator: "\n").map { $0.split(separator: "\t")[1] }.map(String.init))
        let missing = accounts.filter { !saved.contains($0) }
        #expect(missing.isEmpty, "acknowledged but missing: \(missing.prefix(5))")
    }

    @Test("lock, unlock with a wrong then the right passphrase, idle lock after --lock-after")
    func lockAndUnlock() async throws {
        try await ServiceFixture.with { fixture in
            try fixture.start(["--lock-after", "2s"])
            let token = try fixture.token()
            let body: [String: Any] = ["domain": "shop.example"]
            #expect(try fixture.call("POST", "/v1/credentials/request", token: token, json: body).status == 404)
            let locked = try fixture.call("POST", "/v1/lock")
            #expect(locked.status == 200)
            let refused = try fixture.call("POST", "/v1/credentials/request", token: token, json: body)
            #expect(refused.status == 423)
            #expect(refused.errorCode == "vault-locked")
            #expect((try fixture.call("GET", "/v1/health").json as? [String: Any])?["locked"] as? Bool == true)
            let cli = try fixture.runThroughService(
                ["request", "--app", Self.app, "--domain", "shop.example"], token: token)
            #expect(cli.status == 7)

            let wrong = try fixture.call("POST", "/v1/unlock", json: ["passphrase": "not the passphrase"])
            #expect(wrong.status == 423)
            #expect(!wrong.text.contains("not the passphrase"))
            #expect(try fixture.call("POST", "/v1/credentials/request", token: token, json: body).status == 423)
            let right = try fixture.call("POST", "/v1/unlock", json: ["passphrase": fixture.gated.passphrase])
            #expect(right.status == 200)
            #expect(try fixture.call("POST", "/v1/credentials/request", token: token, json: body).status == 404)

            try await Task.sleep(for: .seconds(4))
            #expect(try fixture.call("POST", "/v1/credentials/request", token: token, json: body).status == 423)
            #expect(try fixture.running.log.contains("vault locked after idle time"))
            #expect(!(try fixture.running.log.contains(fixture.gated.passphrase)))
        }
    }

    @Test("--lock-after counts from the last request: a vault in use stays unlocked past it, then locks when idle")
    func idleLockSparesAVaultInUse() async throws {
        try await ServiceFixture.with { fixture in
            try fixture.start(["--lock-after", "2s"])
            let token = try fixture.token()
            let body: [String: Any] = ["domain": "shop.example"]
            // A request every half second for twice the idle time: each finds the vault open.
            for _ in 0..<8 {
                try await Task.sleep(for: .milliseconds(500))
                #expect(try fixture.call("POST", "/v1/credentials/request", token: token, json: body).status == 404)
            }
            #expect(!(try fixture.running.log.contains("vault locked after idle time")))
            try await Task.sleep(for: .seconds(4))
            #expect(try fixture.call("POST", "/v1/credentials/request", token: token, json: body).status == 423)
        }
    }

    @Test("the CLI writes the vault directly while the service runs; both see every write")
    func cliAndServiceShareTheVault() async throws {
        try await ServiceFixture.with { fixture in
            try fixture.start()
            let token = try fixture.token()
            for index in 0..<5 {
                let direct = try fixture.gated.run(
                    [
                        "add", "--app", Self.app, "--domain", "shop.example", "--account", "direct-\(index)",
                        "--password-stdin",
                        "--yes",
                    ], stdin: "Pw-direct-\(index)", network: true)
                #expect(direct.status == 0, "\(direct.stderr)")
                let served = try fixture.call(
                    "PUT", "/v1/credentials", token: token,
                    json: ["domain": "shop.example", "account": "served-\(index)", "password": "Pw-served-\(index)"])
                #expect(served.status == 200)
            }
            let released = try fixture.call(
                "POST", "/v1/credentials/request", token: token, json: ["domain": "shop.example"])
            #expect((released.json as? [[String: Any]])?.count == 10)
            let direct = try fixture.gated.expect(
                ["request", "--app", Self.app, "--domain", "shop.example", "--all"], status: 0, network: true)
            #expect(direct.stdout.split(separator: "\n").count == 10)
        }
    }

    @Test("rekey by the CLI while the service runs: the service locks itself and never writes with the old key")
    func rekeyWhileRunning() async throws {
        try await ServiceFixture.with { fixture in
            try fixture.start()
            let token = try fixture.token()
            let save: [String: Any] = ["domain": "shop.example", "account": "before", "password": "Pw-before-1"]
            #expect(try fixture.call("PUT", "/v1/credentials", token: token, json: save).status == 200)
            try fixture.gated.expect(["rekey"], status: 0)
            let after = try fixture.call(
                "PUT", "/v1/credentials", token: token,
                json: ["domain": "shop.example", "account": "after", "password": "Pw-after-1"])
            #expect(after.status == 423, "\(after.text)")
            #expect(after.text.contains("rotated by another process"))
            #expect((try fixture.call("GET", "/v1/health").json as? [String: Any])?["locked"] as? Bool == true)
            let unlocked = try fixture.call("POST", "/v1/unlock", json: ["passphrase": fixture.gated.passphrase])
            #expect(unlocked.status == 200)
            let fresh = try fixture.token()
            #expect(try fixture.call("PUT", "/v1/credentials", token: fresh, json: save).status == 200)
            let released = try fixture.gated.expect(
                ["request", "--app", Self.app, "--domain", "shop.example", "--all"], status: 0, network: true)
            #expect(released.stdout == "shop.example\tbefore\tPw-before-1\n", "nothing was written with the old key")
        }
    }
}
