/// The result of checking one apple-app-site-association file: the parsed document (when the file
/// is usable) and every finding, errors first.
public struct AASAReport: Sendable {
    /// The largest file Apple accepts, and the most a fetch reads: 128 KiB.
    public static let maximumSize = 131_072

    /// The parsed document, or nil when an error makes the file unusable.
    public var document: AASADocument?
    /// Every finding, in the order found.
    public var diagnostics: [AASADiagnostic]

    /// Creates a report from a document and findings.
    public init(document: AASADocument?, diagnostics: [AASADiagnostic]) {
        self.document = document
        self.diagnostics = diagnostics
    }

    /// The findings that make the file unusable.
    public var errors: [AASADiagnostic] { diagnostics.filter { $0.severity == .error } }
    /// The findings that are advice.
    public var warnings: [AASADiagnostic] { diagnostics.filter { $0.severity == .warning } }
    /// Whether the file is usable (no errors).
    public var isValid: Bool { document != nil && errors.isEmpty }

    /// Whether the file approves `app` for shared web credentials.
    public func approves(_ app: ApplicationIdentifier) -> Bool {
        isValid && (document?.approvesWebcredentials(app) ?? false)
    }

    /// Findings that explain why `app` is not approved (empty when it is): the app listed only
    /// under applinks, or listed with another prefix (team ID vs App ID prefix).
    public func explainRefusal(of app: ApplicationIdentifier) -> [AASADiagnostic] {
        guard let document, isValid else { return errors }
        if document.approvesWebcredentials(app) { return [] }
        var findings: [AASADiagnostic] = []
        if let path = document.misplacedWebcredentials {
            findings.append(
                .error(
                    "webcredentials-misplaced",
                    "\"webcredentials\" is nested in \(path), where iOS ignores it; move it to the top level of the file: {\"webcredentials\": {\"apps\": [\"\(app)\"]}}"
                ))
        } else if !document.hasWebcredentials {
            findings.append(
                .error(
                    "no-webcredentials",
                    "the file has no \"webcredentials\" section; add {\"webcredentials\": {\"apps\": [\"\(app)\"]}}"))
        } else {
            findings.append(
                .error("app-not-listed", "\(app) is not listed in webcredentials.apps; add it there to approve the app")
            )
        }
        let elsewhere = document.applinksApps + document.appclipsApps + document.activityContinuationApps
        if elsewhere.contains(where: { app.isNamed(by: $0) }) {
            findings.append(
                .warning(
                    "app-only-under-applinks",
                    "\(app) is listed under applinks (or appclips/activitycontinuation) but not under webcredentials; universal links do not grant password sharing"
                ))
        }
        let samePrefixElsewhere = document.webcredentialsApps.filter { listed in
            guard let dot = listed.firstIndex(of: ".") else { return false }
            return listed[listed.index(after: dot)...] == app.bundleIdentifier && !app.isNamed(by: listed)
        }
        for listed in samePrefixElsewhere {
            findings.append(
                .warning(
                    "prefix-mismatch",
                    "\(listed) has the same bundle ID but another prefix; the prefix must be the app's App ID prefix (often, but not always, the team ID)"
                ))
        }
        return findings
    }
}
