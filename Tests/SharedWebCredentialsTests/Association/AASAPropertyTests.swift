import Foundation
import PropertyBased
import Testing

@testable import SharedWebCredentials

/// apple-app-site-association files as properties over generated files: an app is approved for a
/// service exactly when the file lists it there (prefix without case, bundle ID exactly), and
/// bytes of any shape, damaged files included, are read without a crash and never approve an app
/// that Foundation's own JSON reading of them does not list. And the entitlement entry an approval
/// is for covers only its own host (a wildcard's too), never a look-alike or another port.
@Suite("AASA files over generated documents")
struct AASAPropertyTests {
    static let prefixes = ["ABCDE12345", "abcde12345", "AbCdE12345", "ZZZZZ99999"]
    static let bundles = ["com.example.app", "com.example.App", "com.example.app.extension", "com.example", "com"]
    /// The apps asked about.
    static let apps = ["ABCDE12345.com.example.app", "ABCDE12345.com.example", "ZZZZZ99999.com.example.App"].map {
        try! ApplicationIdentifier($0)
    }

    /// A file, its app lists per service as generated (the reference), and one asked-about app.
    struct Document: Sendable, CustomStringConvertible {
        var lists: [String: [String]]
        var noise: Bool
        var app: ApplicationIdentifier

        var bytes: [UInt8] {
            func list(_ names: [String], noise: Bool) -> String {
                "[" + (names.map { "\"\($0)\"" } + (noise ? ["42", "null"] : [])).joined(separator: ", ") + "]"
            }
            var sections: [String] = []
            if let apps = lists["webcredentials"] {
                sections.append("\"webcredentials\": {\"apps\": \(list(apps, noise: noise))}")
            }
            if let apps = lists["applinks"] {
                sections.append(
                    "\"applinks\": {\"details\": [{\"appIDs\": \(list(apps, noise: false)), \"components\": [{\"/\": \"/*\"}]}]}"
                )
            }
            if let apps = lists["appclips"] { sections.append("\"appclips\": {\"apps\": \(list(apps, noise: noise))}") }
            if noise { sections.append("\"other\": {\"webcredentials\": {\"apps\": [\"\(app)\"]}}") }
            return Array(("{" + sections.joined(separator: ", ") + "}").utf8)
        }

        var description: String { "\(String(decoding: bytes, as: UTF8.self)) asked for \(app)" }
    }

    static let documents = Generator<Document, Shrink.None<Document>>(run: { random in
        var lists: [String: [String]] = [:]
        for service in ["webcredentials", "applinks", "appclips"] where Int.random(in: 0..<4, using: &random) > 0 {
            lists[service] = (0..<Int.random(in: 0...3, using: &random)).map { _ in
                prefixes.randomElement(using: &random)! + "." + bundles.randomElement(using: &random)!
            }
        }
        return Document(lists: lists, noise: Bool.random(using: &random), app: apps.randomElement(using: &random)!)
    })

    /// Whether `listed` names `app` by the written rule: the prefix without case, the rest exactly.
    static func names(_ listed: String, _ app: ApplicationIdentifier) -> Bool {
        let (prefix, bundle) = (listed.prefix { $0 != "." }, listed.drop { $0 != "." }.dropFirst())
        return prefix.uppercased() == app.prefix && bundle == app.bundleIdentifier
    }

    @Test("an app is approved for a service exactly when the file lists it under that service")
    func approvesWhatIsListed() async {
        await propertyCheck(count: 400, input: Self.documents) { document in
            let report = AASAParser.check(document.bytes)
            let services: [(String, AssociatedDomainEntry.Service)] = [
                ("webcredentials", .webcredentials), ("applinks", .applinks), ("appclips", .appclips),
            ]
            for (name, service) in services {
                let listed = (document.lists[name] ?? []).contains { Self.names($0, document.app) }
                #expect(report.approves(document.app, for: service) == listed, "\(name): \(document)")
            }
            #expect(report.approves(document.app) == report.approves(document.app, for: .webcredentials))
        }
    }

    @Test("any bytes, damaged files included, are read without a crash and approve no app the JSON does not list")
    func damagedFiles() async {
        let input = Generator<(Document, [UInt8]), Shrink.None<(Document, [UInt8])>>(run: { random in
            let document = Self.documents.run(using: &random)
            var bytes = damage(document.bytes, edits: Int.random(in: 0...4, using: &random), &random)
            if Int.random(in: 0..<10, using: &random) == 0 {
                bytes = (0..<Int.random(in: 0...64, using: &random)).map { _ in
                    UInt8.random(in: 0...255, using: &random)
                }
            }
            return (document, bytes)
        })
        await propertyCheck(count: 500, input: input) { document, bytes in
            let report = AASAParser.check(bytes)
            guard report.approves(document.app) else { return }
            let json = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]
            let listed = ((json?["webcredentials"] as? [String: Any])?["apps"] as? [Any])?.compactMap { $0 as? String }
            #expect(
                listed?.contains { Self.names($0, document.app) } == true,
                "\(String(decoding: bytes, as: UTF8.self)) approves \(document.app)")
        }
    }

    @Test(
        "an entry covers its own host, and a wildcard its subdomains and bare domain: never a look-alike or another port"
    )
    func entryCoverage() async throws {
        let hosts = [
            "shop.example", "a.shop.example", "b.a.shop.example", "evilshop.example", "shop.example.evil",
            "xshop.example",
        ]
        let input = Generator<(String, Bool, Int?, String, Int?), Shrink.None<(String, Bool, Int?, String, Int?)>>(
            run: { random in
                (
                    hosts.randomElement(using: &random)!, Bool.random(using: &random),
                    [nil, 8443, 443].randomElement(using: &random)!, hosts.randomElement(using: &random)!,
                    [nil, 8443, 443, 80].randomElement(using: &random)!
                )
            })
        await propertyCheck(count: 400, input: input) { host, wildcard, port, asked, askedPort in
            let entry = try AssociatedDomainEntry(
                "webcredentials:\(wildcard ? "*." : "")\(host)\(port.map { ":\($0)" } ?? "")")
            let target = try DomainTarget(asked + (askedPort.map { ":\($0)" } ?? ""))
            // SPEC.md: a wildcard covers every subdomain and the domain itself; ports must match
            // (443 is no port).
            let samePort = (port == 443 ? nil : port) == (askedPort == 443 ? nil : askedPort)
            let coveredHost = asked == host || (wildcard && asked.hasSuffix("." + host))
            #expect(entry.covers(target) == (samePort && coveredHost), "\(entry) for \(target)")
        }
    }
}
