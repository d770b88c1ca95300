import Foundation
import TestSupport
import Testing

/// What Schemathesis found the service letting through (issue 30): each refused as the document
/// says, with a message that names the problem.
@Suite("swcred serve: the document's constraints are the service's", .serialized)
struct ServiceContractRefusalTests {
    @Test("a known path with another method is 405 with Allow; an unknown path is 404")
    func methodNotAllowed() async throws {
        try await ServiceFixture.with { fixture in
            try fixture.start()
            for (method, path, allow) in [
                ("TRACE", "/v1/passwords/generate", "POST"), ("DELETE", "/v1/health", "GET"),
                ("TRACE", "/metrics", "GET"), ("PATCH", "/v1/credentials", "PUT, DELETE"),
            ] {
                let answer = try fixture.call(method, path)
                #expect(answer.status == 405, "\(method) \(path): \(answer.text)")
                #expect(answer.errorCode == "method-not-allowed")
                #expect(answer.headers["allow"] == allow, "\(answer.headers)")
            }
            let unknown = try fixture.call("GET", "/v1/nothing-here")
            #expect(unknown.status == 404 && unknown.errorCode == "no-route")
        }
    }

    @Test("null, unknown members and over-long fields are refused with 400, naming the member")
    func bodyConstraints() async throws {
        try await ServiceFixture.with { fixture in
            try fixture.start()
            let token = try fixture.token()
            let null = try fixture.call(
                "POST", "/v1/credentials/request", token: token,
                body: Data(#"{"domain": "shop.example", "account": null}"#.utf8))
            #expect(null.status == 400 && null.errorCode == "invalid-json", "\(null.text)")
            #expect(null.text.contains(#"\"account\" is null"#), "\(null.text)")
            let junk = try fixture.call(
                "POST", "/v1/credentials/request", token: token, json: ["domain": "shop.example", "junk": 1])
            #expect(junk.status == 400 && junk.errorCode == "invalid-json", "\(junk.text)")
            #expect(junk.text.contains(#"unknown member \"junk\""#), "\(junk.text)")
            let long = String(repeating: "a", count: 4097)
            let longAccount = try fixture.call(
                "PUT", "/v1/credentials", token: token,
                json: ["domain": "shop.example", "account": long, "password": "Pw-1"])
            #expect(longAccount.status == 400, "\(longAccount.text)")
            #expect(longAccount.text.contains("account is 4097 characters long; the most is 4096"))
            let longRules = try fixture.call("POST", "/v1/passwords/generate", token: token, json: ["rules": long])
            #expect(longRules.status == 400 && longRules.text.contains("rules is 4097 characters long"))
            let fits = try fixture.call(
                "PUT", "/v1/credentials", token: token,
                json: ["domain": "shop.example", "account": String(repeating: "é", count: 4096), "password": "Pw-1"])
            #expect(fits.status == 200, "4096 characters (8192 UTF-8 bytes) fit: \(fits.text)")
        }
    }

    @Test("every documented path answers an undocumented method with 405 and exactly its documented methods")
    func everyPathAllowsItsMethods() async throws {
        var byPath: [String: Set<String>] = [:]
        for operation in try ServiceContractTests.operations() {
            byPath[operation.path, default: []].insert(operation.method)
        }
        try await ServiceFixture.with { fixture in
            try fixture.start()
            for (path, methods) in byPath {
                let answer = try fixture.call("TRACE", path)
                #expect(answer.status == 405, "\(path): \(answer.text)")
                let allowed = Set(
                    (answer.headers["allow"] ?? "").split(separator: ",").map {
                        $0.trimmingCharacters(in: .whitespaces)
                    })
                #expect(allowed == methods, "\(path)")
            }
        }
    }
}
