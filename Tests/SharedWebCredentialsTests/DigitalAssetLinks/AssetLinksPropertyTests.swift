import Foundation
import PropertyBased
import Testing

@testable import SharedWebCredentials

/// Digital Asset Links statement lists as properties over generated lists: an Android app is
/// approved exactly when a statement grants `get_login_creds` to its package, exactly, with one
/// of its fingerprints; a site is shared exactly when a statement grants it to that HTTPS site;
/// damaged lists never crash and never approve what Foundation's reading of them does not grant.
@Suite("Digital Asset Links over generated statement lists")
struct AssetLinksPropertyTests {
    static let packages = ["com.example.shop", "com.example.shop.debug", "com.example", "com.Example.shop"]
    static let fingerprints = [
        AssetLinksFixtures.fingerprint, AssetLinksFixtures.otherFingerprint,
        AssetLinksFixtures.fingerprint.lowercased(),
    ]
    static let relations = [
        AssetLinksFixtures.getLoginCreds, AssetLinksFixtures.handleAllURLs, "delegate_permission/common.other",
    ]
    static let sites = [
        "https://shop.example", "http://shop.example", "https://shop.example:8443", "https://evilshop.example",
    ]

    /// One generated statement, as written.
    struct Statement: Sendable {
        var relations: [String]
        var package: String?
        var fingerprints: [String]
        var site: String?

        var json: String {
            let relation = "\"relation\": [" + relations.map { "\"\($0)\"" }.joined(separator: ", ") + "]"
            if let site { return "{\(relation), \"target\": {\"namespace\": \"web\", \"site\": \"\(site)\"}}" }
            return """
                {\(relation), "target": {"namespace": "android_app", "package_name": "\(package ?? "")", \
                "sha256_cert_fingerprints": [\(fingerprints.map { "\"\($0)\"" }.joined(separator: ", "))]}}
                """
        }
    }

    /// A list and the app (package, fingerprints) and site asked about.
    struct List: Sendable, CustomStringConvertible {
        var statements: [Statement]
        var package: String
        var fingerprints: [String]
        var site: String

        var bytes: [UInt8] { Array(("[" + statements.map(\.json).joined(separator: ",\n") + "]").utf8) }
        var description: String {
            "\(String(decoding: bytes, as: UTF8.self)) asked for \(package) \(fingerprints) \(site)"
        }
    }

    static let lists = Generator<List, Shrink.None<List>>(run: { random in
        func some<T>(_ from: [T], _ range: ClosedRange<Int>) -> [T] {
            (0..<Int.random(in: range, using: &random)).map { _ in from.randomElement(using: &random)! }
        }
        let statements = (0..<Int.random(in: 0...4, using: &random)).map { _ in
            Bool.random(using: &random)
                ? Statement(
                    relations: some(relations, 1...2), package: packages.randomElement(using: &random)!,
                    fingerprints: some(fingerprints, 1...2), site: nil)
                : Statement(
                    relations: some(relations, 1...2), package: nil, fingerprints: [],
                    site: sites.randomElement(using: &random)!)
        }
        return List(
            statements: statements, package: packages.randomElement(using: &random)!,
            fingerprints: some(Array(fingerprints.prefix(2)), 0...2), site: sites.randomElement(using: &random)!)
    })

    @Test("an app or a site is approved exactly when a statement grants get_login_creds to it")
    func approvesWhatIsGranted() async throws {
        await propertyCheck(count: 400, input: Self.lists) { list in
            let report = AssetLinksParser.check(list.bytes, source: "generated")
            let own = try list.fingerprints.map { try CertificateFingerprint($0) }
            let granted = list.statements.contains { statement in
                statement.relations.contains(AssetLinksFixtures.getLoginCreds) && statement.package == list.package
                    && statement.fingerprints.contains { listed in
                        list.fingerprints.contains { $0.uppercased() == listed.uppercased() }
                    }
            }
            #expect(
                AssetLinksApproval.approves(report.statements, packageName: list.package, fingerprints: own)
                    == granted, "\(list)")
            guard list.site.hasPrefix("https://") else { return }
            let target = try DomainTarget(String(list.site.dropFirst("https://".count)))
            let shared = list.statements.contains {
                $0.relations.contains(AssetLinksFixtures.getLoginCreds) && $0.site == list.site
            }
            #expect(AssetLinksApproval.sharesCredentials(report.statements, with: target) == shared, "\(list)")
        }
    }

    @Test("damaged lists are read without a crash and approve no app that Foundation's reading does not grant")
    func damagedLists() async throws {
        let input = Generator<(List, [UInt8]), Shrink.None<(List, [UInt8])>>(run: { random in
            let list = Self.lists.run(using: &random)
            let bytes = damage(list.bytes, edits: Int.random(in: 1...4, using: &random), &random)
            return (list, bytes)
        })
        await propertyCheck(count: 500, input: input) { list, bytes in
            let report = AssetLinksParser.check(bytes, source: "generated")
            let own = try list.fingerprints.map { try CertificateFingerprint($0) }
            guard AssetLinksApproval.approves(report.statements, packageName: list.package, fingerprints: own) else {
                return
            }
            let json = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [[String: Any]]
            let granted = (json ?? []).contains { statement in
                let target = statement["target"] as? [String: Any]
                let listed = (target?["sha256_cert_fingerprints"] as? [String]) ?? []
                return ((statement["relation"] as? [String]) ?? []).contains(AssetLinksFixtures.getLoginCreds)
                    && target?["package_name"] as? String == list.package
                    && listed.contains { listed in list.fingerprints.contains { $0.uppercased() == listed.uppercased() }
                    }
            }
            #expect(granted, "\(String(decoding: bytes, as: UTF8.self)) approves \(list.package)")
        }
    }
}
