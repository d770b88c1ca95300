import ArgumentParser
import Foundation
import SharedWebCredentials

/// `swcred site ...`: a site's whole association.
struct SiteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "site",
        abstract: "Check a site's associated-domains file and Smart App Banner together.",
        subcommands: [SiteCheckCommand.self])
}

/// `swcred site check HOST [--json]`.
struct SiteCheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Report a site's AASA file for every service and the Smart App Banner tag of its home page.",
        discussion: """
            Fetches https://HOST/.well-known/apple-app-site-association and https://HOST/ with the \
            same rules as verify (HTTPS, no redirects, time limits); the page is read up to 1 MiB and \
            scanned for <meta name="apple-itunes-app">. Exit status: 0 when nothing is wrong (a \
            page without a banner is fine), 2 when the file or the banner has an error, 10 when the \
            site could not be reached.
            """)

    @Argument(help: ArgumentHelp("The site's host[:port].", valueName: "HOST"))
    var host: String

    @Flag(help: "Print the result as JSON.")
    var json = false

    @OptionGroup var network: NetworkOptionGroup

    func run() async throws {
        let target = try DomainTarget(host)
        let options = try network.networkOptions()
        if options.offline {
            throw SharedWebCredentialsError(.networkFailure, "site check fetches the site; drop --offline")
        }
        let fetcher = try AASAFetcher(options: options)
        let report = await SiteChecker.check(target, fetcher: fetcher)
        try? await fetcher.shutdown()
        let output = SiteReportJSON(report)
        if json {
            try printJSON(output)
        } else {
            printText(output)
        }
        if report.unreachable {
            let first = (output.aasa.errors + output.smartAppBanner.errors).first
            throw SharedWebCredentialsError(.networkFailure, first?.message ?? "could not reach \(target)")
        }
        if let first = (output.aasa.errors + output.smartAppBanner.errors).first {
            throw SharedWebCredentialsError(.invalidInput, "\(target): \(first.message)")
        }
    }

    private func printText(_ output: SiteReportJSON) {
        func line(_ text: String) { print(Terminal.displayable(text)) }
        line("\(output.aasa.url): \(output.aasa.valid ? "valid" : "invalid")")
        for (service, apps) in output.aasa.services.sorted(by: { $0.key < $1.key }) {
            line("  \(service): \(apps.isEmpty ? "(no apps)" : apps.joined(separator: ", "))")
        }
        for diagnostic in output.aasa.errors + output.aasa.warnings { line("  \(diagnostic)") }
        let banner = output.smartAppBanner
        line("\(banner.url): Smart App Banner \(banner.present ? "present" : "absent")")
        if let content = banner.content { line("  content: \(content)") }
        for diagnostic in banner.errors + banner.warnings { line("  \(diagnostic)") }
    }
}

/// The stable JSON of `site check` (docs/universal-links.md).
struct SiteReportJSON: Encodable {
    struct AASA: Encodable {
        let url: String
        let valid: Bool
        let services: [String: [String]]
        let errors: [AASADiagnostic]
        let warnings: [AASADiagnostic]
    }

    struct Banner: Encodable {
        let url: String
        let present: Bool
        let content: String?
        let appID: String?
        let appArgument: String?
        let appClipBundleID: String?
        let appClipDisplay: String?
        let errors: [AASADiagnostic]
        let warnings: [AASADiagnostic]

        enum CodingKeys: String, CodingKey {
            case url, present, content, errors, warnings
            case appID = "app_id"
            case appArgument = "app_argument"
            case appClipBundleID = "app_clip_bundle_id"
            case appClipDisplay = "app_clip_display"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(url, forKey: .url)
            try container.encode(present, forKey: .present)
            try container.encode(content, forKey: .content)
            try container.encode(appID, forKey: .appID)
            try container.encode(appArgument, forKey: .appArgument)
            try container.encode(appClipBundleID, forKey: .appClipBundleID)
            try container.encode(appClipDisplay, forKey: .appClipDisplay)
            try container.encode(errors, forKey: .errors)
            try container.encode(warnings, forKey: .warnings)
        }
    }

    let host: String
    let aasa: AASA
    let smartAppBanner: Banner

    enum CodingKeys: String, CodingKey {
        case host, aasa
        case smartAppBanner = "smart_app_banner"
    }

    init(_ report: SiteReport) {
        host = report.target.description
        let findings =
            report.aasaFetch.diagnostics + (report.aasa?.diagnostics ?? []) + (report.applinks?.diagnostics ?? [])
        let document = report.aasa?.document
        var services: [String: [String]] = [:]
        for service in AssociatedDomainEntry.Service.apple {
            services[service.rawValue] = document?.apps(for: service) ?? []
        }
        aasa = AASA(
            url: report.aasaFetch.url, valid: report.aasa?.isValid ?? false, services: services,
            errors: findings.filter { $0.severity == .error }, warnings: findings.filter { $0.severity == .warning })
        let bannerFindings = report.homePageDiagnostics + (report.banner?.diagnostics ?? [])
        smartAppBanner = Banner(
            url: report.homePageURL, present: report.banner != nil, content: report.banner?.content,
            appID: report.banner?["app-id"], appArgument: report.banner?["app-argument"],
            appClipBundleID: report.banner?["app-clip-bundle-id"], appClipDisplay: report.banner?["app-clip-display"],
            errors: bannerFindings.filter { $0.severity == .error },
            warnings: bannerFindings.filter { $0.severity == .warning })
    }
}
