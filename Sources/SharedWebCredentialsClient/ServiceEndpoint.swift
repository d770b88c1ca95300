import AsyncHTTPClient
import Foundation
import SharedWebCredentials

/// Where a running `swcred serve` answers: a Unix socket path, or an `https://` URL of its TLS
/// listener. There is no plaintext TCP.
public enum ServiceEndpoint: Sendable, Equatable, CustomStringConvertible {
    /// A Unix domain socket.
    case unixSocket(path: String)
    /// The TLS listener at this base URL (`https://host:port`).
    case https(URL)

    /// Parses `--server` / `SWCRED_SERVER`: a socket path (absolute or relative, or `unix:PATH`)
    /// or an `https://` URL.
    public init(_ text: String) throws {
        if text.hasPrefix("https://") {
            guard let url = URL(string: text), url.host != nil else {
                throw SharedWebCredentialsError(.invalidInput, "--server \"\(text)\" is not a valid https:// URL")
            }
            self = .https(url)
            return
        }
        if text.hasPrefix("http://") {
            throw SharedWebCredentialsError(
                .invalidInput,
                "--server \"\(text)\": the service has no plaintext TCP; use its Unix socket or an https:// URL")
        }
        let path = text.hasPrefix("unix:") ? String(text.dropFirst(5)) : text
        guard !path.isEmpty, !path.contains("://") else {
            throw SharedWebCredentialsError(
                .invalidInput, "--server \"\(text)\" is neither a socket path nor an https:// URL")
        }
        self = .unixSocket(path: path)
    }

    public var description: String {
        switch self {
        case .unixSocket(let path): path
        case .https(let url): url.absoluteString
        }
    }

    /// The base URL the API's paths (`/v1/...`) are appended to: `http+unix://` with the socket
    /// path percent-encoded as the host and no path (AsyncHTTPClient's initialiser ends it with
    /// `/`, which made every request line `//v1/...`), or the TLS listener's URL without a
    /// trailing slash.
    var baseURL: URL? {
        switch self {
        case .unixSocket(let path):
            guard let withRoot = URL(httpURLWithSocketPath: path, uri: "/"),
                var components = URLComponents(url: withRoot, resolvingAgainstBaseURL: false)
            else { return nil }
            components.percentEncodedPath = ""
            return components.url
        case .https(let base):
            let text = base.absoluteString
            return URL(string: text.hasSuffix("/") ? String(text.dropLast()) : text)
        }
    }
}
