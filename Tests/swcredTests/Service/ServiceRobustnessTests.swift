import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Bad requests and many connections: each answered correctly while the service serves others.
@Suite("swcred serve: bad bodies, slow clients, many connections", .serialized)
struct ServiceRobustnessTests {
    static let app = GatedFixture.app

    @Test(
        "64 KiB + 1, bad JSON, a wrong content type, a missing field and a half-sent request, while others are served")
    func badRequests() async throws {
        try await ServiceFixture.with { fixture in
            try fixture.start(["--body-timeout", "2"])
            let token = try fixture.token()
            let path = "/v1/credentials/request"

            // A half-sent request: headers promise 100 bytes, 10 arrive, then nothing.
            let stalled = try UnixHTTP.connect(fixture.socketPath)
            defer { close(stalled) }
            var head = UnixHTTP.requestBytes(method: "POST", path: path, token: token, body: Data(count: 100))
            head.removeLast(90)
            try UnixHTTP.write(stalled, head)

            let exactly = Data("{\"domain\": \"shop.example\"}".utf8) + Data(repeating: 0x20, count: 64 * 1024 - 26)
            #expect(exactly.count == 64 * 1024)
            #expect(try fixture.call("POST", path, token: token, body: exactly).status == 404, "64 KiB is accepted")
            let tooLarge = try fixture.call("POST", path, token: token, body: exactly + Data(" ".utf8))
            #expect(tooLarge.status == 413)
            #expect(tooLarge.errorCode == "body-too-large")
            let badJSON = try fixture.call("POST", path, token: token, body: Data("{\"domain\": ".utf8))
            #expect(badJSON.status == 400)
            #expect(badJSON.errorCode == "invalid-json")
            let wrongType = try fixture.call(
                "POST", path, token: token, body: Data("domain=shop.example".utf8),
                contentType: "application/x-www-form-urlencoded")
            #expect(wrongType.status == 415)
            #expect(wrongType.errorCode == "unsupported-media-type")
            let parameterised = try fixture.call(
                "POST", path, token: token, body: Data("{\"domain\": \"shop.example\"}".utf8),
                contentType: " Application/JSON ; charset=utf-8")
            #expect(parameterised.status == 404, "JSON spelled otherwise, with a parameter, is still JSON")
            let lookalike = try fixture.call(
                "POST", path, token: token, body: Data("{\"domain\": \"shop.example\"}".utf8),
                contentType: "application/jsonp")
            #expect(lookalike.status == 415, "a type that only starts like JSON is not JSON")
            let missing = try fixture.call("PUT", "/v1/credentials", token: token, json: ["domain": "shop.example"])
            #expect(missing.status == 400)
            #expect(missing.text.contains("missing field \\\"account\\\""))
            let wrongField = try fixture.call("POST", path, token: token, json: ["domain": 7])
            #expect(wrongField.status == 400)
            #expect(wrongField.text.contains("wrong type at \\\"domain\\\""))
            let noBody = try fixture.call("POST", path, token: token, body: Data())
            #expect(noBody.status == 400, "a required body that is absent")
            // The owner's own session, or the route answers 401 before it reads its query.
            let badQuery = try fixture.call("GET", "/v1/consent/next?wait=soon", token: try fixture.ownerSession())
            #expect(badQuery.status == 400 && badQuery.errorCode == "invalid-input")
            #expect(badQuery.text.contains("query parameter"))
            #expect(try fixture.call("GET", "/v1/health").status == 200, "still serving")

            let cutOff = try UnixHTTP.readResponse(stalled)
            #expect(cutOff.status == 408, "the slow client is answered after --body-timeout")
            #expect(cutOff.errorCode == "request-timeout")
            #expect(try fixture.call("GET", "/v1/health").status == 200)
        }
    }

    @Test(
        "a chunked body meets the JSON checks a body with Content-Length meets: size, content type, repeated member, null, depth"
    )
    func chunkedBodies() async throws {
        try await ServiceFixture.with { fixture in
            try fixture.start()
            let token = try fixture.token()
            let path = "/v1/credentials/request"
            let exactly = Data(#"{"domain": "shop.example"}"#.utf8) + Data(repeating: 0x20, count: 64 * 1024 - 26)
            let deep = String(repeating: "[", count: 70) + String(repeating: "]", count: 70)
            let cases: [(body: Data, contentType: String, status: Int, code: String?, names: String?)] = [
                (Data(#"{"domain": "shop.example"}"#.utf8), "application/json", 404, nil, nil),
                (exactly, "application/json", 404, nil, nil),
                (exactly + Data(" ".utf8), "application/json", 413, "body-too-large", nil),
                (
                    Data("domain=shop.example".utf8), "application/x-www-form-urlencoded", 415,
                    "unsupported-media-type", nil
                ),
                (
                    Data(#"{"domain": "shop.example", "domain": "other.example"}"#.utf8), "application/json", 400,
                    "invalid-json", #"member \"domain\" appears more than once"#
                ),
                (Data(#"{"domain": null}"#.utf8), "application/json", 400, "invalid-json", #"\"domain\" is null"#),
                (
                    Data(#"{"domain": "shop.example", "x": \#(deep)}"#.utf8), "application/json", 400, "invalid-json",
                    "nesting deeper than 64 levels"
                ),
            ]
            for (body, contentType, status, code, names) in cases {
                let summary = String(decoding: body.prefix(60), as: UTF8.self)
                let lengthed = try fixture.call("POST", path, token: token, body: body, contentType: contentType)
                let descriptor = try UnixHTTP.connect(fixture.socketPath)
                defer { close(descriptor) }
                try UnixHTTP.write(
                    descriptor,
                    UnixHTTP.chunkedRequestBytes(
                        method: "POST", path: path, token: token, body: body, contentType: contentType))
                let chunked = try UnixHTTP.readResponse(descriptor)
                #expect(chunked.errorCode == lengthed.errorCode, "\(summary): \(chunked.text)")
                for (how, answer) in [("Content-Length", lengthed), ("chunked", chunked)] {
                    #expect(answer.status == status, "\(how), \(summary): \(answer.text)")
                    if let code { #expect(answer.errorCode == code, "\(how), \(summary): \(answer.text)") }
                    if let names { #expect(answer.text.contains(names), "\(how), \(summary): \(answer.text)") }
                }
            }
        }
    }

    @Test(
        "--body-timeout runs from a request's head to its end: a body sent in pieces in time is served, a keep-alive connection is never cut off, a trickled body gets 408 and the connection closes"
    )
    func bodyDeadline() async throws {
        try await ServiceFixture.with { fixture in
            try fixture.start(["--body-timeout", "2"])
            let token = try fixture.token()
            let path = "/v1/credentials/request"
            let body = Data("{\"domain\": \"shop.example\"}".utf8)
            let request = UnixHTTP.requestBytes(method: "POST", path: path, token: token, body: body)
            let headLength = request.count - body.count
            let socketPath = fixture.socketPath
            // The clients sleep on threads of their own: a test's Task.sleep can be held up for
            // seconds while other suites' blocking calls hold the cooperative threads.

            // Complete requests on one keep-alive connection, idle longer than the timeout between
            // them: each request's deadline ends with it, and none cuts the connection off later.
            let keptAlive = try await BackgroundWork { () -> [Int] in
                let connection = try UnixHTTP.connect(socketPath)
                defer { close(connection) }
                var statuses: [Int] = []
                for pause in [2_500_000, 900_000, 0] as [useconds_t] {
                    try UnixHTTP.write(connection, request)
                    statuses.append(try UnixHTTP.readResponse(connection).status)
                    usleep(pause)
                }
                return statuses
            }.value
            #expect(keptAlive == [404, 404, 404], "three requests over 3.4 s on one connection")

            // One body in three pieces, the last 0.5 s after the head: within 2 s, served.
            let inPieces = try await BackgroundWork { () -> Int in
                let connection = try UnixHTTP.connect(socketPath)
                defer { close(connection) }
                try UnixHTTP.write(connection, request.prefix(headLength + 5))
                usleep(250_000)
                try UnixHTTP.write(connection, request.dropFirst(headLength + 5).prefix(5))
                usleep(250_000)
                try UnixHTTP.write(connection, request.dropFirst(headLength + 10))
                return try UnixHTTP.readResponse(connection).status
            }.value
            #expect(inPieces == 404, "a body that arrives whole within 2 s")

            // A body trickled a byte every 0.2 s, whole only after 5 s: 408 when its 2 s have
            // passed, counted from the head, then the connection closes (the rest of that body must
            // never be read as a request).
            let slow = try UnixHTTP.connect(fixture.socketPath)
            defer { close(slow) }
            let start = ContinuousClock.now
            try UnixHTTP.write(slow, request.prefix(headLength + 1))
            let trickle = BackgroundWork { () -> Void in
                for offset in 1..<body.count {
                    usleep(200_000)
                    guard (try? UnixHTTP.write(slow, request.dropFirst(headLength + offset).prefix(1))) != nil else {
                        return
                    }
                }
            }
            let late = try await BackgroundWork { try UnixHTTP.readResponse(slow) }.value
            let waited = ContinuousClock.now - start
            #expect(late.status == 408 && late.errorCode == "request-timeout", "\(late.status) after \(waited)")
            #expect(waited >= .milliseconds(1_900), "answered after \(waited), before its 2 s")
            let closed = try await BackgroundWork { () -> Bool in (try? UnixHTTP.readResponse(slow)) == nil }.value
            #expect(closed, "the connection closes after the 408")
            try await trickle.value
            #expect(try fixture.call("POST", path, token: token, body: body).status == 404, "still serving")
        }
    }

    @Test(
        "an audit entry numbered 2^63-1 planted in either chain: a change gets a 500 naming it, the service stays up and goes on in its own chain, and verify names the planted entry"
    )
    func auditSequenceAtLimit() async throws {
        try await ServiceFixture.with { fixture in
            try fixture.start()
            let token = try fixture.token(["--allow", "add"])
            let put = ["domain": "shop.example", "account": "alice", "password": "Pw-alice-1"]
            // The first is a change (the vault's chain), the second a no-op (the service's own).
            for _ in 0..<2 {
                #expect(try fixture.call("PUT", "/v1/credentials", token: token, json: put).status == 200)
            }
            let sqlite3 = Process()
            sqlite3.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
            sqlite3.arguments = [
                fixture.gated.vaultPath,
                "INSERT INTO audit_log (seq, at, actor, operation, outcome, sealed, tag) VALUES (9223372036854775807, 0, 'owner', 'add', 'done', x'00', zeroblob(32)); INSERT INTO audit_chain_log (chain, seq, at, actor, operation, outcome, sealed, tag) SELECT chain, 9223372036854775807, 0, 'owner', 'add', 'done', x'00', zeroblob(32) FROM audit_chains",
            ]
            try sqlite3.run()
            sqlite3.waitUntilExit()
            #expect(sqlite3.terminationStatus == 0)
            // A change reads the vault chain's last number, and cannot go past it.
            let changed = ["domain": "shop.example", "account": "alice", "password": "Pw-alice-2"]
            for _ in 0..<2 {
                let refused = try fixture.call("PUT", "/v1/credentials", token: token, json: changed)
                #expect(refused.status == 500, "\(refused.text)")
                #expect(try fixture.call("GET", "/v1/health").status == 200)
            }
            #expect(try fixture.running.log.contains("last entry number"))
            // The service's own chain goes on from the head it stored itself: the planted entry
            // is never read, and `audit verify` names it.
            #expect(try fixture.call("PUT", "/v1/credentials", token: token, json: put).status == 200)
            let verified = try fixture.gated.expect(["audit", "verify"], status: 9)
            #expect(verified.stderr.contains("9223372036854775807"), "\(verified.stderr)")
        }
    }

    @Test("repeated failed authentications on one connection are slowed down")
    func failedAuthenticationsSlowDown() async throws {
        try await ServiceFixture.with { fixture in
            try fixture.start()
            let connection = try UnixHTTP.connect(fixture.socketPath)
            defer { close(connection) }
            var times: [Duration] = []
            for _ in 0..<5 {
                let start = ContinuousClock.now
                try UnixHTTP.write(
                    connection,
                    UnixHTTP.requestBytes(
                        method: "POST", path: "/v1/credentials/request",
                        token: "swcred_" + String(repeating: "B", count: 43),
                        body: Data("{}".utf8)))
                #expect(try UnixHTTP.readResponse(connection).status == 401)
                times.append(ContinuousClock.now - start)
            }
            // Penalties of 0, 100, 200, 400 and 800 ms: at least 1.5 s in all.
            #expect(times.reduce(.zero, +) >= .milliseconds(1500), "\(times)")
            #expect(times[4] >= .milliseconds(800))
            let fresh = try fixture.call("GET", "/v1/health")
            #expect(fresh.status == 200, "another connection is not slowed")
        }
    }

    @Test("1,000 concurrent connections are all served")
    func thousandConnections() async throws {
        try await ServiceFixture.with { fixture in
            try fixture.start()
            let token = try fixture.token()
            var limit = rlimit()
            getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
            if limit.rlim_cur < 4096 {
                limit.rlim_cur = min(4096, limit.rlim_max)
                setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
            }
            let count = 1000
            var connections: [Int32] = []
            for _ in 0..<count { connections.append(try UnixHTTP.connect(fixture.socketPath)) }
            defer { for connection in connections { close(connection) } }
            let request = UnixHTTP.requestBytes(
                method: "POST", path: "/v1/passwords/generate", token: token, body: Data("{}".utf8))
            for connection in connections { try UnixHTTP.write(connection, request) }
            var served = 0
            for connection in connections where try UnixHTTP.readResponse(connection).status == 200 { served += 1 }
            #expect(served == count)
        }
    }
}
