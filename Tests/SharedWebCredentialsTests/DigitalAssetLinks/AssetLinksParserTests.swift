import SharedWebCredentials
import Testing

/// The statement-list parser, the Android identity rules and the approval rule, without network.
@Suite("Digital Asset Links statements and Android identity")
struct AssetLinksParserTests {
    typealias F = AssetLinksFixtures

    static func parse(_ text: String) -> AssetLinksReport {
        AssetLinksParser.check(Array(text.utf8), source: "assetlinks.json")
    }

    @Test("valid package names", arguments: ["com.example.shop", "a.b", "Com.Example_1.x9", "org.x_"])
    func validPackageNames(name: String) throws {
        let app = try ApplicationIdentifier("android:\(name)")
        #expect(app.platform == .android)
        #expect(app.androidPackageName == name)
        #expect(app.description == "android:\(name)")
    }

    @Test(
        "invalid package names say which rule they break",
        arguments: [
            ("com", "one segment"), ("", "empty"), ("1com.example", "starts with U+0031"),
            ("com..example", "segment 2 is empty"), ("com.example.", "segment 3 is empty"),
            (".com.example", "segment 1 is empty"), ("com.exa-mple", "U+002D HYPHEN-MINUS"),
            ("com._private", "starts with U+005F"), ("com.caf\u{E9}", "U+00E9"), ("com.ex ample", "U+0020"),
        ])
    func invalidPackageNames(name: String, problem: String) {
        #expect {
            try ApplicationIdentifier("android:\(name)")
        } throws: { error in
            let error = error as? SharedWebCredentialsError
            return error?.code == .invalidInput && error?.message.contains(problem) == true
        }
    }

    @Test("Apple application identifiers work exactly as before")
    func appleUnchanged() throws {
        let app = try ApplicationIdentifier("ABCDE12345.com.example.app")
        #expect(app.platform == .apple && app.prefix == "ABCDE12345" && app.bundleIdentifier == "com.example.app")
        #expect(app.description == "ABCDE12345.com.example.app")
        #expect(app.androidPackageName == nil && app.signingCertificates.isEmpty)
        #expect(app.isNamed(by: "abcde12345.com.example.app"))
        #expect(throws: SharedWebCredentialsError.self) { try ApplicationIdentifier("android.com.example") }
        // An AASA file never names an Android app, and says so.
        #expect(!(try ApplicationIdentifier("android:com.example.app")).isNamed(by: "android:com.example.app"))
        let aasa = AASAParser.check(Array(#"{"webcredentials": {"apps": ["android:com.example.app"]}}"#.utf8))
        #expect(aasa.warnings.map(\.code) == ["app-id-invalid"])
        #expect(aasa.warnings.first?.message.contains("assetlinks.json") == true)
    }

    @Test("an identifier's signing certificates are not part of its identity")
    func signingCertificatesNotIdentity() throws {
        let plain = try ApplicationIdentifier("android:com.example.shop")
        #expect(plain == F.app && plain.hashValue == F.app.hashValue)
        #expect(F.app.signingCertificates.map(\.description) == [F.fingerprint])
    }

    @Test("fingerprints: either case, stored canonical upper-case with colons")
    func fingerprints() throws {
        let lower = try CertificateFingerprint(F.fingerprint.lowercased())
        #expect(lower == (try CertificateFingerprint(F.fingerprint)))
        #expect(lower.description == F.fingerprint)
        #expect(lower.bytes.count == 32)
    }

    @Test(
        "bad fingerprints say what is wrong",
        arguments: [
            (String(AssetLinksFixtures.fingerprint.dropLast(3)), "31 bytes"),
            (AssetLinksFixtures.fingerprint + ":00", "33 bytes"),
            (AssetLinksFixtures.fingerprint.replacingOccurrences(of: ":", with: ""), "has 64 hex digits"),
            ("G" + AssetLinksFixtures.fingerprint.dropFirst(), "U+0047"),
            (AssetLinksFixtures.fingerprint.replacingOccurrences(of: ":", with: "-"), "U+002D"),
            ("1:" + AssetLinksFixtures.fingerprint.dropFirst(3), "has 1 hex digits"), ("", "empty"),
        ])
    func badFingerprints(text: String, problem: String) {
        #expect {
            try CertificateFingerprint(text)
        } throws: { error in
            (error as? SharedWebCredentialsError)?.message.contains(problem) == true
        }
    }

    @Test(
        "relation strings are KIND/DETAIL of a-z, 0-9, _ and .",
        arguments: [
            ("delegate_permission/common.get_login_creds", true), ("delegate_permission/common.handle_all_urls", true),
            ("a/b", true), ("delegate_permission", false), ("Delegate_permission/common.x", false), ("a/b/c", false),
            ("/common.x", false), ("delegate_permission/", false), ("delegate permission/x", false), ("a/b-c", false),
        ])
    func relationStrings(text: String, wellFormed: Bool) {
        #expect(AssetRelation.isWellFormed(text) == wellFormed)
    }

    @Test(
        "a malformed statement is skipped with a warning; the rest of the list still counts",
        arguments: [
            ("\"text\"", "statement-not-object"),
            ("{\"target\": {\"namespace\": \"web\", \"site\": \"https://a.example\"}}", "relation-missing"),
            ("{\"relation\": \"delegate_permission/common.get_login_creds\", \"target\": {}}", "relation-not-array"),
            ("{\"relation\": [], \"target\": {}}", "relation-not-array"),
            (AssetLinksFixtures.androidStatement(relations: ["get_login_creds"]), "relation-malformed"),
            (
                AssetLinksFixtures.androidStatement(relations: [AssetLinksFixtures.getLoginCreds, "Bad/One"]),
                "relation-malformed"
            ),
            ("{\"relation\": [\"\(AssetLinksFixtures.getLoginCreds)\"]}", "target-missing"),
            ("{\"relation\": [\"\(AssetLinksFixtures.getLoginCreds)\"], \"target\": []}", "target-not-object"),
            (
                "{\"relation\": [\"\(AssetLinksFixtures.getLoginCreds)\"], \"target\": {\"package_name\": \"com.example.shop\"}}",
                "namespace-missing"
            ),
            (
                "{\"relation\": [\"\(AssetLinksFixtures.getLoginCreds)\"], \"target\": {\"namespace\": \"ios_app\", \"appid\": \"X\"}}",
                "namespace-unknown"
            ),
            (
                "{\"relation\": [\"\(AssetLinksFixtures.getLoginCreds)\"], \"target\": {\"namespace\": \"android_app\", \"sha256_cert_fingerprints\": [\"\(AssetLinksFixtures.fingerprint)\"]}}",
                "package-name-missing"
            ),
            (AssetLinksFixtures.androidStatement(package: "com"), "package-name-invalid"),
            (
                "{\"relation\": [\"\(AssetLinksFixtures.getLoginCreds)\"], \"target\": {\"namespace\": \"android_app\", \"package_name\": \"com.example.x\"}}",
                "fingerprints-missing"
            ),
            (AssetLinksFixtures.androidStatement(package: "com.example.x", fingerprints: []), "fingerprints-missing"),
            (
                AssetLinksFixtures.androidStatement(package: "com.example.x", fingerprints: ["AB:CD"]),
                "fingerprint-invalid"
            ),
            (AssetLinksFixtures.webStatement(site: "https://a.example/path"), "site-invalid"),
            (AssetLinksFixtures.webStatement(site: "https://a.example:443"), "site-invalid"),
            (AssetLinksFixtures.webStatement(site: "ftp://a.example"), "site-invalid"),
            (
                "{\"relation\": [\"\(AssetLinksFixtures.getLoginCreds)\"], \"target\": {\"namespace\": \"web\"}}",
                "site-missing"
            ),
            ("{\"include\": 3}", "include-not-string"),
            ("{\"include\": \"http://a.example/x.json\"}", "include-not-https"),
            ("{\"include\": \"a.example/x.json\"}", "include-invalid"),
            ("{\"include\": \"https://a.example/x.json\", \"relation\": []}", "include-with-statement"),
        ])
    func malformedStatementSkipped(statement: String, code: String) {
        let report = Self.parse("[\(statement), \(F.androidStatement())]")
        #expect(report.isValid)
        #expect(report.warnings.map(\.code) == [code], "\(report.diagnostics)")
        #expect(report.warnings.first?.message.contains("statement 1 of assetlinks.json") == true)
        #expect(report.statements.count == 1)
        #expect(
            AssetLinksApproval.approves(
                report.statements, packageName: "com.example.shop", fingerprints: F.app.signingCertificates))
    }

    @Test("statements are read as written: targets, relations, includes")
    func readsStatements() throws {
        let report = Self.parse(
            "[\(F.androidStatement(relations: [F.handleAllURLs, F.getLoginCreds])), \(F.webStatement(site: "https://shop.example.com/")), \(F.webStatement(site: "http://legacy.example")), \(F.include("https://example.com/more.json"))]"
        )
        #expect(report.diagnostics.isEmpty)
        #expect(report.includes == ["https://example.com/more.json"])
        #expect(
            report.statements.map(\.relations) == [
                [F.handleAllURLs, F.getLoginCreds], [F.getLoginCreds], [F.getLoginCreds],
            ])
        #expect(
            report.statements[0].target
                == .androidApp(
                    packageName: "com.example.shop", fingerprints: [try CertificateFingerprint(F.fingerprint)]))
        #expect(
            report.statements[1].target
                == .web(site: "https://shop.example.com", https: try DomainTarget("shop.example.com")))
        #expect(report.statements[2].target == .web(site: "http://legacy.example", https: nil))
    }

    @Test("the approval rule: get_login_creds, the exact package, a shared fingerprint")
    func approvalRule() throws {
        let mine = F.app.signingCertificates
        func approves(_ statement: String, fingerprints: [CertificateFingerprint] = F.app.signingCertificates) -> Bool {
            AssetLinksApproval.approves(
                Self.parse("[\(statement)]").statements, packageName: "com.example.shop", fingerprints: fingerprints)
        }
        #expect(approves(F.androidStatement()))
        #expect(approves(F.androidStatement(fingerprints: [F.otherFingerprint, F.fingerprint])))
        #expect(
            approves(
                F.androidStatement(fingerprints: [F.otherFingerprint]),
                fingerprints: mine + [try CertificateFingerprint(F.otherFingerprint)]))
        #expect(!approves(F.androidStatement(fingerprints: [F.otherFingerprint])))
        #expect(!approves(F.androidStatement(), fingerprints: []))
        #expect(!approves(F.androidStatement(package: "com.example.Shop")))
        #expect(!approves(F.androidStatement(package: "com.example.shop.debug")))
        #expect(!approves(F.androidStatement(package: "com.example")))
        #expect(!approves(F.androidStatement(relations: [F.handleAllURLs])))
        #expect(!approves(F.androidStatement(relations: ["delegate_permission/common.get_login_creds_extra"])))
        // Two statements each giving half (the relation to one package, the fingerprint to another) do not add up.
        #expect(
            !approves(
                F.androidStatement(relations: [F.handleAllURLs]) + ", "
                    + F.androidStatement(fingerprints: [F.otherFingerprint])))
    }

    @Test("Android domains: hosts only, no wildcards, no entitlement entries; the kinds never mix")
    func androidDomains() throws {
        let entitlements = try Entitlements(androidDomains: ["shop.example.com", "example.com:8443"])
        #expect(
            entitlements.entries.map(\.description) == [
                "get_login_creds:shop.example.com", "get_login_creds:example.com:8443",
            ])
        #expect(entitlements.webcredentialsEntries.count == 2)
        #expect(
            entitlements.webcredentialsEntry(covering: try DomainTarget("example.com:8443"))?.service == .getLoginCreds)
        for bad in [
            "*.example.com", "https://example.com", "webcredentials:example.com", "example.com/login", "127.0.0.1",
        ] {
            #expect(throws: SharedWebCredentialsError.self, "\(bad)") { try Entitlements(androidDomains: [bad]) }
        }
        #expect(throws: SharedWebCredentialsError.self) {
            try entitlements.validate(for: try ApplicationIdentifier("ABCDE12345.com.example.app"))
        }
        #expect(throws: SharedWebCredentialsError.self) {
            try Entitlements(strings: ["webcredentials:example.com"]).validate(for: F.app)
        }
        #expect(throws: SharedWebCredentialsError.self, "an Android app needs a fingerprint") {
            try entitlements.validate(for: try ApplicationIdentifier("android:com.example.shop"))
        }
        try entitlements.validate(for: F.app)
    }

    @Test("a list shares its credentials with an HTTPS site named by a get_login_creds web statement")
    func webSharing() throws {
        let statements = Self.parse(
            "[\(F.webStatement(site: "https://shop.example.com")), \(F.webStatement(site: "https://links.example", relations: [F.handleAllURLs])), \(F.webStatement(site: "http://plain.example")), \(F.webStatement(site: "https://ported.example:8443"))]"
        ).statements
        #expect(AssetLinksApproval.sharesCredentials(statements, with: try DomainTarget("shop.example.com")))
        #expect(AssetLinksApproval.sharesCredentials(statements, with: try DomainTarget("ported.example:8443")))
        #expect(!AssetLinksApproval.sharesCredentials(statements, with: try DomainTarget("ported.example")))
        #expect(!AssetLinksApproval.sharesCredentials(statements, with: try DomainTarget("links.example")))
        #expect(!AssetLinksApproval.sharesCredentials(statements, with: try DomainTarget("plain.example")))
        #expect(!AssetLinksApproval.sharesCredentials(statements, with: try DomainTarget("www.shop.example.com")))
    }
}
