import Foundation
import TestSupport
import Testing

/// Issue 30, section 6: each app route checks its own permission, and answers for the token's
/// app only. Every test here fails when one route's check is removed (the mutants
/// `service-*-without-permission` and `service-associations-of-every-app` in Tests/Mutants).
@Suite("swcred serve: each route's permission and scope", .serialized)
struct ServiceScopeTests {
    static let app = GatedFixture.app
    static let otherApp = GatedFixture.otherApp

    @Test("GET /v1/associations answers each token with its own app's verdicts only")
    func associationsOfTheTokensAppOnly() async throws {
        try await ServiceFixture.with { fixture in
            try fixture.start()
            let mine = try fixture.token(["--allow", "request"])
            let theirs = try fixture.token(app: Self.otherApp, ["--allow", "request"])
            // Verdicts for both apps: shop.example approves the app, other.example only the other app.
            for (token, domain, status) in [
                (mine, "shop.example", 404), (mine, "other.example", 403), (theirs, "other.example", 404),
            ] {
                let response = try fixture.call(
                    "POST", "/v1/credentials/request", token: token, json: ["domain": domain])
                #expect(response.status == status, "\(domain): \(response.text)")
            }
            func verdicts(_ token: String, query: String = "") throws -> [String] {
                let response = try fixture.call("GET", "/v1/associations\(query)", token: token)
                #expect(response.status == 200, "\(response.text)")
                let rows = try #require(response.json as? [[String: Any]], "\(response.text)")
                return rows.map {
                    "\($0["app"] as? String ?? "?") \($0["domain"] as? String ?? "?") \($0["verdict"] as? String ?? "?")"
                }
                .sorted()
            }
            #expect(
                try verdicts(mine) == ["\(Self.app) other.example denied", "\(Self.app) shop.example approved"])
            #expect(try verdicts(theirs) == ["\(Self.otherApp) other.example approved"])
            #expect(try verdicts(mine, query: "?app=\(Self.app)").count == 2)
            let claimed = try fixture.call("GET", "/v1/associations?app=\(Self.otherApp)", token: mine)
            #expect(claimed.status == 401, "naming another app is refused: \(claimed.text)")
            #expect(claimed.text.contains("belongs to \(Self.app), not to \(Self.otherApp)"), "\(claimed.text)")
        }
    }

    @Test(
        "two apps, a credential at each one's site: each token's request, for a domain or every one, releases its own app's only"
    )
    func twoAppsTwoSites() async throws {
        try await ServiceFixture.with { fixture in
            try fixture.start()
            // The app names shop.example and other.example, but only shop.example approves it; the
            // other app names other.example only, which approves it.
            for (site, account, password) in [
                ("shop.example", "alice", "Pw-of-shop-1"), ("other.example", "bob", "Pw-of-other-2"),
            ] {
                try fixture.gated.expect(
                    ["item", "set", site, "--account", account, "--password-stdin", "--yes"], status: 0,
                    stdin: password)
            }
            let mine = try fixture.token(["--allow", "request"])
            let theirs = try fixture.token(app: Self.otherApp, ["--allow", "request"])
            for (token, whose, own, other) in [
                (mine, "the app", "Pw-of-shop-1", "Pw-of-other-2"),
                (theirs, "the other app", "Pw-of-other-2", "Pw-of-shop-1"),
            ] {
                let everywhere = try fixture.call("POST", "/v1/credentials/request", token: token, json: [:])
                #expect(everywhere.status == 200, "\(whose): \(everywhere.text)")
                #expect(
                    everywhere.text.contains(own) && !everywhere.text.contains(other),
                    "\(whose), every domain: \(everywhere.text)")
            }
            for (token, domain, status) in [
                (mine, "shop.example", 200), (mine, "other.example", 403), (theirs, "other.example", 200),
                (theirs, "shop.example", 403),
            ] {
                let response = try fixture.call(
                    "POST", "/v1/credentials/request", token: token, json: ["domain": domain])
                #expect(response.status == status, "\(domain): \(response.text)")
                let expected = domain == "shop.example" ? "Pw-of-shop-1" : "Pw-of-other-2"
                #expect(response.text.contains(expected) == (status == 200), "\(domain): \(response.text)")
            }
        }
    }

    @Test("each gated route refuses a token without its permission (403), and changes nothing")
    func eachRouteChecksItsPermission() async throws {
        try await ServiceFixture.with { fixture in
            try fixture.start()
            let all = try fixture.token()
            let credential: [String: Any] = ["domain": "shop.example", "account": "alice", "password": "Pw-kept-4417"]
            let saved = try fixture.call("PUT", "/v1/credentials", token: all, json: credential)
            #expect(saved.status == 200, "\(saved.text)")
            let routes: [(permission: String, method: String, path: String, body: [String: Any])] = [
                ("request", "POST", "/v1/credentials/request", ["domain": "shop.example"]),
                (
                    "add", "PUT", "/v1/credentials",
                    ["domain": "shop.example", "account": "alice", "password": "Pw-new-1"]
                ),
                (
                    "add", "PUT", "/v1/credentials",
                    ["domain": "shop.example", "account": "bob", "password": "Pw-new-2"]
                ),
                ("delete", "DELETE", "/v1/credentials", ["domain": "shop.example", "account": "alice"]),
                ("generate", "POST", "/v1/passwords/generate", [:]),
                ("generate", "POST", "/v1/passwords/generate", ["domain": "shop.example"]),
            ]
            for route in routes {
                let others = ["request", "add", "delete", "generate"].filter { $0 != route.permission }
                let token = try fixture.token(["--allow", others.joined(separator: ",")])
                let response = try fixture.call(route.method, route.path, token: token, json: route.body)
                let what = "\(route.method) \(route.path) \(route.body) without \(route.permission)"
                #expect(response.status == 403, "\(what): \(response.text)")
                #expect(response.errorCode == "permission-denied", "\(what)")
                #expect(
                    response.text.contains("not allowed to \(route.permission)")
                        && response.text.contains("--allow \(route.permission)"), "\(what): \(response.text)")
                #expect(!response.text.contains("Pw-kept-4417"), "\(what): nothing released")
            }
            let released = try fixture.call(
                "POST", "/v1/credentials/request", token: all, json: ["domain": "shop.example"])
            let rows = try #require(released.json as? [[String: Any]], "\(released.text)")
            #expect(
                rows.map { "\($0["account"] as? String ?? "?") \($0["password"] as? String ?? "?")" }
                    == ["alice Pw-kept-4417"], "nothing was added, updated or deleted")
        }
    }
}
