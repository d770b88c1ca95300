import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Nothing a request does holds the service: it opens no file that a request names (a key-file
/// vault is unlocked with the key file's bytes in the body, which `swcred unlock --key-file` reads
/// on the client's side), and its shutdown ends within `--shutdown-grace` whatever a request waits for.
@Suite("swcred serve: no request holds the service", .serialized)
struct ServiceUnlockKeyTests {
    @Test("a key-file vault unlocks with its key in the body; a path is refused at once and never opened")
    func keyInTheBody() async throws {
        try await ServiceFixture.with { fixture in
            let directory = fixture.gated.directory
            let environment = ["SWCRED_VAULT": directory.path("key-vault.sqlite")]
            let key = directory.path("vault.key")
            let created = try SwcredProcess.run(["init", "--key-file", key], environment: environment)
            #expect(created.status == 0, "\(created.stderr)")
            let socket = directory.path("key-run/swcred.sock")
            let service = try ServiceProcess.start(
                socketPath: socket, arguments: ["--key-file", key], environment: environment,
                logPath: directory.path("key-service.log"))
            defer { service.stop(timeout: 10) }
            #expect(try UnixHTTP.request(socket, "POST", "/v1/lock").status == 200)

            // A FIFO hangs whoever opens it for reading until a writer comes: the request must
            // not open it at all.
            let fifo = directory.path("key.fifo")
            #expect(mkfifo(fifo, 0o600) == 0)
            let start = ContinuousClock.now
            let named = try UnixHTTP.request(socket, "POST", "/v1/unlock", json: ["key_file": fifo])
            #expect(named.status == 400, "\(named.text)")
            #expect(ContinuousClock.now - start < .seconds(10))
            let writer = open(fifo, O_WRONLY | O_NONBLOCK)
            #expect(writer == -1 && errno == ENXIO, "the service holds the FIFO open for reading")
            if writer >= 0 { close(writer) }

            // Not a key: named as such, with nothing of it in the answer.
            let notKeys = [
                "", "c2hvcnQ", String(repeating: "A", count: 44), String(repeating: "A", count: 42) + "B",
                String(repeating: "A", count: 42) + "+", String(repeating: "A", count: 41) + "==",
            ]
            for text in notKeys {
                let answer = try UnixHTTP.request(socket, "POST", "/v1/unlock", json: ["key": text])
                #expect(answer.status == 400, "\(text): \(answer.text)")
                #expect(text.isEmpty || !answer.text.contains(text), "the answer quotes the key")
            }
            let both = try UnixHTTP.request(
                socket, "POST", "/v1/unlock", json: ["key": String(repeating: "A", count: 43), "passphrase": "x"])
            #expect(both.status == 400, "\(both.text)")
            // 32 zero bytes: a well-formed key, not this vault's.
            let wrong = try UnixHTTP.request(
                socket, "POST", "/v1/unlock", json: ["key": String(repeating: "A", count: 43)])
            #expect(wrong.status == 423, "\(wrong.text)")

            let unlocked = try SwcredProcess.run(
                ["unlock", "--key-file", key, "--socket", socket], environment: environment)
            #expect(unlocked.status == 0, "\(unlocked.stderr)")
            let health = try UnixHTTP.request(socket, "GET", "/v1/health")
            #expect((health.json as? [String: Any])?["locked"] as? Bool == false)
        }
    }

    @Test("SIGTERM while a save waits for a consent nobody gives: the service exits within --shutdown-grace")
    func shutdownIsBounded() async throws {
        try await ServiceFixture.with { fixture in
            try fixture.start(["--consent-timeout", "10m", "--shutdown-grace", "2"])
            let token = try fixture.token(["--consent", "ask"])
            let socket = fixture.socketPath
            let waiting = BackgroundWork<Int?> {
                (try? UnixHTTP.request(
                    socket, "PUT", "/v1/credentials", token: token,
                    json: ["domain": "shop.example", "account": "alice", "password": "Pw-waiting-1"]))?.status
            }
            // The save is in flight once the owner could see it.
            let owner = try fixture.ownerSession()
            #expect(try fixture.call("GET", "/v1/consent/next?wait=10", token: owner).status == 200)
            let start = ContinuousClock.now
            let service = try fixture.running
            let status = service.stop(signal: SIGTERM, timeout: 30)
            let took = ContinuousClock.now - start
            #expect(status == 0, "exit status \(status): \(service.log)")
            #expect(took < .seconds(8), "the shutdown took \(took) with a grace of 2 s")
            // Cancelled, never approved: the save answered with an error or its connection closed.
            let answer = await (try? waiting.value) ?? nil
            #expect(answer != 200, "the save answered \(String(describing: answer))")
        }
    }
}
