/// The approval rule for Android apps: a site approves an app for its credentials when one of its
/// statements has the relation `delegate_permission/common.get_login_creds` and an `android_app`
/// target whose package name is the app's, exactly, and one of whose fingerprints is one of the
/// app's signing certificates. `handle_all_urls` (App Links) alone approves nothing.
public enum AssetLinksApproval {
    /// Whether `statements` approve the app `packageName` signed by one of `fingerprints`.
    public static func approves(
        _ statements: [AssetStatement], packageName: String, fingerprints: [CertificateFingerprint]
    ) -> Bool {
        statements.contains { statement in
            statement.relations.contains(AssetRelation.getLoginCredentials)
                && names(statement, packageName: packageName, fingerprints: fingerprints)
        }
    }

    /// Why `statements` do not approve the app: one error with a stable code, most specific first
    /// (`fingerprint-mismatch`, `handle-all-urls-only`, `web-target-only`, `app-not-listed`).
    /// Empty when they approve it.
    public static func explainRefusal(
        _ statements: [AssetStatement], packageName: String, fingerprints: [CertificateFingerprint]
    ) -> [AASADiagnostic] {
        if approves(statements, packageName: packageName, fingerprints: fingerprints) { return [] }
        let app = "android:\(packageName)"
        let granting = statements.filter { $0.relations.contains(AssetRelation.getLoginCredentials) }
        let samePackage = granting.compactMap { statement -> [CertificateFingerprint]? in
            guard case .androidApp(let listed, let listedFingerprints) = statement.target, listed == packageName
            else { return nil }
            return listedFingerprints
        }
        if !samePackage.isEmpty {
            let listed = Set(samePackage.joined()).sorted().map(\.description)
            let own = fingerprints.map(\.description)
            return [
                .error(
                    "fingerprint-mismatch",
                    "the list grants \(AssetRelation.getLoginCredentials) to \(packageName) signed by \(listed.joined(separator: ", ")), but \(app) is registered with \(own.isEmpty ? "no fingerprint" : own.joined(separator: ", ")): none matches. Check the signing certificate (with Play App Signing, use the fingerprint Play Console shows)"
                )
            ]
        }
        let linksOnly = statements.contains { statement in
            statement.relations.contains(AssetRelation.handleAllURLs)
                && names(statement, packageName: packageName, fingerprints: fingerprints)
        }
        if linksOnly {
            return [
                .error(
                    "handle-all-urls-only",
                    "the list names \(app) only with \(AssetRelation.handleAllURLs) (App Links), which shares no credentials; add \"\(AssetRelation.getLoginCredentials)\" to that statement's relation array"
                )
            ]
        }
        if !granting.isEmpty, granting.allSatisfy({ if case .web = $0.target { true } else { false } }) {
            return [
                .error(
                    "web-target-only",
                    "the list grants \(AssetRelation.getLoginCredentials) only to web sites, not to any Android app; add an android_app statement for \(packageName)"
                )
            ]
        }
        let others = Set(
            granting.compactMap { statement -> String? in
                if case .androidApp(let listed, _) = statement.target { listed } else { nil }
            }
        ).sorted()
        let suffix = others.isEmpty ? "" : " (it lists \(others.joined(separator: ", ")))"
        return [
            .error(
                "app-not-listed",
                "no statement grants \(AssetRelation.getLoginCredentials) to \(packageName)\(suffix); add {\"relation\": [\"\(AssetRelation.getLoginCredentials)\"], \"target\": {\"namespace\": \"android_app\", \"package_name\": \"\(packageName)\", \"sha256_cert_fingerprints\": [...]}}"
            )
        ]
    }

    /// Whether `statements` (site A's list) share A's credentials with the HTTPS site `site`: a
    /// statement with the relation `get_login_creds` and the web target `https://site` (same host
    /// and port). Google's credential-sharing model; an `http:` target shares nothing.
    public static func sharesCredentials(_ statements: [AssetStatement], with site: DomainTarget) -> Bool {
        statements.contains { statement in
            guard statement.relations.contains(AssetRelation.getLoginCredentials),
                case .web(_, let https) = statement.target
            else { return false }
            return https == site
        }
    }

    /// Whether `statement` targets the app: the exact package name and a shared fingerprint.
    private static func names(
        _ statement: AssetStatement, packageName: String, fingerprints: [CertificateFingerprint]
    ) -> Bool {
        guard case .androidApp(let listed, let listedFingerprints) = statement.target, listed == packageName else {
            return false
        }
        return listedFingerprints.contains { fingerprints.contains($0) }
    }
}
