import Foundation
import SharedWebCredentials

/// Turns the `aasa check` SOURCE (file, https URL or host) into a checked report.
enum AASASourceChecker {
    /// A report plus what the fetch itself found.
    struct Checked {
        /// Where the file came from, for messages.
        var location: String
        /// The file's own findings (empty document when nothing was fetched).
        var report: AASAReport
        /// Errors of the fetch (redirect, 404, TLS, ...).
        var fetchErrors: [AASADiagnostic] = []
        /// Warnings of the fetch (legacy path, non-standard path).
        var fetchWarnings: [AASADiagnostic] = []
        /// Whether the site could not be asked (network, TLS, 5xx): exit 10.
        var unreachable = false
        /// The file's bytes, when there was one to read.
        var body: [UInt8]?
    }

    static func check(_ source: String, options: NetworkOptions) async throws -> Checked {
        let lowered = source.lowercased()
        if lowered.hasPrefix("http://") {
            throw SharedWebCredentialsError(
                .invalidInput, "\(source): AASA files are fetched over HTTPS only; use https://")
        }
        if lowered.hasPrefix("https://") {
            guard let url = URL(string: source), let host = url.host else {
                throw SharedWebCredentialsError(.invalidInput, "\(source) is not a valid https URL")
            }
            let target = try DomainTarget(url.port.map { "\(host):\($0)" } ?? host)
            var warnings: [AASADiagnostic] = []
            let path = url.path
            if !["", "/", AASAFetcher.wellKnownPath, AASAFetcher.legacyPath].contains(path) {
                let extra = AASAParser.check([], path: path).warnings
                warnings += extra
                warnings.append(
                    .warning(
                        "nonstandard-path",
                        "Apple fetches only \(AASAFetcher.wellKnownPath), not \(path); checked the well-known path"))
            }
            var checked = try await fetch(target, options: options)
            checked.fetchWarnings = warnings + checked.fetchWarnings
            return checked
        }
        if FileManager.default.fileExists(atPath: source) {
            guard let data = FileManager.default.contents(atPath: source) else {
                throw SharedWebCredentialsError(.invalidInput, "cannot read \(source): check its permissions")
            }
            return Checked(location: source, report: AASAParser.check(Array(data), path: source), body: Array(data))
        }
        if source.contains("/") {
            throw SharedWebCredentialsError(
                .invalidInput, "\(source): no such file; give a file, an https:// URL or a host name")
        }
        return try await fetch(try DomainTarget(source), options: options)
    }

    /// Fetches and checks the file of `target`.
    static func fetch(_ target: DomainTarget, options: NetworkOptions) async throws -> Checked {
        if options.offline {
            throw SharedWebCredentialsError(.networkFailure, "cannot fetch \(target) with --offline; drop --offline")
        }
        let fetcher = try AASAFetcher(options: options)
        let result = await fetcher.fetch(target)
        try? await fetcher.shutdown()
        var checked = Checked(location: result.url, report: AASAReport(document: nil, diagnostics: []))
        checked.fetchErrors = result.diagnostics.filter { $0.severity == .error }
        checked.fetchWarnings = result.diagnostics.filter { $0.severity == .warning }
        switch result.outcome {
        case .fetched(let body, let contentType):
            checked.report = AASAParser.check(body, contentType: contentType)
            checked.body = body
        case .denied:
            break
        case .unverified:
            checked.unreachable = true
        }
        return checked
    }
}
