import SharedWebCredentials
import Testing

@Suite("associated-domain entries, hosts and IDNA")
struct DomainEntryTests {
    @Test("entries parse into service, host, wildcard, port and modes")
    func valid() throws {
        let plain = try AssociatedDomainEntry("webcredentials:Example.COM")
        #expect(plain.service == .webcredentials)
        #expect(plain.host == "example.com")
        #expect(!plain.isWildcard && plain.port == nil && plain.modes.isEmpty)
        let full = try AssociatedDomainEntry("webcredentials:*.example.com:8443?mode=developer+managed")
        #expect(full.isWildcard && full.host == "example.com" && full.port == 8443)
        #expect(full.modes == [.developer, .managed])
        #expect(full.description == "webcredentials:*.example.com:8443?mode=developer+managed")
        #expect(try AssociatedDomainEntry("applinks:example.com:443").port == nil)
        #expect(try AssociatedDomainEntry("webcredentials:127.0.0.1:8443?mode=developer").host == "127.0.0.1")
        #expect(try AssociatedDomainEntry("webcredentials:[::1]:8443?mode=developer").host == "::1")
        #expect(try AssociatedDomainEntry("webcredentials:localhost?mode=developer").host == "localhost")
        #expect(try AssociatedDomainEntry("activitycontinuation:example.com").service == .activitycontinuation)
        #expect(try AssociatedDomainEntry("appclips:example.com?mode=managed").modes == [.managed])
    }

    @Test(
        "bad entries are rejected with the rule they break",
        arguments: [
            ("example.com", "expected SERVICE:HOST"),
            ("webcredential:example.com", "unknown service"),
            ("https://example.com", "remove the scheme"),
            ("webcredentials:https://example.com", "remove the scheme"),
            ("webcredentials://example.com", "remove the scheme"),
            ("webcredentials:example.com/login", "path"),
            ("webcredentials:example.com/", "trailing slash"),
            ("webcredentials:example.com.", "trailing dot"),
            ("webcredentials:.example.com", "starts with a dot"),
            ("webcredentials:example..com", "empty label"),
            ("webcredentials:", "host is empty"),
            ("webcredentials:com", "no dot"),
            ("webcredentials:*.com", "bare TLDs"),
            ("webcredentials:example", "no dot"),
            ("webcredentials:exa*mple.com", "leading \"*.\""),
            ("webcredentials:*example.com", "leading \"*.\""),
            ("webcredentials:www.*.example.com", "leading \"*.\""),
            ("webcredentials:example.com?foo=bar", "only query allowed"),
            ("webcredentials:example.com?mode=production", "unknown mode"),
            ("webcredentials:example.com?mode=", "unknown mode"),
            ("webcredentials:example.com:0", "not in 1...65535"),
            ("webcredentials:example.com:65536", "not in 1...65535"),
            ("webcredentials:example.com:http", "not in 1...65535"),
            ("webcredentials:example.com:", "not in 1...65535"),
            ("webcredentials:192.168.1.1", "IP address is allowed only with ?mode=developer"),
            ("webcredentials:[::1]", "IP address is allowed only with ?mode=developer"),
            ("webcredentials:localhost", "localhost is allowed only with ?mode=developer"),
            ("webcredentials:*.localhost?mode=developer", "wildcard needs a domain name"),
            ("webcredentials:exa mple.com", "white space"),
            ("webcredentials:exam_ple.com", "only letters, digits and hyphens"),
            ("webcredentials:-example.com", "starts or ends with a hyphen"),
            ("webcredentials:example-.com", "starts or ends with a hyphen"),
            ("webcredentials:example.123", "numeric"),
            ("webcredentials:\(String(repeating: "a", count: 64)).com", "longer than 63"),
            ("webcredentials:ex☃ample.com", "not allowed in host names"),
        ])
    func invalid(text: String, rule: String) {
        do {
            let entry = try AssociatedDomainEntry(text)
            Issue.record("accepted \(text) as \(entry)")
        } catch let error as SharedWebCredentialsError {
            #expect(error.code == .invalidInput)
            #expect(error.message.contains(rule), "\(error.message)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test(
        "Unicode hosts become their xn-- punycode form (RFC 3492 vectors)",
        arguments: [
            ("bücher.example", "xn--bcher-kva.example"),
            ("BÜCHER.example", "xn--bcher-kva.example"),
            ("münchen.de", "xn--mnchen-3ya.de"),
            ("例え.jp", "xn--r8jz45g.jp"),
            ("пример.рф", "xn--e1afmkfd.xn--p1ai"),
            ("bu\u{0308}cher.example", "xn--bcher-kva.example"),
            ("straße.de", "xn--strae-oqa.de"),
            ("他们为什么不说中文.example", "xn--ihqwcrb4cv8a8dqg056pqjye.example"),
        ])
    func idna(input: String, expected: String) throws {
        #expect(try DomainTarget(input).host == expected)
    }

    @Test("request domains: host with optional port; 443 is the default")
    func targets() throws {
        #expect(try DomainTarget("example.com:8443").description == "example.com:8443")
        #expect(try DomainTarget("example.com:443").port == nil)
        #expect(throws: SharedWebCredentialsError.self) { try DomainTarget("127.0.0.1") }
        #expect(try DomainTarget("127.0.0.1:8443", allowDeveloperHosts: true).description == "127.0.0.1:8443")
        #expect(throws: SharedWebCredentialsError.self) { try DomainTarget("https://example.com") }
    }

    @Test("coverage: exact entries, wildcards including their parent, ports must match")
    func coverage() throws {
        let wildcard = try AssociatedDomainEntry("webcredentials:*.example.com")
        #expect(wildcard.covers(try DomainTarget("example.com")))
        #expect(wildcard.covers(try DomainTarget("a.b.example.com")))
        #expect(!wildcard.covers(try DomainTarget("badexample.com")))
        #expect(!wildcard.covers(try DomainTarget("example.com:8443")))
        #expect(wildcard.aasaTarget == (try DomainTarget("example.com")))
        let exact = try AssociatedDomainEntry("webcredentials:login.example.com:8443")
        #expect(exact.covers(try DomainTarget("login.example.com:8443")))
        #expect(!exact.covers(try DomainTarget("login.example.com")))
        #expect(!exact.covers(try DomainTarget("a.login.example.com:8443")))
    }

    @Test("an exact entry beats a wildcard, a narrower wildcard beats a broader one, other services never cover")
    func precedence() throws {
        let entitlements = try Entitlements(strings: [
            "webcredentials:*.example.com", "webcredentials:*.shop.example.com", "webcredentials:login.example.com",
            "applinks:other.com",
        ])
        #expect(entitlements.webcredentialsEntry(covering: try DomainTarget("login.example.com"))?.isWildcard == false)
        #expect(
            entitlements.webcredentialsEntry(covering: try DomainTarget("a.shop.example.com"))?.host
                == "shop.example.com")
        #expect(entitlements.webcredentialsEntry(covering: try DomainTarget("www.example.com"))?.host == "example.com")
        #expect(entitlements.webcredentialsEntry(covering: try DomainTarget("other.com")) == nil)
        #expect(entitlements.webcredentialsEntries.count == 3, "the applinks entry grants no credentials")
    }
}
