import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// Fetches apple-app-site-association files over HTTPS exactly as SPEC.md §3 requires: the
/// well-known path first, the legacy root path only after a 404, no redirects, only 200 counts,
/// a 128 KiB cap enforced while the body streams in, connect and total time limits, system trust
/// roots plus the operator's `--ca-file`, and curl-style `--connect-to`.
///
/// `--connect-to` is built on AsyncHTTPClient's `dnsOverride` (which keeps the original host for
/// SNI and certificate checks): the URL carries the rule's port and an explicit `Host` header keeps
/// the requested host and port, so the server sees exactly what it would have seen without the rule.
///
/// Call ``shutdown()`` when done.
public final class AASAFetcher: Sendable {
    /// The path Apple fetches.
    public static let wellKnownPath = "/.well-known/apple-app-site-association"
    /// The deprecated path tried only after the well-known path answers 404.
    public static let legacyPath = "/apple-app-site-association"

    private let client: HTTPClient
    private let options: NetworkOptions

    /// Creates a fetcher. Throws `invalidInput` when the CA file is unreadable or holds no
    /// certificate, or when `--connect-to` rules send one host to two addresses.
    public init(options: NetworkOptions) throws {
        self.options = options
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = .tlsv12
        // Wait at most a moment for the server's close_notify when a connection is closed (for
        // example after cutting off an endless body): the file has been judged by then.
        tls.shutdownTimeout = .milliseconds(500)
        if let caFile = options.caFile {
            let roots: [NIOSSLCertificate]
            do {
                roots = try NIOSSLCertificate.fromPEMFile(caFile)
            } catch {
                throw SharedWebCredentialsError(
                    .invalidInput, "cannot read trust roots from \(caFile): give a readable PEM file of CA certificates"
                )
            }
            guard !roots.isEmpty else {
                throw SharedWebCredentialsError(.invalidInput, "\(caFile) holds no PEM certificate")
            }
            tls.additionalTrustRoots = [.certificates(roots)]
        }
        var overrides: [String: String] = [:]
        for rule in options.connectTo {
            guard let address = rule.address else { continue }
            if let existing = overrides[rule.host], existing != address {
                throw SharedWebCredentialsError(
                    .invalidInput,
                    "--connect-to sends \(rule.host) to both \(existing) and \(address); keep one address per host")
            }
            overrides[rule.host] = address
        }
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: tls,
            redirectConfiguration: .disallow,
            timeout: .init(
                connect: Self.timeAmount(options.connectTimeout), read: Self.timeAmount(options.totalTimeout)),
            decompression: .disabled)
        configuration.dnsOverride = overrides
        configuration.httpVersion = .http1Only
        // A refused connection is an answer: report it at once instead of retrying until the
        // connect timeout.
        configuration.connectionPool.retryConnectionEstablishment = false
        client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
    }

    /// Closes every connection. Call once when the fetcher is no longer needed.
    public func shutdown() async throws {
        try await client.shutdown()
    }

    /// Fetches the file of `target`, trying the legacy path only after a 404.
    public func fetch(_ target: DomainTarget) async -> AASAFetchResult {
        let first = await fetch(target, path: Self.wellKnownPath)
        guard case .notFound = first.status else { return first.result }
        let second = await fetch(target, path: Self.legacyPath)
        switch second.status {
        case .notFound:
            return AASAFetchResult(
                target: target, url: second.result.url, outcome: .denied,
                diagnostics: [
                    .error(
                        "not-found",
                        "no file at https://\(target)\(Self.wellKnownPath) or the legacy \(Self.legacyPath) (HTTP 404); publish it at the well-known path"
                    )
                ])
        case .other where second.result.outcome.isFetched:
            return AASAFetchResult(
                target: target, url: second.result.url, outcome: second.result.outcome,
                diagnostics: [
                    .warning(
                        "legacy-path",
                        "served only at the deprecated \(Self.legacyPath) (the well-known path answered 404); move it to \(Self.wellKnownPath)"
                    )
                ])
        case .other:
            return second.result
        }
    }

    private enum Status {
        case notFound
        case other
    }

    private func fetch(_ target: DomainTarget, path: String) async -> (status: Status, result: AASAFetchResult) {
        let rule = options.connectTo.first { $0.matches(target) }
        let urlHost = target.host.contains(":") ? "[\(target.host)]" : target.host
        let url = "https://\(urlHost):\(rule?.connectPort ?? target.effectivePort)\(path)"
        let shownURL = "https://\(target)\(path)"
        @Sendable func result(
            _ outcome: AASAFetchResult.Outcome, _ diagnostics: [AASADiagnostic] = []
        ) -> (Status, AASAFetchResult) {
            (.other, AASAFetchResult(target: target, url: shownURL, outcome: outcome, diagnostics: diagnostics))
        }
        var request = HTTPClientRequest(url: url)
        request.headers.replaceOrAdd(name: "Host", value: target.description)
        request.headers.add(name: "Accept", value: "application/json")
        request.headers.add(name: "User-Agent", value: "swcred (apple-app-site-association check)")
        let timeout = options.totalTimeout
        let prepared = request
        do {
            return try await withTimeout(timeout) { [client] in
                let response = try await client.execute(prepared, deadline: .now() + Self.timeAmount(timeout))
                switch response.status.code {
                case 200:
                    var body: [UInt8] = []
                    for try await buffer in response.body {
                        guard body.count + buffer.readableBytes <= AASAReport.maximumSize else {
                            return result(
                                .denied,
                                [
                                    .error(
                                        "too-large",
                                        "\(shownURL) is larger than 128 KiB (\(AASAReport.maximumSize) bytes); reading stopped there. Make the file smaller"
                                    )
                                ])
                        }
                        body.append(contentsOf: buffer.readableBytesView)
                    }
                    return result(.fetched(body: body, contentType: response.headers.first(name: "Content-Type")))
                case 300..<400:
                    let location = response.headers.first(name: "Location") ?? "(no Location header)"
                    return result(
                        .denied, [Self.redirectDiagnostic(status: response.status, location: location, target: target)])
                case 404:
                    return (
                        .notFound, AASAFetchResult(target: target, url: shownURL, outcome: .denied, diagnostics: [])
                    )
                case 400..<500:
                    return result(
                        .denied,
                        [
                            .error(
                                "http-\(response.status.code)",
                                "\(shownURL) answered HTTP \(response.status.code) \(response.status.reasonPhrase): the site denies access to its file"
                            )
                        ])
                case 500..<600:
                    return result(
                        .unverified,
                        [
                            .error(
                                "http-\(response.status.code)",
                                "\(shownURL) answered HTTP \(response.status.code) \(response.status.reasonPhrase): a server error, try again later"
                            )
                        ])
                default:
                    return result(
                        .unverified,
                        [
                            .error(
                                "http-\(response.status.code)",
                                "\(shownURL) answered HTTP \(response.status.code); only 200 counts")
                        ])
                }
            }
        } catch {
            let message = await describe(error, target: target, rule: rule, shownURL: shownURL)
            return result(.unverified, [.error(message.code, message.text)])
        }
    }

    /// What one GET of a page produced, before anyone judged it.
    enum Response: Sendable {
        /// HTTP 200: the body (at most the size limit; `truncated` when there was more), its
        /// `Content-Type` and its `Cache-Control` header.
        case body([UInt8], contentType: String?, truncated: Bool, cacheControl: String?)
        /// A 3xx and where it pointed.
        case redirect(HTTPResponseStatus, location: String)
        /// Any other status.
        case status(HTTPResponseStatus)
        /// No answer: network, TLS or timeout, with a stable code and a message.
        case failure(code: String, text: String)
    }

    /// One GET of `path` on `target` under the same rules as an AASA fetch (HTTPS, no redirects,
    /// time limits, `--connect-to`), keeping at most `maximumSize` bytes of a 200 body: a longer
    /// body is cut there, not refused (`site check` reads the start of a home page).
    func get(
        _ target: DomainTarget, path: String, accept: String, maximumSize: Int,
        userAgent: String = "swcred (site check)"
    ) async -> Response {
        let rule = options.connectTo.first { $0.matches(target) }
        let urlHost = target.host.contains(":") ? "[\(target.host)]" : target.host
        var request = HTTPClientRequest(url: "https://\(urlHost):\(rule?.connectPort ?? target.effectivePort)\(path)")
        request.headers.replaceOrAdd(name: "Host", value: target.description)
        request.headers.add(name: "Accept", value: accept)
        request.headers.add(name: "User-Agent", value: userAgent)
        let timeout = options.totalTimeout
        let prepared = request
        do {
            return try await withTimeout(timeout) { [client] in
                let response = try await client.execute(prepared, deadline: .now() + Self.timeAmount(timeout))
                let contentType = response.headers.first(name: "Content-Type")
                let cacheControl = response.headers[canonicalForm: "Cache-Control"].joined(separator: ", ")
                func body(_ bytes: [UInt8], truncated: Bool) -> Response {
                    .body(
                        bytes, contentType: contentType, truncated: truncated,
                        cacheControl: cacheControl.isEmpty ? nil : cacheControl)
                }
                switch response.status.code {
                case 200:
                    var bytes: [UInt8] = []
                    for try await buffer in response.body {
                        bytes.append(contentsOf: buffer.readableBytesView.prefix(maximumSize - bytes.count))
                        if bytes.count == maximumSize { return body(bytes, truncated: true) }
                    }
                    return body(bytes, truncated: false)
                case 300..<400:
                    return .redirect(
                        response.status, location: response.headers.first(name: "Location") ?? "(no Location header)")
                default:
                    return .status(response.status)
                }
            }
        } catch {
            let message = await describe(error, target: target, rule: rule, shownURL: "https://\(target)\(path)")
            return .failure(code: message.code, text: message.text)
        }
    }

    private static func redirectDiagnostic(
        status: HTTPResponseStatus, location: String, target: DomainTarget
    )
        -> AASADiagnostic
    {
        var message =
            "answered HTTP \(status.code) redirecting to \(location); redirects are not followed, serve the file directly at https://\(target)\(wellKnownPath)"
        if let url = URL(string: location), let host = url.host?.lowercased(), host == "www." + target.host {
            message += " (a redirect from the apex to www breaks the association: serve the file on \(target.host) too)"
        }
        return .error("redirect", message)
    }

    private func describe(
        _ error: any Error, target: DomainTarget, rule: ConnectToRule?, shownURL: String
    ) async
        -> (code: String, text: String)
    {
        let connectHost = rule?.address ?? target.host
        let connectPort = rule?.connectPort ?? target.effectivePort
        switch error {
        case is FetchTimeout:
            return ("timeout", "\(shownURL) did not answer within \(options.totalTimeout); try again later")
        case let error as HTTPClientError where error == .connectTimeout:
            return ("connect-timeout", "could not connect to \(target) within \(options.connectTimeout)")
        case let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout:
            return ("timeout", "\(shownURL) did not answer within \(options.totalTimeout); try again later")
        case let error as NIOSSLExtraError where error == .failedToValidateHostname:
            return (
                "tls-wrong-host",
                "TLS failure for \(target): the certificate is not valid for \(target.host) (wrong host)"
            )
        case let error as NIOSSLError:
            if case .handshakeFailed = error,
                let problem = await TLSProblemDiagnoser.diagnose(
                    host: target.host, connectHost: connectHost, connectPort: connectPort,
                    timeout: options.connectTimeout)
            {
                return ("tls", "TLS failure for \(target): \(problem)")
            }
            return ("tls", "TLS failure for \(target): \(error)")
        case let error as NIOConnectionError:
            let reason = error.connectionErrors.first.map { "\($0.error)" } ?? "\(error)"
            return ("connect", "could not connect to \(target) (\(connectHost):\(connectPort)): \(reason)")
        case let error as IOError:
            return (
                "connect",
                "could not connect to \(target) (\(connectHost):\(connectPort)): \(String(cString: strerror(error.errnoCode)))"
            )
        default:
            return ("network", "could not fetch \(shownURL): \(error)")
        }
    }

    static func timeAmount(_ duration: Duration) -> TimeAmount {
        .nanoseconds(duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
    }
}

extension AASAFetchResult.Outcome {
    /// Whether the outcome carries a file.
    var isFetched: Bool {
        if case .fetched = self { true } else { false }
    }
}

/// Thrown by ``withTimeout(_:_:)`` when the limit passes first.
struct FetchTimeout: Error {}

/// Runs `operation`, cancelling it and throwing ``FetchTimeout`` if it outlasts `limit`.
func withTimeout<T: Sendable>(
    _ limit: Duration, _ operation: @escaping @Sendable () async throws -> T
) async throws
    -> T
{
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: limit)
            throw FetchTimeout()
        }
        defer { group.cancelAll() }
        return try await group.next()!
    }
}
