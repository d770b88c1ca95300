import ArgumentParser
import Foundation
import SharedWebCredentials

/// `swcred dal check (FILE | https URL | HOST) [--app android:PKG --cert-sha256 FP] [--json]`:
/// the analogue of `aasa check` for Digital Asset Links.
struct DALCheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Validate a Digital Asset Links statement list and list its statements, errors and warnings.",
        discussion: """
            SOURCE is a local file, an https:// URL, or a HOST[:PORT] whose list is fetched from \
            /.well-known/assetlinks.json; the lists it includes are fetched too (HTTPS only, at most \
            10 files), except for a local file, whose includes are only listed. Exit status: 0 valid \
            (and approving --app), 2 invalid list or arguments, 4 --app not approved, 10 network or \
            TLS failure.
            """)

    @Argument(help: ArgumentHelp("A file, an https:// URL or a host.", valueName: "FILE | URL | HOST"))
    var source: String

    @Option(help: ArgumentHelp("Also report whether the list approves this Android app.", valueName: "android:PKG"))
    var app: String?

    @Option(
        name: .customLong("cert-sha256"),
        help: ArgumentHelp(
            "The app's signing-certificate SHA-256 fingerprint (with --app). Repeatable.", valueName: "FP"))
    var certificateFingerprints: [String] = []

    @Flag(help: "Print the result as JSON.")
    var json = false

    @OptionGroup var network: NetworkOptionGroup

    func run() async throws {
        let app = try self.app.map(ApplicationIdentifier.init)
        let fingerprints = try certificateFingerprints.map(CertificateFingerprint.init)
        if let app, app.platform != .android {
            throw SharedWebCredentialsError(
                .invalidInput,
                "\(app) is an Apple app; Digital Asset Links approve Android apps (--app android:PACKAGE)")
        }
        if app != nil && fingerprints.isEmpty {
            throw SharedWebCredentialsError(.invalidInput, "--app needs the app's --cert-sha256 fingerprint")
        }
        if app == nil && !fingerprints.isEmpty {
            throw SharedWebCredentialsError(.invalidInput, "--cert-sha256 needs --app android:PACKAGE")
        }
        let checked = try await DALSourceChecker.check(source, options: try network.networkOptions())
        let valid = checked.errors.isEmpty
        let approved = app.flatMap(\.androidPackageName).map {
            valid && AssetLinksApproval.approves(checked.statements, packageName: $0, fingerprints: fingerprints)
        }
        let refusal =
            valid
            ? app.flatMap(\.androidPackageName).map {
                AssetLinksApproval.explainRefusal(checked.statements, packageName: $0, fingerprints: fingerprints)
            } ?? [] : []
        let errors = checked.errors + refusal
        if json {
            try printJSON(
                Output(
                    valid: valid, errors: errors, warnings: checked.warnings,
                    statements: checked.statements.map(Output.Statement.init), files: checked.files,
                    includesNotFetched: checked.unfetchedIncludes, approved: approved))
        } else {
            printText(checked, valid: valid, errors: errors, app: app, approved: approved)
        }
        let status = CheckStatus.code(unreachable: checked.unreachable, approved: approved, valid: valid)
        guard let status else { return }
        if json { throw ExitCode(ExitStatus.code(for: status)) }
        throw SharedWebCredentialsError(
            status,
            CheckStatus.summary(
                status, location: checked.location, app: app, firstError: checked.errors.first,
                kind: "Digital Asset Links statement list"))
    }

    private func printText(
        _ checked: DALSourceChecker.Checked, valid: Bool, errors: [AASADiagnostic], app: ApplicationIdentifier?,
        approved: Bool?
    ) {
        TextOutput.line("\(checked.location): \(valid ? "valid" : "invalid")")
        if valid && checked.statements.isEmpty { TextOutput.line("statements: (none)") }
        for statement in checked.statements {
            let relations = statement.relations.joined(separator: ", ")
            switch statement.target {
            case .androidApp(let packageName, let fingerprints):
                TextOutput.line(
                    "android_app \(packageName) [\(fingerprints.map(\.description).joined(separator: ", "))]: \(relations)"
                )
            case .web(let site, _):
                TextOutput.line("web \(DisplayText.escaped(site)): \(relations)")
            }
        }
        if checked.files.count > 1 { TextOutput.line("files read: \(checked.files.joined(separator: ", "))") }
        for include in checked.unfetchedIncludes { TextOutput.line("include (not fetched from a file): \(include)") }
        for diagnostic in errors + checked.warnings { TextOutput.line(diagnostic.description) }
        if let app, let approved { TextOutput.line("\(app): \(approved ? "approved" : "not approved")") }
    }

    /// `dal check --json`.
    struct Output: Encodable {
        /// One statement.
        struct Statement: Encodable {
            let relation: [String]
            let namespace: String
            let packageName: String?
            let fingerprints: [String]?
            let site: String?
            let source: String

            init(_ statement: AssetStatement) {
                relation = statement.relations
                source = statement.source
                switch statement.target {
                case .androidApp(let name, let prints):
                    (namespace, packageName, fingerprints, site) = ("android_app", name, prints.map(\.description), nil)
                case .web(let written, _):
                    (namespace, packageName, fingerprints, site) = ("web", nil, nil, written)
                }
            }

            enum CodingKeys: String, CodingKey {
                case relation, namespace, site, source
                case packageName = "package_name"
                case fingerprints = "sha256_cert_fingerprints"
            }
        }

        let valid: Bool
        let errors: [AASADiagnostic]
        let warnings: [AASADiagnostic]
        let statements: [Statement]
        let files: [String]
        let includesNotFetched: [String]
        let approved: Bool?

        enum CodingKeys: String, CodingKey {
            case valid, errors, warnings, statements, files, approved
            case includesNotFetched = "includes_not_fetched"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(valid, forKey: .valid)
            try container.encode(errors, forKey: .errors)
            try container.encode(warnings, forKey: .warnings)
            try container.encode(statements, forKey: .statements)
            try container.encode(files, forKey: .files)
            try container.encode(includesNotFetched, forKey: .includesNotFetched)
            try container.encode(approved, forKey: .approved)
        }
    }
}
