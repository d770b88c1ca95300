import Foundation
import SharedWebCredentials
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The service as a boundary between apps and the owner (issue 28): the owner's routes need the
/// owner (the passphrase's proof, the own uid, the socket), never an app's token.
@Suite("swcred serve: the owner's routes are the owner's", .serialized)
struct ServiceOwnerBoundaryTests {
    /// A release by a `--consent ask` token, in the background: it waits for the owner.
    private func release(_ fixture: ServiceFixture, token: String) -> BackgroundWork<UnixHTTP.Response> {
        let socket = fixture.socketPath
        return BackgroundWork {
            try UnixHTTP.request(
                socket, "POST", "/v1/credentials/request", token: token, json: ["domain": "shop.example"])
        }
    }

    /// Saves a password for `shop.example` through a token that needs no consent.
    private func savePassword(_ fixture: ServiceFixture) throws {
        let saver = try fixture.token()
        let saved = try fixture.call(
            "PUT", "/v1/credentials", token: saver,
            json: ["domain": "shop.example", "account": "alice", "password": "Released-Only-With-Consent-1"])
        #expect(saved.status == 200, "\(saved.text)")
    }

    @Test("an app cannot answer its own consent prompt, with its token or with none; the release is declined")
    func appCannotApproveItself() async throws {
        try await ServiceFixture.with { fixture in
            try fixture.start(["--consent-timeout", "4s"])
            try savePassword(fixture)
            let token = try fixture.token(["--consent", "ask"])
            let pending = release(fixture, token: token)
            try await Task.sleep(for: .milliseconds(500))

            // The attack as found: the app itself (its token) and then any process (no token)
            // asks for the waiting request and approves it.
            let withToken = try fixture.call("GET", "/v1/consent/next?wait=2", token: token)
            #expect(withToken.status == 403, "\(withToken.text)")
            #expect(withToken.errorCode == "owner-only")
            let withNothing = try fixture.call("GET", "/v1/consent/next?wait=2")
            #expect(withNothing.status == 401, "\(withNothing.text)")
            #expect(withNothing.errorCode == "invalid-owner-session")
            #expect(!withNothing.text.contains("alice") && !withNothing.text.contains(GatedFixture.app))
            for authorization in [token, nil] {
                let answered = try fixture.call(
                    "POST", "/v1/consent/answer", token: authorization, json: ["id": "guessed", "approve": true])
                #expect([401, 403].contains(answered.status), "\(answered.text)")
            }
            let forged = try fixture.call(
                "GET", "/v1/consent/next", token: "owner_" + String(repeating: "A", count: 43))
            #expect(forged.status == 401 && forged.errorCode == "invalid-owner-session")

            let answer = try await pending.value
            #expect(answer.status == 403, "the release waited for the owner and was declined: \(answer.text)")
            #expect(answer.errorCode == "declined")
            #expect(!answer.text.contains("Released-Only-With-Consent-1"))
        }
    }

    @Test("the owner's proof: a session for the right one; a wrong, replayed or stale one is refused")
    func ownerProof() async throws {
        try await ServiceFixture.with { fixture in
            try fixture.start(["--consent-timeout", "10s"])
            let session = try fixture.ownerSession()
            #expect(session.hasPrefix("owner_"))
            #expect(try fixture.call("GET", "/v1/consent/next", token: session).status == 204)

            let challenge = try fixture.call("POST", "/v1/owner/challenge")
            let text = try #require((challenge.json as? [String: Any])?["challenge"] as? String)
            let wrong = try fixture.call(
                "POST", "/v1/owner/session",
                json: ["challenge": text, "proof": String(repeating: "A", count: 43)])
            #expect(wrong.status == 403 && wrong.errorCode == "owner-proof-failed", "\(wrong.text)")
            let replayed = try fixture.call(
                "POST", "/v1/owner/session",
                json: ["challenge": text, "proof": String(repeating: "A", count: 43)])
            #expect(replayed.errorCode == "owner-proof-failed")
            #expect(replayed.text.contains("unknown, used or expired"), "a challenge is single use: \(replayed.text)")
            let malformed = try fixture.call("POST", "/v1/owner/session", json: ["challenge": "x", "proof": "y"])
            #expect(malformed.status == 400)

            // Locking ends every session: the next unlock needs a new proof.
            #expect(try fixture.call("POST", "/v1/lock").status == 200)
            #expect(try fixture.call("GET", "/v1/consent/next", token: session).status == 423)
            #expect(try fixture.call("POST", "/v1/owner/challenge").status == 423)
            let unlocked = try fixture.call("POST", "/v1/unlock", json: ["passphrase": fixture.gated.passphrase])
            #expect(unlocked.status == 200)
            let stale = try fixture.call("GET", "/v1/consent/next", token: session)
            #expect(stale.status == 401 && stale.errorCode == "invalid-owner-session")
            #expect(try fixture.call("GET", "/v1/consent/next", token: try fixture.ownerSession()).status == 204)
        }
    }

    @Test("an app token never reaches the owner's routes, even from the owner's uid")
    func appTokenIsNeverTheOwner() async throws {
        try await ServiceFixture.with { fixture in
            try fixture.start()
            let token = try fixture.token()
            let routes: [(String, String, [String: Any]?)] = [
                ("POST", "/v1/lock", nil), ("POST", "/v1/unlock", ["passphrase": fixture.gated.passphrase]),
                ("GET", "/v1/consent/next", nil), ("POST", "/v1/consent/answer", ["id": "x", "approve": true]),
                ("POST", "/v1/owner/challenge", nil),
                ("POST", "/v1/owner/session", ["challenge": "x", "proof": "y"]),
            ]
            for (method, path, body) in routes {
                let answer = try fixture.call(method, path, token: token, json: body)
                #expect(answer.status == 403, "\(path): \(answer.text)")
                #expect(answer.errorCode == "owner-only", "\(path)")
            }
            #expect((try fixture.call("GET", "/v1/health").json as? [String: Any])?["locked"] as? Bool == false)
        }
    }

    @Test("failed unlocks slow down every later one, each on a new connection; a success resets it")
    func unlockThrottleIsServiceWide() async throws {
        try await ServiceFixture.with { fixture in
            try fixture.start()
            #expect(try fixture.call("POST", "/v1/lock").status == 200)
            var times: [Duration] = []
            for guess in 1...5 {
                let start = ContinuousClock.now
                let wrong = try fixture.call("POST", "/v1/unlock", json: ["passphrase": "guess number \(guess)"])
                times.append(ContinuousClock.now - start)
                #expect(wrong.status == 423)
            }
            // Waits of 0, 0.25, 0.5, 1 and 2 s before the guesses, each on its own connection. Each
            // wait starts when the guess before it failed, a moment before its answer reached us,
            // so only lower bounds (less a little for that moment) hold on a loaded machine.
            let waits: [Duration] = [.zero, .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2)]
            for (guess, wait) in waits.enumerated() {
                #expect(times[guess] >= wait - .milliseconds(50), "guess \(guess + 1) waited: \(times)")
            }
            let right = try fixture.call("POST", "/v1/unlock", json: ["passphrase": fixture.gated.passphrase])
            #expect(right.status == 200)
            #expect(try fixture.call("POST", "/v1/lock").status == 200)
            // After the reset, a failure makes the next attempt wait 0.25 s again; without it, the
            // sixth failure in a row would make it wait 8 s.
            _ = try fixture.call("POST", "/v1/unlock", json: ["passphrase": "after a success"])
            let start = ContinuousClock.now
            _ = try fixture.call("POST", "/v1/unlock", json: ["passphrase": "and once more"])
            #expect(ContinuousClock.now - start < .seconds(3), "a success reset the throttle")
        }
    }

    /// Sends `passphrases` to `/v1/unlock` side by side, each on its own connection, the n-th
    /// 20 ms after the one before so that they reserve their turns in that order; returns each
    /// answer's status and when it came, from `start`.
    private static func unlockBurst(
        _ fixture: ServiceFixture, _ passphrases: [String], from start: ContinuousClock.Instant
    ) async throws -> [(status: Int, after: Duration)] {
        let socket = fixture.socketPath
        let guesses = passphrases.enumerated().map { index, passphrase in
            BackgroundWork<(status: Int, after: Duration)> {
                Thread.sleep(forTimeInterval: 0.02 * Double(index))
                let answer = try UnixHTTP.request(socket, "POST", "/v1/unlock", json: ["passphrase": passphrase])
                return (answer.status, ContinuousClock.now - start)
            }
        }
        var answers: [(status: Int, after: Duration)] = []
        for guess in guesses { answers.append(try await guess.value) }
        return answers
    }

    /// When the n-th guess of a burst may be checked at the earliest: the waits after 1, 2, 3
    /// failures (0.25, 0.5, 1 s) added up, less 50 ms for the clocks.
    private static let burstTurns: [Duration] = [.zero, .milliseconds(200), .milliseconds(700), .milliseconds(1700)]

    @Test(
        "a burst of wrong unlocks side by side waits as guesses in a row do; the right passphrase after it works in its turn"
    )
    func unlockBurstIsSpaced() async throws {
        try await ServiceFixture.with { fixture in
            try fixture.start()
            #expect(try fixture.call("POST", "/v1/lock").status == 200)
            let start = ContinuousClock.now
            // Which guess takes which turn is the scheduler's choice; the turns are not.
            let answers = try await Self.unlockBurst(fixture, (1...4).map { "guess number \($0)" }, from: start)
            #expect(answers.allSatisfy { $0.status == 423 }, "\(answers)")
            let wrong = answers.map(\.after).sorted()
            for (guess, turn) in Self.burstTurns.enumerated() {
                #expect(wrong[guess] >= turn, "guess \(guess + 1) of the burst answered after \(wrong[guess])")
            }
            // The right passphrase, sent as the burst's last answer arrives, waits its turn (the
            // fourth failure's wait of 2 s, 3.75 s after the burst began) and then unlocks.
            let right = try fixture.call("POST", "/v1/unlock", json: ["passphrase": fixture.gated.passphrase])
            let answered = ContinuousClock.now - start
            #expect(right.status == 200, "the right passphrase: \(right.text)")
            #expect(answered >= .milliseconds(3700), "the right passphrase answered after \(answered)")
            #expect((try fixture.call("GET", "/v1/health").json as? [String: Any])?["locked"] as? Bool == false)
        }
    }

    @Test("the count of wrong unlocks is kept in the vault: a restarted service makes the next guess wait its turn")
    func unlockThrottleSurvivesRestart() async throws {
        try await ServiceFixture.with { fixture in
            try fixture.start()
            #expect(try fixture.call("POST", "/v1/lock").status == 200)
            let start = ContinuousClock.now
            let answers = try await Self.unlockBurst(fixture, (1...5).map { "guess number \($0)" }, from: start)
            #expect(answers.allSatisfy { $0.status == 423 }, "\(answers)")
            #expect(try fixture.running.stop() == 0)
            try fixture.start()
            #expect(try fixture.call("POST", "/v1/lock").status == 200)
            let wrong = try fixture.call("POST", "/v1/unlock", json: ["passphrase": "after the restart"])
            #expect(wrong.status == 423)
            // The sixth guess: its turn is 4 s after the fifth failure, whose own turn came 3.75 s
            // after the burst began (a fresh count would have answered it at once).
            let answered = ContinuousClock.now - start
            #expect(answered >= .milliseconds(7700), "the first guess after the restart answered after \(answered)")
        }
    }

    @Test("floods of owner challenges from other processes never evict the one the owner is answering")
    func challengeFloodKeepsOwnersChallenge() async throws {
        try await ServiceFixture.with { fixture in
            try fixture.start()
            let challenge = try fixture.call("POST", "/v1/owner/challenge")
            let text = try #require((challenge.json as? [String: Any])?["challenge"] as? String)
            /// `processes` processes of the same uid each ask for `each` challenges, on a
            /// connection apiece; returns how many were made and how many refused.
            func flood(processes: Int, each: Int) throws -> (made: Int, refused: Int) {
                let script = """
                    import http.client, os, socket, sys
                    class C(http.client.HTTPConnection):
                        def connect(self):
                            self.sock = socket.socket(socket.AF_UNIX); self.sock.connect(sys.argv[1])
                    children = []
                    for _ in range(\(processes)):
                        reader, writer = os.pipe()
                        if os.fork() == 0:
                            os.close(reader)
                            statuses = []
                            for _ in range(\(each)):
                                c = C("localhost"); c.request("POST", "/v1/owner/challenge")
                                statuses.append(c.getresponse().status)
                            os.write(writer, " ".join(map(str, statuses)).encode()); os._exit(0)
                        os.close(writer); children.append(reader)
                    statuses = []
                    for reader in children:
                        statuses += os.read(reader, 65536).decode().split(); os.wait()
                    print(statuses.count("200"), statuses.count("503"))
                    """
                let run = try Self.run("/usr/bin/python3", ["-c", script, fixture.socketPath])
                #expect(run.status == 0, "\(run.output)")
                let counts = run.output.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
                return (counts.first ?? -1, counts.last ?? -1)
            }
            // One process cannot fill the table: it keeps only its last four.
            #expect(try flood(processes: 1, each: 200) == (200, 0))
            #expect(try fixture.call("POST", "/v1/owner/challenge").status == 200, "one process filled the table")
            // Many processes fill it, to its 64 places: later challenges are refused, none is
            // evicted. Six wait already: the test process's two and the first flood's last four.
            let many = try flood(processes: 16, each: 4)
            #expect(many == (64 - 6, 6), "16 processes of 4 challenges, 58 places left: \(many)")
            let vault = try Vault.open(
                at: fixture.gated.vaultPath, secret: .passphrase(SecureBytes(utf8: fixture.gated.passphrase)))
            let proof = OwnerProof.text(vault.ownerProof(answering: try #require(OwnerProof.bytes(fromText: text))))
            let session = try fixture.call("POST", "/v1/owner/session", json: ["challenge": text, "proof": proof])
            #expect(session.status == 200, "the owner's challenge was evicted by the flood: \(session.text)")
        }
    }

    @Test("a member repeated in a request body is refused, named, before any decoder reads it")
    func duplicateMembers() async throws {
        try await ServiceFixture.with { fixture in
            try fixture.start()
            let token = try fixture.token()
            let bodies = [
                #"{"domain": "shop.example", "domain": "other.example"}"#,
                #"{"domain": "shop.example", "dom\u0061in": "other.example"}"#,
                #"{"domain": "shop.example", "account": "a", "password": "p", "account": "b"}"#,
            ]
            for (index, text) in bodies.enumerated() {
                let path = index == 2 ? "/v1/credentials" : "/v1/credentials/request"
                let answer = try fixture.call(index == 2 ? "PUT" : "POST", path, token: token, body: Data(text.utf8))
                #expect(answer.status == 400, "\(text): \(answer.text)")
                #expect(answer.errorCode == "invalid-json")
                let member = index == 2 ? "account" : "domain"
                #expect(answer.text.contains("member \\\"\(member)\\\" appears more than once"), "\(answer.text)")
            }
            let nested = try fixture.call(
                "POST", "/v1/owner/session", body: Data(#"{"challenge": "a", "proof": "b", "proof": "c"}"#.utf8))
            #expect(nested.status == 400 && nested.errorCode == "invalid-json", "owner routes too: \(nested.text)")
        }
    }

    @Test(
        "/metrics on the TLS listener needs a metrics token, never an app's, unless --metrics-without-token; the owner's routes are refused there, 401 without Authorization where they take an owner session"
    )
    func tcpListener() async throws {
        for open in [false, true] {
            try await ServiceFixture.with { fixture in
                let ca = try TestCertificateAuthority()
                let caFile = try ca.writePEM(into: fixture.gated.directory, name: "service-ca.pem")
                let files = try ca.issue(for: ["localhost"]).writePEM(into: fixture.gated.directory, name: "service")
                let port = try ServiceTLSTests.freePort()
                try fixture.start(
                    ["--listen", "127.0.0.1:\(port)", "--tls-cert", files.certificate, "--tls-key", files.key]
                        + (open ? ["--metrics-without-token"] : []))
                let token = try fixture.token()
                func curl(_ method: String, _ path: String, token: String? = nil) throws -> String {
                    var arguments = ["-s", "--cacert", caFile, "-X", method, "-w", "\n%{http_code}"]
                    if method == "POST" { arguments += ["-H", "Content-Type: application/json", "-d", "{}"] }
                    if let token { arguments += ["-H", "Authorization: Bearer \(token)"] }
                    return try Self.run("/usr/bin/curl", arguments + ["https://localhost:\(port)\(path)"]).output
                }
                let anonymous = try curl("GET", "/metrics")
                if open {
                    #expect(anonymous.hasSuffix("\n200"), "\(anonymous)")
                } else {
                    #expect(anonymous.hasSuffix("\n401") && anonymous.contains("invalid-token"), "\(anonymous)")
                    // The metrics count every app's requests and the owner's consent decisions:
                    // an app's token does not see them, a token made for monitoring does.
                    let byApp = try curl("GET", "/metrics", token: token)
                    #expect(byApp.hasSuffix("\n403") && byApp.contains("permission-denied"), "\(byApp)")
                    let monitoring = try fixture.token(["--allow", "metrics"])
                    let scraped = try curl("GET", "/metrics", token: monitoring)
                    #expect(scraped.hasSuffix("\n200") && scraped.contains("swcred_vault_locked"), "\(scraped)")
                }
                #expect(try fixture.call("GET", "/metrics").status == 200, "open to the owner's uid on the socket")
                for (method, path) in [
                    ("POST", "/v1/lock"), ("POST", "/v1/unlock"), ("GET", "/v1/consent/next"),
                    ("POST", "/v1/consent/answer"), ("POST", "/v1/owner/challenge"), ("POST", "/v1/owner/session"),
                ] {
                    // No credential at all is 401 where the route takes an owner session, as HTTP
                    // answers a request without authentication; with one, TCP is refused as such.
                    let anonymous = try curl(method, path)
                    if path.hasPrefix("/v1/consent/") {
                        #expect(
                            anonymous.hasSuffix("\n401") && anonymous.contains("invalid-owner-session")
                                && anonymous.contains("Unix socket only"), "\(path) on TCP: \(anonymous)")
                    } else {
                        #expect(
                            anonymous.hasSuffix("\n403") && anonymous.contains("owner-only"),
                            "\(path) on TCP: \(anonymous)")
                    }
                    let session = try curl(method, path, token: "owner_" + String(repeating: "A", count: 43))
                    #expect(session.hasSuffix("\n403") && session.contains("owner-only"), "\(path) on TCP: \(session)")
                }
            }
        }
    }

    /// Runs a program to its end and returns its exit status and standard output.
    static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
