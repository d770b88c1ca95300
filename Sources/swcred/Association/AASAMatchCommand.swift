import ArgumentParser
import Foundation
import SharedWebCredentials

/// `swcred aasa match URL --app APPID [--file FILE] [--json]`: does the app open the URL as a
/// universal link, and which pattern decided?
struct AASAMatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "match",
        abstract: "Say whether an app opens a URL as a universal link, and which applinks pattern decided.",
        discussion: """
            The file comes from the URL's host (fetched as verify fetches it) or from --file. \
            Entries naming the app are tried in file order, and their patterns in order; the first \
            pattern that matches decides, and one with "exclude": true (or a legacy "NOT ") keeps \
            the URL in the browser. Exit status: 0 the app opens the URL, 5 it does not (nothing \
            matched, an exclusion matched, or no entry names the app), 2 bad input or an unusable \
            file, 10 network or TLS failure.
            """)

    @Argument(help: ArgumentHelp("The http or https URL to test.", valueName: "URL"))
    var url: String

    @Option(help: ArgumentHelp("The application identifier.", valueName: "APPID"))
    var app: String

    @Option(help: ArgumentHelp("Read this AASA file instead of fetching the URL's host.", valueName: "FILE"))
    var file: String?

    @Flag(help: "Print the result as JSON.")
    var json = false

    @OptionGroup var network: NetworkOptionGroup

    func run() async throws {
        let app = try ApplicationIdentifier(app)
        let url = try UniversalLinkURL(url)
        let checked = try await source(for: url)
        if checked.unreachable {
            throw SharedWebCredentialsError(
                .networkFailure, checked.fetchErrors.first?.message ?? "could not fetch \(checked.location)")
        }
        guard let body = checked.body, checked.report.isValid, let configuration = ApplinksParser.parse(body) else {
            let problem = (checked.fetchErrors + checked.report.errors).first?.message ?? "see aasa check"
            throw SharedWebCredentialsError(
                .invalidInput, "\(checked.location) is not a usable AASA file: \(problem)")
        }
        let warnings = checked.fetchWarnings + checked.report.warnings + configuration.diagnostics
        let decision = configuration.decide(url, for: app)
        let output = UniversalLinkMatchJSON(
            url: url, app: app, source: checked.location, decision: decision, warnings: warnings)
        if json {
            try printJSON(output)
        } else {
            printText(output)
        }
        if !decision.opens {
            throw SharedWebCredentialsError(.itemNotFound, "\(app) does not open \(url): \(output.explanation)")
        }
    }

    private func source(for url: UniversalLinkURL) async throws -> AASASourceChecker.Checked {
        guard let file else {
            return try await AASASourceChecker.fetch(url.target, options: try network.networkOptions())
        }
        guard let data = FileManager.default.contents(atPath: file) else {
            throw SharedWebCredentialsError(.invalidInput, "cannot read \(file): check the path and its permissions")
        }
        return AASASourceChecker.Checked(
            location: file, report: AASAParser.check(Array(data), path: file), body: Array(data))
    }

    private func printText(_ output: UniversalLinkMatchJSON) {
        print(Terminal.displayable("\(output.url)"))
        print(Terminal.displayable("\(output.app): \(output.opens ? "opens" : "does not open"): \(output.explanation)"))
        if let claimed = output.claimedEarlierBy {
            print(
                Terminal.displayable(
                    "note: \(claimed.location) for \(claimed.apps.joined(separator: ", ")) matches first: when that app is installed, it opens the URL instead"
                ))
        }
        for warning in output.warnings { print(Terminal.displayable("warning: [\(warning.code)] \(warning.message)")) }
    }
}

/// The stable JSON of `aasa match` (docs/universal-links.md).
struct UniversalLinkMatchJSON: Encodable {
    /// One pattern in the report.
    struct Pattern: Encodable {
        let apps: [String]
        let detailsIndex: Int
        let patternIndex: Int
        let form: String
        let pattern: String
        let exclude: Bool
        let comment: String?

        init(_ pattern: UniversalLinkDecision.DecidingPattern, apps: [String]) {
            self.apps = apps
            detailsIndex = pattern.detailsIndex
            patternIndex = pattern.patternIndex
            form = pattern.form.rawValue
            self.pattern = pattern.text
            exclude = pattern.exclude
            comment = pattern.comment
        }

        /// `applinks.details[0].components[1]`.
        var location: String { "applinks.details[\(detailsIndex)].\(form)[\(patternIndex)]" }

        enum CodingKeys: String, CodingKey {
            case apps, form, pattern, exclude, comment
            case detailsIndex = "details_index"
            case patternIndex = "pattern_index"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(apps, forKey: .apps)
            try container.encode(detailsIndex, forKey: .detailsIndex)
            try container.encode(patternIndex, forKey: .patternIndex)
            try container.encode(form, forKey: .form)
            try container.encode(pattern, forKey: .pattern)
            try container.encode(exclude, forKey: .exclude)
            try container.encode(comment, forKey: .comment)
        }
    }

    let url: String
    let app: String
    let source: String
    let opens: Bool
    let reason: String
    let decidedBy: Pattern?
    let claimedEarlierBy: Pattern?
    let warnings: [AASADiagnostic]

    init(
        url: UniversalLinkURL, app: ApplicationIdentifier, source: String, decision: UniversalLinkDecision,
        warnings: [AASADiagnostic]
    ) {
        self.url = url.description
        self.app = app.description
        self.source = source
        opens = decision.opens
        reason = decision.reason.rawValue
        decidedBy = decision.decidingPattern.map { Pattern($0, apps: [app.description]) }
        claimedEarlierBy = decision.claimedEarlierBy.map { Pattern($0.pattern, apps: $0.appIDs) }
        self.warnings = warnings
    }

    /// One sentence: which pattern decided, or why none did.
    var explanation: String {
        switch (reason, decidedBy) {
        case ("matched", let pattern?):
            "\(pattern.location) \(pattern.pattern) matches" + (pattern.comment.map { " (\($0))" } ?? "")
        case ("excluded", let pattern?):
            "\(pattern.location) \(pattern.pattern) matches first and excludes it"
                + (pattern.comment.map { " (\($0))" } ?? "")
        case ("app-not-listed", _): "no applinks.details entry names the app"
        default: "no pattern of the app's applinks.details entries matches"
        }
    }

    enum CodingKeys: String, CodingKey {
        case url, app, source, opens, reason, warnings
        case decidedBy = "decided_by"
        case claimedEarlierBy = "claimed_earlier_by"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(url, forKey: .url)
        try container.encode(app, forKey: .app)
        try container.encode(source, forKey: .source)
        try container.encode(opens, forKey: .opens)
        try container.encode(reason, forKey: .reason)
        try container.encode(decidedBy, forKey: .decidedBy)
        try container.encode(claimedEarlierBy, forKey: .claimedEarlierBy)
        try container.encode(warnings, forKey: .warnings)
    }
}
