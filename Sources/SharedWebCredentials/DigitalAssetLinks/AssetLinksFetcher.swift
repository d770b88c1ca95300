import Crypto
import Foundation

/// Fetches a site's Digital Asset Links statement list, `https://HOST[:PORT]/.well-known/assetlinks.json`,
/// under the rules of ``AASAFetcher`` (HTTPS with verified TLS, no redirects, only 200 counts,
/// a 128 KiB cap, time limits, `--ca-file`, `--connect-to`), and requires
/// `Content-Type: application/json`.
///
/// Include statements are followed: HTTPS only, at most ``maximumFiles`` files per fetch (the
/// site's own list included), each file once. An include that fails (not 200, not JSON, wrong
/// type, over the cap, unreachable) contributes nothing, with a warning, and the rest still
/// counts; an include that leads back to a list already on its path is a loop, reported and not
/// followed.
public struct AssetLinksFetcher: Sendable {
    /// Where a site publishes its list.
    public static let wellKnownPath = "/.well-known/assetlinks.json"
    /// The most files one fetch reads, the site's own list included.
    public static let maximumFiles = 10

    private let fetcher: AASAFetcher

    /// A fetcher sharing `fetcher`'s HTTPS client and options.
    public init(fetcher: AASAFetcher) {
        self.fetcher = fetcher
    }

    /// Fetches the list of `target` and what it includes.
    public func fetch(_ target: DomainTarget) async -> AssetLinksFetchResult {
        await fetch(target: target, path: Self.wellKnownPath)
    }

    /// Fetches the list at an `https:` URL and what it includes (`swcred dal check URL`).
    public func fetch(url: String) async throws -> AssetLinksFetchResult {
        guard let (target, path) = Self.split(url) else {
            throw SharedWebCredentialsError(
                .invalidInput, "\"\(url)\" is not an https: URL with a host name; give https://HOST/PATH")
        }
        return await fetch(target: target, path: path)
    }

    private func fetch(target: DomainTarget, path: String) async -> AssetLinksFetchResult {
        let url = "https://\(target)\(path)"
        var diagnostics: [AASADiagnostic] = []
        var files = [url]
        var digests: [UInt8] = []
        var maximumAge: TimeInterval?
        func result(_ outcome: AssetLinksFetchResult.Outcome) -> AssetLinksFetchResult {
            AssetLinksFetchResult(
                target: target, url: url, outcome: outcome, diagnostics: diagnostics, files: files,
                maximumAge: maximumAge)
        }
        let main: AssetLinksReport
        switch await read(target: target, path: path, url: url) {
        case .failed(let outcome, let diagnostic):
            diagnostics.append(diagnostic)
            return result(outcome)
        case .read(let report, let digest, let age):
            diagnostics += report.diagnostics
            guard report.isValid else { return result(.denied) }
            main = report
            digests += digest
            maximumAge = age
        }
        var statements = main.statements
        // Each pending include with the chain of lists that led to it, to tell a loop from a
        // file merely included twice.
        var pending = main.includes.map { (url: $0, chain: [url]) }
        var seen: Set<String> = [url]
        while !pending.isEmpty {
            let (include, chain) = pending.removeFirst()
            let parent = chain.last!
            if chain.contains(include) {
                diagnostics.append(
                    .warning(
                        "include-loop",
                        "\(parent) includes \(include), which leads back to itself (\((chain + [include]).joined(separator: " -> "))): the loop is not followed"
                    ))
                continue
            }
            guard seen.insert(include).inserted else { continue }
            guard files.count < Self.maximumFiles else {
                diagnostics.append(
                    .warning(
                        "include-budget",
                        "\(include) (included from \(parent)) and \(pending.count) more were not read: one verification reads at most \(Self.maximumFiles) files; include fewer lists"
                    ))
                break
            }
            files.append(include)
            guard let (includeTarget, includePath) = Self.split(include) else {
                diagnostics.append(
                    .warning(
                        "include-failed",
                        "\(include) (included from \(parent)) contributes nothing: it has no host name swcred can fetch"
                    ))
                continue
            }
            switch await self.read(target: includeTarget, path: includePath, url: include) {
            case .failed(_, let diagnostic):
                diagnostics.append(
                    .warning(
                        "include-failed",
                        "\(include) (included from \(parent)) contributes nothing: [\(diagnostic.code)] \(diagnostic.message)"
                    ))
            case .read(let report, let digest, let age):
                guard report.isValid else {
                    let reasons = report.errors.map { "[\($0.code)] \($0.message)" }.joined(separator: "; ")
                    diagnostics.append(
                        .warning(
                            "include-failed", "\(include) (included from \(parent)) contributes nothing: \(reasons)"))
                    continue
                }
                diagnostics += report.diagnostics
                statements += report.statements
                digests += digest
                maximumAge = [maximumAge, age].compactMap { $0 }.min()
                pending += report.includes.map { (url: $0, chain: chain + [include]) }
            }
        }
        return result(.fetched(statements: statements, digest: Array(SHA256.hash(data: digests))))
    }

    private enum FileRead {
        case read(AssetLinksReport, digest: [UInt8], maximumAge: TimeInterval?)
        case failed(AssetLinksFetchResult.Outcome, AASADiagnostic)
    }

    /// One GET of a list, checked.
    private func read(target: DomainTarget, path: String, url: String) async -> FileRead {
        let response = await fetcher.get(
            target, path: path, accept: "application/json", maximumSize: AssetLinksReport.maximumSize + 1,
            userAgent: "swcred (Digital Asset Links check)")
        switch response {
        case .body(let bytes, let contentType, let truncated, let cacheControl):
            if truncated {
                return .failed(
                    .denied,
                    .error(
                        "too-large",
                        "\(url) is larger than 128 KiB (\(AssetLinksReport.maximumSize) bytes); reading stopped there. Make the list smaller or move statements into included files"
                    ))
            }
            guard let contentType else {
                return .failed(
                    .denied,
                    .error(
                        "content-type",
                        "\(url) was served without a Content-Type; Digital Asset Links requires Content-Type: application/json, so the list was not read"
                    ))
            }
            let report = AssetLinksParser.check(bytes, contentType: contentType, source: url)
            return .read(
                report, digest: Array(SHA256.hash(data: bytes)), maximumAge: cacheControl.flatMap(Self.maximumAge))
        case .redirect(let status, let location):
            return .failed(
                .denied,
                .error(
                    "redirect",
                    "\(url) answered HTTP \(status.code) redirecting to \(DisplayText.escaped(location)); redirects are not followed, serve the list directly at \(url)"
                ))
        case .status(let status):
            let code = Int(status.code)
            let message = "\(url) answered HTTP \(code) \(status.reasonPhrase)"
            switch code {
            case 404: return .failed(.denied, .error("not-found", "\(message): publish the statement list there"))
            case 400..<500:
                return .failed(.denied, .error("http-\(code)", "\(message): the site gives no statement list"))
            case 500..<600:
                return .failed(.unverified, .error("http-\(code)", "\(message): a server error, try again later"))
            default: return .failed(.unverified, .error("http-\(code)", "\(message); only 200 counts"))
            }
        case .failure(let code, let text):
            return .failed(.unverified, .error(code, text))
        }
    }

    /// The host (and port) and the path with its query of an `https:` URL; nil for any other URL
    /// or a host that is not a domain name.
    static func split(_ url: String) -> (DomainTarget, String)? {
        guard let components = URLComponents(string: url), components.scheme?.lowercased() == "https",
            let host = components.host, !host.isEmpty, components.user == nil, components.password == nil
        else { return nil }
        let hostPort = components.port.map { "\(host):\($0)" } ?? host
        guard let target = try? DomainTarget(hostPort) else { return nil }
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        return (target, path + (components.percentEncodedQuery.map { "?\($0)" } ?? ""))
    }

    /// The `max-age` of a `Cache-Control` header in seconds (0 for `no-cache` or `no-store`), or
    /// nil when it gives none.
    static func maximumAge(_ cacheControl: String) -> TimeInterval? {
        var age: TimeInterval?
        for directive in cacheControl.split(separator: ",") {
            let text = directive.trimmingCharacters(in: .whitespaces).lowercased()
            if text == "no-cache" || text == "no-store" { return 0 }
            if text.hasPrefix("max-age="), let seconds = UInt64(text.dropFirst(8)) {
                age = min(age ?? .infinity, TimeInterval(seconds))
            }
        }
        return age
    }
}
