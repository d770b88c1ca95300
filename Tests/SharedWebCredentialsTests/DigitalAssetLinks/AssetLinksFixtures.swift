import Foundation
import SharedWebCredentials
import TestSupport

/// Statement lists written by hand from the Digital Asset Links statement-list syntax, and the
/// Android app they are about.
enum AssetLinksFixtures {
    static let wellKnown = "/.well-known/assetlinks.json"
    /// The app's signing-certificate fingerprint (the example of the specification's syntax page).
    static let fingerprint =
        "14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5"
    /// Another certificate's fingerprint.
    static let otherFingerprint =
        "AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99"
    static let getLoginCreds = "delegate_permission/common.get_login_creds"
    static let handleAllURLs = "delegate_permission/common.handle_all_urls"

    /// `android:com.example.shop`, signed by ``fingerprint``.
    static let app = try! ApplicationIdentifier("android:com.example.shop")
        .signed(by: [try! CertificateFingerprint(fingerprint)])

    /// One android_app statement.
    static func androidStatement(
        package: String = "com.example.shop", fingerprints: [String] = [fingerprint],
        relations: [String] = [getLoginCreds]
    ) -> String {
        """
        {"relation": [\(relations.map { "\"\($0)\"" }.joined(separator: ", "))],
         "target": {"namespace": "android_app", "package_name": "\(package)",
                    "sha256_cert_fingerprints": [\(fingerprints.map { "\"\($0)\"" }.joined(separator: ", "))]}}
        """
    }

    /// One web statement.
    static func webStatement(site: String, relations: [String] = [getLoginCreds]) -> String {
        """
        {"relation": [\(relations.map { "\"\($0)\"" }.joined(separator: ", "))],
         "target": {"namespace": "web", "site": "\(site)"}}
        """
    }

    /// An include statement.
    static func include(_ url: String) -> String { "{\"include\": \"\(url)\"}" }

    /// A list of statements, served as application/json.
    static func list(_ statements: String...) -> TestRoute { .json("[" + statements.joined(separator: ",\n") + "]") }
}

extension LoopbackSite {
    /// Verifies ``AssetLinksFixtures/app`` for `example.com` against a site whose answers are
    /// `routes`, keyed by "host path"; returns the verification and the requests seen.
    func verifyAndroid(
        app: ApplicationIdentifier = AssetLinksFixtures.app, hosts: [String] = ["example.com"],
        identity: TestIdentity? = nil, trustCA: Bool = true, totalTimeout: Duration = .seconds(10),
        routes: [String: TestRoute]
    ) async throws -> (DomainVerification, [TestRequest]) {
        try await with(
            hosts: hosts, identity: identity, trustCA: trustCA, totalTimeout: totalTimeout,
            handler: { routes["\($0.host.split(separator: ":").first ?? "") \($0.path)"] ?? .status(404) }
        ) { verifier, server in
            let verification = await verifier.verify([(app, try AssociatedDomainEntry("get_login_creds:example.com"))])[
                0]
            return (verification, server.requests)
        }
    }
}
