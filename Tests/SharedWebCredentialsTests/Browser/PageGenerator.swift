import PropertyBased

/// A generated web page address, kept in parts so a property can say what its site must be: the
/// scheme, user information, host and port as written, and whether the browser may fill http pages.
struct GeneratedPage: Sendable, CustomStringConvertible {
    var scheme: String
    var userInformation: String
    var host: String
    var port: String?
    var allowsHTTP: Bool

    var url: String { "\(scheme)://\(userInformation)\(host)\(port.map { ":\($0)" } ?? "")/login?next=%2F#top" }
    var description: String { "\(url) allowsHTTP=\(allowsHTTP)" }

    /// The hosts pages are generated on: real ones, their look-alikes (a parent, a child, a suffix
    /// or prefix added, a digit for a letter), an IDN in both forms, and ones no site may have.
    static let hosts = [
        "shop.example", "a.shop.example", "example.test", "plain.test", "shop.example.evil", "evilshop.example",
        "shop-example.test", "sh0p.example", "xn--bcher-kva.example", "bücher.example", "shop.example.",
        "shop..example", "-shop.example", "localhost", "192.0.2.1", "[::1]", "intranet",
    ]
    /// The hosts in ``hosts`` that name a site, with the host a credential for it is saved under.
    static let siteHosts: [String: String] = [
        "shop.example": "shop.example", "a.shop.example": "a.shop.example", "example.test": "example.test",
        "plain.test": "plain.test",
        "shop.example.evil": "shop.example.evil", "evilshop.example": "evilshop.example",
        "shop-example.test": "shop-example.test", "sh0p.example": "sh0p.example",
        "xn--bcher-kva.example": "xn--bcher-kva.example", "bücher.example": "xn--bcher-kva.example",
    ]

    /// The site the page belongs to by the written rule (docs/browser.md, "What a browser gets"), worked
    /// out apart from the code under test: nil when the page gets nothing.
    var expectedSite: (scheme: String, host: String, port: Int?)? {
        let scheme = self.scheme.lowercased()
        guard userInformation.isEmpty, scheme == "https" || (scheme == "http" && allowsHTTP),
            let host = Self.siteHosts[host.lowercased()]
        else { return nil }
        // An empty port is the default one (the URL Standard).
        guard let port, !port.isEmpty else { return (scheme, host, nil) }
        guard port.allSatisfy(\.isNumber), let number = Int(port), (1...65535).contains(number) else { return nil }
        return (scheme, host, number == (scheme == "https" ? 443 : 80) ? nil : number)
    }

    /// Pages over every part: schemes in any case (and others), user information, hosts with
    /// upper-case letters, and ports absent, the scheme's default written out, the other scheme's
    /// default, common and random ones, leading zeros, and ones out of range.
    static let generator = Generator<GeneratedPage, Shrink.None<GeneratedPage>>(run: { random in
        let scheme = ["https", "http", "HTTPS", "Http", "ftp", "ws", "javascript"].randomElement(using: &random)!
        let user = ["", "", "", "user@", "user:pw@", "@", "shop.example@"].randomElement(using: &random)!
        var host = hosts.randomElement(using: &random)!
        if Bool.random(using: &random) {
            host = String(host.map { Bool.random(using: &random) ? Character($0.uppercased()) : $0 })
        }
        let port = [
            nil, nil, "443", "80", "8443", "8080", "1", "65535", "0443", "0", "65536", "99999", "",
            String(Int.random(in: 1...65535, using: &random)),
        ].randomElement(using: &random)!
        return GeneratedPage(
            scheme: scheme, userInformation: user, host: host, port: port, allowsHTTP: Bool.random(using: &random))
    })
}
