import ArgumentParser
import Foundation
import SharedWebCredentials

/// `swcred aasa check (FILE | https URL | HOST) [--app APPID] [--json]`.
struct AASACheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Validate an apple-app-site-association file and list its errors and warnings.",
        discussion: """
            SOURCE is a local file, an https:// URL, or a HOST[:PORT] whose file is fetched from \
            /.well-known/apple-app-site-association (the legacy root path only after a 404). \
            Exit status: 0 valid (and approving --app), 2 invalid file or arguments, 4 --app not \
            approved, 10 network or TLS failure.
            """)

    @Argument(help: ArgumentHelp("A file, an https:// URL or a host.", valueName: "FILE | URL | HOST"))
    var source: String

    @Option(help: ArgumentHelp("Also report whether the file approves this app.", valueName: "APPID"))
    var app: String?

    @Flag(help: "Print the result as JSON.")
    var json = false

    @OptionGroup var network: NetworkOptionGroup

    func run() async throws {
        let app = try self.app.map(ApplicationIdentifier.init)
        let options = try network.networkOptions()
        let checked = try await AASASourceChecker.check(source, options: options)
        let report = checked.report
        let approved = app.map { report.approves($0) }
        let explanations = app.map { report.explainRefusal(of: $0) } ?? []
        let errors = checked.fetchErrors + report.errors + explanations.filter { $0.severity == .error }
        let patternWarnings = checked.body.flatMap(ApplinksParser.parse)?.diagnostics ?? []
        let warnings =
            checked.fetchWarnings + report.warnings + patternWarnings + explanations.filter { $0.severity == .warning }
        let valid = checked.fetchErrors.isEmpty && report.isValid
        if json {
            try printJSON(
                valid: valid, errors: errors, warnings: warnings, apps: report.document?.webcredentialsApps ?? [],
                approved: approved)
        } else {
            printText(
                source: checked.location, valid: valid, errors: errors, warnings: warnings, report: report, app: app,
                approved: approved)
        }
        if checked.unreachable {
            throw SharedWebCredentialsError(
                .networkFailure, checked.fetchErrors.first?.message ?? "could not fetch \(checked.location)")
        }
        if let app, approved == false {
            throw SharedWebCredentialsError(
                .notApproved, "\(checked.location) does not approve \(app): \(errors.first?.message ?? "not listed")")
        }
        if !valid {
            throw SharedWebCredentialsError(
                .invalidInput, "\(checked.location) is not a usable AASA file: \(errors.first?.message ?? "see above")")
        }
    }

    private func printJSON(
        valid: Bool, errors: [AASADiagnostic], warnings: [AASADiagnostic], apps: [String], approved: Bool?
    ) throws {
        struct Output: Encodable {
            let valid: Bool
            let errors: [AASADiagnostic]
            let warnings: [AASADiagnostic]
            let webcredentialsApps: [String]
            let approved: Bool?

            enum CodingKeys: String, CodingKey {
                case valid, errors, warnings, approved
                case webcredentialsApps = "webcredentials_apps"
            }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(
            Output(valid: valid, errors: errors, warnings: warnings, webcredentialsApps: apps, approved: approved))
        print(String(decoding: data, as: UTF8.self))
    }

    private func printText(
        source: String, valid: Bool, errors: [AASADiagnostic], warnings: [AASADiagnostic], report: AASAReport,
        app: ApplicationIdentifier?, approved: Bool?
    ) {
        print("\(source): \(valid ? "valid" : "invalid")")
        if let apps = report.document?.webcredentialsApps {
            print("webcredentials apps: \(apps.isEmpty ? "(none)" : apps.joined(separator: ", "))")
        }
        for detail in report.document?.applinks ?? [] {
            let patterns: String
            switch detail.patterns {
            case .paths(let paths): patterns = "\(paths.count) paths (legacy format)"
            case .components(let components): patterns = "\(components.count) components"
            case .none: patterns = "no patterns"
            }
            print("applinks: \(detail.appIDs.joined(separator: ", ")): \(patterns)")
        }
        for diagnostic in errors + warnings { print(diagnostic) }
        if let app, let approved { print("\(app): \(approved ? "approved" : "not approved")") }
    }
}
