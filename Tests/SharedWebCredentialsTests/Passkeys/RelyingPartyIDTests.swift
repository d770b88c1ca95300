import Testing

@testable import SharedWebCredentials

@Suite("Passkey RP IDs and which apps may use them")
struct RelyingPartyIDTests {
    static func refusal(_ input: String) -> WebAuthnError? {
        PasskeyTestSupport.webAuthnError { _ = try RelyingPartyID(input) }
    }

    @Test(
        "public suffixes, IP addresses, single labels and malformed names are refused as SecurityError",
        arguments: [
            "com", "co.uk", "github.io", "blogspot.com", "foo.kawasaki.jp", "127.0.0.1", "[::1]", "::1",
            "2001:db8::1", "", "localhost", "intranet", "example..com", ".example.com", "example.com.",
            "https://example.com", "example.com/login", "example.com:443", "exa mple.com",
            String(repeating: "a", count: 64) + ".example.com",
            Array(repeating: "abcdefghij", count: 25).joined(separator: ".") + ".com", "-bad.example.com",
        ])
    func refused(_ input: String) throws {
        let error = try #require(Self.refusal(input), "\(input) was accepted")
        #expect(error.name == .security)
        #expect(error.code == .invalidInput)
    }

    @Test("a registrable domain is accepted in lower-case ASCII; IDNs in their xn-- form")
    func accepted() throws {
        #expect(try RelyingPartyID("Login.Example.COM").value == "login.example.com")
        #expect(try RelyingPartyID("user.github.io").value == "user.github.io")
        #expect(try RelyingPartyID("example.co.uk").value == "example.co.uk")
        #expect(try RelyingPartyID("bücher.example").value == "xn--bcher-kva.example")
        #expect(try RelyingPartyID(String(repeating: "a", count: 63) + ".example.com").value.count == 75)
    }

    @Test("the public-suffix refusal says why")
    func publicSuffixMessage() throws {
        let error = try #require(Self.refusal("github.io"))
        #expect(error.message.contains("public suffix"))
    }

    @Test("an app may use exactly an approved domain: not a subdomain, not a parent, not another site")
    func exactApprovedDomain() throws {
        let approved = ["login.example.com", "Shop.Example.ORG", "example.net:8443", "not a host"]
        func allowed(_ rpID: String) throws -> Bool {
            RelyingPartyPolicy.isAllowed(try RelyingPartyID(rpID), approvedDomains: approved)
        }
        #expect(try allowed("login.example.com"))
        #expect(try allowed("shop.example.org"))
        #expect(try !allowed("example.com"))
        #expect(try !allowed("www.login.example.com"))
        #expect(try !allowed("example.net"))
        #expect(try !allowed("evil.example"))
        let error = try #require(
            PasskeyTestSupport.webAuthnError {
                try RelyingPartyPolicy.requireAllowed(
                    try RelyingPartyID("evil.example"), approvedDomains: approved, app: "ABCDE12345.com.example.app")
            })
        #expect(error.name == .security)
        #expect(error.code == .notApproved)
        #expect(error.sharedWebCredentialsError.code.exitStatus == 4)
    }
}
