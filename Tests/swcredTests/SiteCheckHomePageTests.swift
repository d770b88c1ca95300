import Foundation
import TestSupport
import Testing

/// `swcred site check` whose AASA file is served but whose home page never answers: the banner
/// part reports why, as its own error with the fetch's code and sentence, and the site counts as
/// not asked (exit 10), against a real HTTPS server on loopback.
@Suite("swcred site check: a home page that never answers")
struct SiteCheckHomePageTests {
    @Test("the home page's timeout is the banner's error, code and sentence, and exit 10")
    func homePageTimesOut() async throws {
        let directory = try TemporaryDirectory()
        let ca = try TestCertificateAuthority()
        let caFile = try ca.writePEM(into: directory)
        let server = try await TestHTTPSServer.start(
            identity: try ca.issue(for: ["example.com"]),
            routes: [LoopbackPaths.wellKnown: .json(UniversalLinkCommandTests.site), "/": .neverAnswer])
        let arguments = [
            "site", "check", "example.com", "--json", "--timeout", "2", "--ca-file", caFile, "--connect-to",
            server.connectTo("example.com"),
        ]
        let result: SwcredProcess.Result
        do {
            result = try SwcredProcess.run(arguments)
        } catch {
            try? await server.stop()
            throw error
        }
        try await server.stop()
        #expect(result.status == 10, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any])
        let banner = try #require(json["smart_app_banner"] as? [String: Any], "\(result.stdout)")
        let errors = try #require(banner["errors"] as? [[String: Any]], "\(banner)")
        #expect(errors.map { $0["code"] as? String } == ["timeout"], "\(errors)")
        let message = try #require(errors.first?["message"] as? String)
        #expect(message.contains("https://example.com/ did not answer within"), "\(message)")
    }
}
