import Testing

@testable import SharedWebCredentials
@testable import SharedWebCredentialsTransfer

/// What an imported URL's text before its colon is taken for: a scheme (an ASCII letter, then
/// ASCII letters, digits, `+` or `-`), named in the summary as a URL that is not a website, or,
/// with a dot, a host with its port.
@Suite("import: a URL's scheme, named, or a host with its port")
struct SiteAddressSchemeTests {
    @Test(
        "schemes with +, - and digits are named; text that is no scheme is no web address",
        arguments: [
            ("svn+ssh://example.com/repo", "svn+ssh: URL"), ("git-ssh://example.com/repo", "git-ssh: URL"),
            ("x3://example.com", "x3: URL"), ("mailto:alice@example.com", "mailto: URL"),
            ("ék://example.com", "no web address"), ("x_y://example.com", "no web address"),
            ("a.b://example.com", "no web address"), ("3x://example.com", "no web address"),
        ])
    func scheme(url: String, what: String) throws {
        #expect(try SiteAddress.parse(url) == .notWeb(what))
    }

    @Test("a dotted name before a colon and digits is a host with its port, not a scheme")
    func hostWithPort() throws {
        guard case .site(let site) = try SiteAddress.parse("example.com:8443") else {
            Issue.record("example.com:8443 was not taken for a site")
            return
        }
        #expect(site.host == "example.com" && site.port == 8443)
    }

    @Test("a word before a colon and digits is a host and port (a bare single label: no web address), not a scheme")
    func wordWithPort() throws {
        #expect(try SiteAddress.parse("intranet:8080") == .notWeb("no web address: no scheme, and no host name"))
        #expect(try SiteAddress.parse("intranet:abc") == .notWeb("intranet: URL"))
    }

    @Test(
        "text before a colon and a letter that cannot be a scheme (a dot, _, a digit first, é) is no scheme: no web address",
        arguments: ["shop.example:abc", "x_y:abc", "3x:abc", "ék:abc"])
    func noSchemeBeforeColon(text: String) throws {
        #expect(try SiteAddress.parse(text) == .notWeb("no web address: no scheme, and no host name"))
    }

    @Test("an empty URL, or one of spaces only, is refused as empty", arguments: ["", "   "])
    func empty(text: String) {
        let error = #expect(throws: SharedWebCredentialsError.self) { try SiteAddress.parse(text) }
        #expect(error?.code == .invalidInput && error?.message == "the URL is empty", "\(String(describing: error))")
    }
}
