import Testing

@testable import SharedWebCredentials

/// `--connect-to HOST:PORT:ADDR:PORT2`, as curl reads it: an IPv4 address, an IPv6 address in
/// brackets or a host name for ADDR; empty fields keep the request's own; anything else is refused,
/// naming the field.
@Suite("--connect-to rules")
struct ConnectToRuleTests {
    @Test(
        "ADDR may be an IPv4 address, an IPv6 address in brackets, a host name, or empty",
        arguments: [
            ("example.com:443:127.0.0.1:8443", "127.0.0.1", 443, 8443),
            ("example.com::[::1]:8443", "::1", nil, 8443),
            ("Example.COM:443:Other.Example:", "other.example", 443, nil),
            ("example.com:443::", nil, 443, nil),
        ] as [(String, String?, Int?, Int?)])
    func parsed(text: String, address: String?, port: Int?, connectPort: Int?) throws {
        let rule = try ConnectToRule(text)
        #expect(rule.host == "example.com")
        #expect(rule.address?.lowercased() == address && rule.port == port && rule.connectPort == connectPort)
        #expect(try ConnectToRule(rule.description) == rule, "\(rule.description) reads back as itself")
    }

    @Test(
        "a rule that is not HOST:PORT:ADDR:PORT2 is refused, naming what is wrong",
        arguments: [
            ("example.com:443:127.0.0.1", "it has 3 fields, not 4"),
            ("example.com:443:not a host!:8443", "ADDR \"not a host!\" is neither an IP address nor a host name"),
            ("example.com:443:::1:8443", "it has 6 fields, not 4"),
        ])
    func refused(text: String, problem: String) {
        let error = #expect(throws: SharedWebCredentialsError.self) { try ConnectToRule(text) }
        #expect(error?.code == .invalidInput)
        #expect(error?.message.contains(problem) == true, "\(String(describing: error))")
    }

    @Test("a rule applies to its host, at its port when it names one, at every port when it does not")
    func matches() throws {
        let at443 = try ConnectToRule("example.com:443:127.0.0.1:8443")
        let anyPort = try ConnectToRule("example.com::127.0.0.1:8443")
        #expect(at443.matches(try DomainTarget("example.com")), "the default port, 443")
        #expect(!at443.matches(try DomainTarget("example.com:8443")))
        #expect(!at443.matches(try DomainTarget("other.example")))
        #expect(anyPort.matches(try DomainTarget("example.com")))
        #expect(anyPort.matches(try DomainTarget("example.com:8443")))
        #expect(!anyPort.matches(try DomainTarget("other.example")))
    }
}
