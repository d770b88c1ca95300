import Foundation
import PropertyBased
import Testing

@testable import SharedWebCredentials
@testable import SharedWebCredentialsTransfer

/// The URL of an imported row (``SiteAddress``, which every import format's rows go through) as
/// properties: any text is read or refused with an error, never a crash; a web URL's scheme, host
/// and port are the ones Foundation's own parser finds; a port out of range is an error.
@Suite("import: the URL of a row over generated text")
struct SiteAddressPropertyTests {
    /// A URL written as password managers write them, in parts.
    struct ImportedURL: Sendable, CustomStringConvertible {
        var scheme: String
        var userInformation: String
        var host: String
        var port: String?
        var rest: String

        var text: String { "\(scheme)\(userInformation)\(host)\(port.map { ":\($0)" } ?? "")\(rest)" }
        var description: String { text }
    }

    static let urls = Generator<ImportedURL, Shrink.None<ImportedURL>>(run: { random in
        let scheme = [
            "https://", "http://", "HTTPS://", "HtTp://", "", "ftp://", "ssh://", "android://",
        ].randomElement(using: &random)!
        var host = [
            "shop.example", "a.b.shop.example", "xn--bcher-kva.example", "intranet", "192.0.2.1", "[::1]",
            "localhost", "shop.example.", "shop..example",
        ].randomElement(using: &random)!
        if Bool.random(using: &random) { host = host.uppercased() }
        let port = [
            nil, nil, "443", "80", "8443", "1", "65535", "0443", "00080", "0", "65536", "99999", "123456",
            String(Int.random(in: 1...65535, using: &random)),
        ].randomElement(using: &random)!
        return ImportedURL(
            scheme: scheme,
            userInformation: ["", "", "user@", "user:Pw-secret@"].randomElement(using: &random)!,
            host: host, port: port,
            rest: [
                "", "/", "/login?a=1&b=%2F", "#fragment", "?q", "/?next=a,https://evil.example/",
                "/?q=\"quoted\",x\ny",
            ].randomElement(using: &random)!)
    })

    @Test("a web URL's scheme, host and port are what Foundation's URL parser finds; a bad port is an error")
    func agreesWithReferenceParse() async {
        await propertyCheck(count: 500, input: Self.urls) { url in
            let scheme = url.scheme.lowercased()
            guard scheme == "https://" || scheme == "http://" else { return }
            var parsed: SiteAddress?
            var failure: SharedWebCredentialsError?
            do { parsed = try SiteAddress.parse(url.text) } catch { failure = error as? SharedWebCredentialsError }
            if let port = url.port, Int(port).map({ !(1...65535).contains($0) }) ?? true {
                #expect(failure?.code == .invalidInput, "\(url): \(String(describing: parsed))")
                #expect(failure?.message.contains("Pw-secret") != true, "\(url): the error quotes the password")
                return
            }
            // Hosts swcred keeps, as URLComponents reads them (its host as written, IDNs in
            // xn-- form, lower-cased): the reference for the parts.
            guard
                ["shop.example", "a.b.shop.example", "xn--bcher-kva.example", "intranet"].contains(
                    url.host.lowercased()),
                let reference = URLComponents(string: url.text.lowercased()), let host = reference.encodedHost
            else { return }
            let defaultPort = scheme == "https://" ? 443 : 80
            let expected = CredentialSite(
                scheme: scheme == "https://" ? .https : .http, host: host,
                port: reference.port == defaultPort ? nil : reference.port)
            #expect(
                parsed == .site(expected), "\(url): \(String(describing: parsed ?? failure.map { .notWeb("\($0)") }))")
        }
    }

    @Test("found by the property: http on port 443 written with a leading zero keeps port 443, not http's 80")
    func leadingZeroPort443() throws {
        let http443 = CredentialSite(scheme: .http, host: "a.b.shop.example", port: 443)
        #expect(try SiteAddress.parse("http://user:Pw-secret@a.b.shop.example:0443/login?a=1&b=%2F") == .site(http443))
        #expect(try SiteAddress.parse("http://a.b.shop.example:00443") == .site(http443))
        #expect(try CredentialSite("http://a.b.shop.example:0443") == http443)
        #expect(try CredentialSite("https://a.b.shop.example:0443").port == nil)
        #expect(try CredentialSite("http://[::1]:0443", allowDeveloperHosts: true).port == 443)
        #expect(try CredentialSite("http://[::443]", allowDeveloperHosts: true).port == nil)
    }

    @Test(
        "an android:// URL is the app its authority ends with, after any signature; one naming no app is an error",
        arguments: [
            ("android://com.example.app", "com.example.app"),
            ("android://c2lnbmF0dXJl@com.example.app/", "com.example.app"),
            ("ANDROID://com.example.app/path", "com.example.app"),
            ("android://", nil),
            ("android://c2lnbmF0dXJl@", nil),
            ("android:///com.example.app", nil),
        ] as [(String, String?)])
    func androidApp(url: String, package: String?) throws {
        guard let package else {
            let error = try #require(throws: SharedWebCredentialsError.self) { try SiteAddress.parse(url) }
            #expect(error.code == .invalidInput && error.message.contains("names no package"), "\(error.message)")
            return
        }
        #expect(try SiteAddress.parse(url) == .android(package: package))
    }

    @Test("any text is read or refused with an error that names it invalid, never a crash")
    func anyText() async {
        let pieces = [
            "https://", "http://", "HTTP://", "://", ":", "//", "/", "@", "[", "]", ".", "..", "xn--", "ü", "%00",
            "\u{0}", " ", "\t", "\n", "#", "?", "android://", "a", "example", "com", "0", "65536", "😀", "\u{202E}",
        ]
        let text = Generator<String, Shrink.None<String>>(run: { random in
            (0..<Int.random(in: 0...12, using: &random)).map { _ in
                Bool.random(using: &random)
                    ? pieces.randomElement(using: &random)!
                    : String(UnicodeScalar(UInt8.random(in: 0...255, using: &random)))
            }.joined()
        })
        await propertyCheck(count: 1000, input: text) { text in
            do {
                _ = try SiteAddress.parse(text)
            } catch let error as SharedWebCredentialsError {
                #expect(error.code == .invalidInput, "\(text.debugDescription): \(error)")
            } catch {
                Issue.record("\(text.debugDescription): \(error)")
            }
        }
    }
}
