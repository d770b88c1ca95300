import Foundation
import Testing

@testable import TestSupport

/// `include_shared` through the service: a request for a domain whose sign-in Apple's quirk data
/// shares with others (3docean.net and envato.com) releases the others' credentials only when
/// asked, and only those of domains the app is also approved for (SPEC), as the library does,
/// whether or not the service read the domain's credentials ahead with the token.
@Suite("swcred serve: include_shared releases the domains sharing a sign-in, only when asked")
struct ServiceSharedSignInTests {
    private static let app = "ABCDE12345.com.example.app"

    @Test(
        "a request for 3docean.net gets its own credential; with include_shared, envato.com's too, which the app may use"
    )
    func includeShared() async throws {
        let directory = try TemporaryDirectory()
        let ca = try TestCertificateAuthority()
        let caFile = try ca.writePEM(into: directory)
        let server = try await TestHTTPSServer.start(
            identity: try ca.issue(for: ["3docean.net", "envato.com"]),
            routes: [LoopbackPaths.wellKnown: .aasa(approving: [Self.app])])
        do {
            try await Self.check(
                in: directory,
                network: [
                    "--ca-file", caFile, "--connect-to", server.connectTo("3docean.net"), "--connect-to",
                    server.connectTo("envato.com"),
                ])
        } catch {
            try? await server.stop()
            throw error
        }
        try await server.stop()
    }

    private static func check(in directory: TemporaryDirectory, network: [String]) async throws {
        let environment = [
            "SWCRED_VAULT": directory.path("vault.sqlite"), "SWCRED_PASSPHRASE": "shared sign-in test passphrase 64",
        ]
        func swcred(_ arguments: [String], stdin: String? = nil) throws -> SwcredProcess.Result {
            let result = try SwcredProcess.run(arguments, environment: environment, stdin: stdin.map { Data($0.utf8) })
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            return result
        }
        try swcred(["init", "--kdf-opslimit", "1", "--kdf-memlimit", "8192"])
        try swcred(
            ["app", "add", Self.app, "--domain", "webcredentials:3docean.net", "--domain", "webcredentials:envato.com"])
        try swcred(
            ["item", "set", "3docean.net", "--account", "gina", "--password-stdin", "--yes"], stdin: "Docean-Pw1")
        try swcred(
            ["item", "set", "envato.com", "--account", "frank", "--password-stdin", "--yes"], stdin: "Envato-Pw1")
        let token = try swcred(["app", "token", "create", Self.app]).stdout.trimmingCharacters(in: .newlines)

        let socket = directory.path("run/swcred.sock")
        let service = try ServiceProcess.start(
            socketPath: socket, arguments: network, environment: environment, logPath: directory.path("service.log"))
        func accounts(_ body: [String: Any]) throws -> [String] {
            let answer = try UnixHTTP.request(socket, "POST", "/v1/credentials/request", token: token, json: body)
            #expect(answer.status == 200, "\(body): \(answer.text)")
            let credentials = try JSONSerialization.jsonObject(with: Data(answer.text.utf8)) as? [[String: Any]]
            return (credentials ?? []).compactMap { $0["account"] as? String }.sorted()
        }
        #expect(try accounts(["domain": "3docean.net"]) == ["gina"], "never merged unasked")
        let shared = try accounts(["domain": "3docean.net", "include_shared": true])
        #expect(shared == ["frank", "gina"], "\(shared)")
        #expect(try accounts(["domain": "3docean.net", "include_shared": false]) == ["gina"])
        #expect(service.stop() == 0, "\(service.log)")
    }
}
