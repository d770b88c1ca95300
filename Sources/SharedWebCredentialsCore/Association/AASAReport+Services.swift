/// Verdicts for every associated-domains service, not only `webcredentials`: the site lists the
/// app under `applinks.details`, `appclips.apps` or `activitycontinuation.apps`. Only the
/// `webcredentials` verdict gates credentials; the others are reported, as `swcutil show` does.
extension AASAReport {
    /// Whether the file lists `app` for `service` (prefix compared case-insensitively, bundle ID exactly).
    public func approves(_ app: ApplicationIdentifier, for service: AssociatedDomainEntry.Service) -> Bool {
        guard isValid, let document else { return false }
        return document.apps(for: service).contains { app.isNamed(by: $0) }
    }

    /// Findings that explain why `app` is not approved for `service` (empty when it is).
    public func explainRefusal(
        of app: ApplicationIdentifier, for service: AssociatedDomainEntry.Service
    ) -> [AASADiagnostic] {
        if service == .webcredentials { return explainRefusal(of: app) }
        guard let document, isValid else { return errors }
        if approves(app, for: service) { return [] }
        var findings: [AASADiagnostic] = [
            .error(
                "\(service.rawValue)-app-not-listed",
                "\(app) is not listed in \(AASADocument.listName(for: service)); add it there for \(service.rawValue)")
        ]
        let elsewhere = AssociatedDomainEntry.Service.apple.filter { other in
            other != service && document.apps(for: other).contains { app.isNamed(by: $0) }
        }
        if !elsewhere.isEmpty {
            findings.append(
                .warning(
                    "app-under-other-service",
                    "\(app) is listed under \(elsewhere.map(\.rawValue).joined(separator: ", ")) but not under \(service.rawValue); each service has its own list"
                ))
        }
        return findings
    }
}

extension AASADocument {
    /// The app IDs the file lists for `service`.
    public func apps(for service: AssociatedDomainEntry.Service) -> [String] {
        switch service {
        case .webcredentials: webcredentialsApps
        case .applinks: applinksApps
        case .appclips: appclipsApps
        case .activitycontinuation: activityContinuationApps
        case .getLoginCreds: []
        }
    }

    /// Where the file lists the apps of `service`, for messages.
    static func listName(for service: AssociatedDomainEntry.Service) -> String {
        switch service {
        case .webcredentials: "webcredentials.apps"
        case .applinks: "applinks.details (appIDs)"
        case .appclips: "appclips.apps"
        case .activitycontinuation: "activitycontinuation.apps"
        case .getLoginCreds: "no list (Android apps are approved in assetlinks.json)"
        }
    }
}
