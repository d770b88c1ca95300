import Testing

@testable import SharedWebCredentials

/// The host check behind a "wrong host" diagnosis (RFC 6125): a certificate's name covers a host
/// only exactly, or as `*.` standing for exactly one left-most label, so the message never calls
/// a certificate wrong that the handshake would take, nor right one it would refuse.
@Suite("TLS diagnosis: which certificate names cover a host")
struct TLSProblemDiagnoserTests {
    @Test(
        "exact names and one-label wildcards cover; a wildcard never covers two labels, its bare domain or another",
        arguments: [
            ("shop.example", "shop.example", true),
            ("shop.example", "www.shop.example", false),
            ("*.example.com", "a.example.com", true),
            ("*.example.com", "a.b.example.com", false),
            ("*.example.com", "example.com", false),
            ("*.example.com", "a.example.org", false),
            ("*.example.com", "aexample.com", false),
            ("x*.example.com", "xa.example.com", false),
            ("*example.com", "aexample.com", false),
        ])
    func covers(pattern: String, host: String, covered: Bool) {
        #expect(TLSProblemDiagnoser.matches(pattern: pattern, host: host) == covered)
    }
}
