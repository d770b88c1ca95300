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
        // Every finding was printed above (or is in the JSON): the exit status says the rest,
        // with a one-line summary in text mode that does not repeat a finding about the file.
        let status = CheckStatus.code(unreachable: checked.unreachable, approved: approved, valid: valid)
        guard let status else { return }
        if json { throw ExitCode(ExitStatus.code(for: status)) }
        throw SharedWebCredentialsError(
            status,
            CheckStatus.summary(
                status, location: checked.location, app: app, firstError: checked.fetchErrors.first, kind: "AASA file"))
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
        TextOutput.json(data)
    }

    private func printText(
        source: String, valid: Bool, errors: [AASADiagnostic], warnings: [AASADiagnostic], report: AASAReport,
        app: ApplicationIdentifier?, approved: Bool?
    ) {
        TextOutput.line("\(source): \(valid ? "valid" : "invalid")")
        if let apps = report.document?.webcredentialsApps {
            TextOutput.line(
                "webcredentials apps: \(apps.isEmpty ? "(none)" : apps.map(Self.flagged).joined(separator: ", "))")
        }
        for detail in report.document?.applinks ?? [] {
            let patterns: String
            switch detail.patterns {
            case .paths(let paths): patterns = Self.count(paths.count, "path") + " (legacy format)"
            case .components(let components): patterns = Self.count(components.count, "component")
            case .none: patterns = "no patterns"
            }
            let apps = detail.appIDs.isEmpty ? "(no app)" : detail.appIDs.map(Self.flagged).joined(separator: ", ")
            TextOutput.line("applinks: \(apps): \(patterns)")
        }
        for diagnostic in errors + warnings { TextOutput.line(diagnostic.description) }
        if let app, let approved { TextOutput.line("\(app): \(approved ? "approved" : "not approved")") }
    }

    /// A listed app ID, marked when `--app` would refuse it (the warnings say why).
    private static func flagged(_ listed: String) -> String {
        (try? ApplicationIdentifier(listed))?.platform != .apple ? "\(listed) (invalid)" : listed
    }

    /// "1 component", "3 components".
    private static func count(_ number: Int, _ noun: String) -> String {
        "\(number) \(noun)\(number == 1 ? "" : "s")"
    }
}
