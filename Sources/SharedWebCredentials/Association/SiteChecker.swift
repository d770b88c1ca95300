/// One report on a site's whole association (`swcred site check`): its apple-app-site-association
/// file for every service, and the Smart App Banner tag of its home page, both fetched under the
/// same HTTPS rules (no redirects, time limits, size caps, `--connect-to`).
public struct SiteReport: Sendable {
    /// The site.
    public let target: DomainTarget
    /// How fetching the AASA file went.
    public let aasaFetch: AASAFetchResult
    /// The file's findings, when one was fetched.
    public let aasa: AASAReport?
    /// The `applinks` section with its pattern warnings, when the file is a JSON object.
    public let applinks: ApplinksConfiguration?
    /// The home page's URL.
    public let homePageURL: String
    /// Findings of fetching the home page (redirect, status, truncation, network).
    public let homePageDiagnostics: [AASADiagnostic]
    /// Whether the home page was read (HTTP 200).
    public let homePageRead: Bool
    /// The banner tag, nil when the page was not read or has none.
    public let banner: SmartAppBanner?

    /// Whether the site could not be asked for one of the two (network, TLS, timeout, 5xx).
    public let unreachable: Bool
}

/// Fetches and judges what ``SiteReport`` describes.
public enum SiteChecker {
    /// Checks `target`'s AASA file and home page with `fetcher`.
    public static func check(_ target: DomainTarget, fetcher: AASAFetcher) async -> SiteReport {
        async let aasaFetch = fetcher.fetch(target)
        async let page = fetcher.get(
            target, path: "/", accept: "text/html", maximumSize: SmartAppBanner.maximumPageSize)
        let fetched = await aasaFetch
        var report: AASAReport?
        var applinks: ApplinksConfiguration?
        var unreachable = false
        switch fetched.outcome {
        case .fetched(let body, let contentType):
            report = AASAParser.check(body, contentType: contentType)
            applinks = ApplinksParser.parse(body)
        case .denied: break
        case .unverified: unreachable = true
        }
        let homePageURL = "https://\(target)/"
        var diagnostics: [AASADiagnostic] = []
        var banner: SmartAppBanner?
        var read = false
        switch await page {
        case .body(let body, contentType: _, truncated: let truncated, cacheControl: _):
            read = true
            if truncated {
                diagnostics.append(
                    .warning(
                        "page-truncated",
                        "\(homePageURL) is larger than \(SmartAppBanner.maximumPageSize) bytes; only its start was searched for the banner tag"
                    ))
            }
            banner = SmartAppBanner.find(in: body, appclipsApps: report?.document?.appclipsApps ?? [])
        case .redirect(let status, let location):
            diagnostics.append(
                .error(
                    "page-redirect",
                    "\(homePageURL) answered HTTP \(status.code) redirecting to \(location); redirects are not followed, so no banner was read (check the page it lands on)"
                ))
        case .status(let status):
            if status.code >= 500 { unreachable = true }
            diagnostics.append(
                .error("page-http-\(status.code)", "\(homePageURL) answered HTTP \(status.code) \(status.reasonPhrase)")
            )
        case .failure(let code, let text):
            unreachable = true
            diagnostics.append(.error(code, text))
        }
        return SiteReport(
            target: target, aasaFetch: fetched, aasa: report, applinks: applinks, homePageURL: homePageURL,
            homePageDiagnostics: diagnostics, homePageRead: read, banner: banner, unreachable: unreachable)
    }
}
