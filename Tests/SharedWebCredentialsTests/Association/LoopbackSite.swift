import Foundation
import SharedWebCredentials
import TestSupport

/// A real HTTPS site on loopback for association tests: a test CA, a server presenting a
/// certificate for the site's hosts, and a verifier that reaches it through `--connect-to`.
struct LoopbackSite {
    static let wellKnown = "/.well-known/apple-app-site-association"
    static let legacy = "/apple-app-site-association"
    static let app = try! ApplicationIdentifier("ABCDE12345.com.example.app")

    let ca: TestCertificateAuthority
    let directory: TemporaryDirectory
    let caFile: String

    init() throws {
        ca = try TestCertificateAuthority()
        directory = try TemporaryDirectory()
        caFile = try ca.writePEM(into: directory)
    }

    /// Starts a server for `hosts` (certificate from the test CA unless `identity` is given),
    /// runs `body` with a verifier that sends every host to it, and cleans up.
    func with<T>(
        hosts: [String], identity: TestIdentity? = nil, trustCA: Bool = true,
        totalTimeout: Duration = .seconds(10), concurrency: Int = 16,
        handler: @escaping @Sendable (TestRequest) -> TestRoute,
        _ body: (Verifier, TestHTTPSServer) async throws -> T
    ) async throws -> T {
        let server = try await TestHTTPSServer.start(identity: try identity ?? ca.issue(for: hosts), handler: handler)
        let rules = try hosts.map { try ConnectToRule(server.connectTo($0)) }
        let options = NetworkOptions(
            caFile: trustCA ? caFile : nil, connectTo: rules, connectTimeout: .seconds(10), totalTimeout: totalTimeout,
            maximumConcurrentFetches: concurrency)
        let fetcher = try AASAFetcher(options: options)
        let verifier = Verifier(fetcher: fetcher, maximumConcurrentFetches: concurrency)
        do {
            let result = try await body(verifier, server)
            try await fetcher.shutdown()
            try await server.stop()
            return result
        } catch {
            try? await fetcher.shutdown()
            try? await server.stop()
            throw error
        }
    }

    /// Verifies `app` for `domain` (entitlement `webcredentials:<entry>`) against a site answering
    /// with `routes`; returns the verification and the requests the server saw.
    func verify(
        entry: String = "example.com", domain: String = "example.com", hosts: [String] = ["example.com"],
        identity: TestIdentity? = nil, trustCA: Bool = true, totalTimeout: Duration = .seconds(10),
        routes: [String: TestRoute]
    ) async throws -> (DomainVerification, [TestRequest]) {
        try await with(
            hosts: hosts, identity: identity, trustCA: trustCA, totalTimeout: totalTimeout,
            handler: { routes[$0.path] ?? .status(404) }
        ) { verifier, server in
            let entitlements = try Entitlements(strings: ["webcredentials:\(entry)"])
            let verification = try await verifier.verify(
                app: Self.app, entitlements: entitlements, domain: try DomainTarget(domain))
            return (verification, server.requests)
        }
    }

    /// Verifies the app for `example.com` against a site answering every request with `handler`;
    /// returns the verification and how long it took.
    func timedVerify(
        totalTimeout: Duration, handler: @escaping @Sendable (TestRequest) -> TestRoute
    )
        async throws -> (DomainVerification, Duration)
    {
        try await with(hosts: ["example.com"], totalTimeout: totalTimeout, handler: handler) { verifier, _ in
            let clock = ContinuousClock()
            let start = clock.now
            let result = await verifier.verify([
                (Self.app, try AssociatedDomainEntry("webcredentials:example.com"))
            ])[0]
            return (result, clock.now - start)
        }
    }
}

extension DomainVerification {
    /// The codes of the reasons, errors first.
    var codes: [String] { reasons.map(\.code) }
}
