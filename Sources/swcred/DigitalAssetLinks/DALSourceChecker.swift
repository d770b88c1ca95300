import Foundation
import SharedWebCredentials

/// Turns the `dal check` SOURCE (file, https URL or host) into statements and findings.
enum DALSourceChecker {
    /// What was read.
    struct Checked {
        /// Where the list came from, for messages.
        var location: String
        /// The statements of the list and of every include that could be read.
        var statements: [AssetStatement] = []
        /// Errors about the list itself (it gives nothing).
        var errors: [AASADiagnostic] = []
        /// Warnings: skipped statements, includes that contributed nothing, loops.
        var warnings: [AASADiagnostic] = []
        /// Every file read (a local file's includes are listed, not fetched).
        var files: [String] = []
        /// The includes of a local file, not fetched.
        var unfetchedIncludes: [String] = []
        /// Whether the site could not be asked (network, TLS, 5xx): exit 10.
        var unreachable = false
    }

    static func check(_ source: String, options: NetworkOptions) async throws -> Checked {
        let lowered = source.lowercased()
        if lowered.hasPrefix("http://") {
            throw SharedWebCredentialsError(
                .invalidInput, "\(source): statement lists are fetched over HTTPS only; use https://")
        }
        if lowered.hasPrefix("https://") {
            return try await fetch(source, options: options) { try await $0.fetch(url: source) }
        }
        if FileManager.default.fileExists(atPath: source) {
            guard let data = FileManager.default.contents(atPath: source) else {
                throw SharedWebCredentialsError(.invalidInput, "cannot read \(source): check its permissions")
            }
            let report = AssetLinksParser.check(Array(data), source: source)
            return Checked(
                location: source, statements: report.statements, errors: report.errors, warnings: report.warnings,
                files: [source], unfetchedIncludes: report.includes)
        }
        if source.contains("/") {
            throw SharedWebCredentialsError(
                .invalidInput, "\(source): no such file; give a file, an https:// URL or a host name")
        }
        let target = try DomainTarget(source)
        return try await fetch(source, options: options) { await $0.fetch(target) }
    }

    /// Fetches a list and its includes with a fetcher made from `options`.
    private static func fetch(
        _ source: String, options: NetworkOptions,
        _ body: (AssetLinksFetcher) async throws -> AssetLinksFetchResult
    ) async throws -> Checked {
        if options.offline {
            throw SharedWebCredentialsError(.networkFailure, "cannot fetch \(source) with --offline; drop --offline")
        }
        let fetcher = try AASAFetcher(options: options)
        let result: AssetLinksFetchResult
        do {
            result = try await body(AssetLinksFetcher(fetcher: fetcher))
            try? await fetcher.shutdown()
        } catch {
            try? await fetcher.shutdown()
            throw error
        }
        var checked = Checked(location: result.url, files: result.files)
        checked.errors = result.diagnostics.filter { $0.severity == .error }
        checked.warnings = result.diagnostics.filter { $0.severity == .warning }
        switch result.outcome {
        case .fetched(let statements, _): checked.statements = statements
        case .denied: break
        case .unverified: checked.unreachable = true
        }
        return checked
    }
}
