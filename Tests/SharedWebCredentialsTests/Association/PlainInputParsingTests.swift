import SharedWebCredentials
import SharedWebCredentialsCore
import Testing

/// The one-pass parsers for the common case (`ApplicationIdentifier(_:)` for a well-formed Apple
/// identifier, `HostName.plainDomain` for a plain domain name) must decide every input exactly as
/// the validating parsers do: the same identifier or host, or no shortcut and the same error.
@Suite("plain identifiers and domains parsed in one pass")
struct PlainInputParsingTests {
    /// Characters the mutations draw from: every class either parser treats apart, with the
    /// look-alikes that Unicode case mapping or normalisation would turn into ASCII.
    static let alphabet: [Character] = [
        "a", "z", "A", "Z", "0", "9", ".", "-", "_", " ", "\t", "/", ":", "[", "]", "é", "É", "ß", "K", "\u{212A}",
        "\u{301}", "١",
    ]

    static let identifierSeeds = [
        "ABCDE12345.com.example.app", "ABCDE12345.a", "0123456789.com.example.app-beta", "ABCDE12345.A-B.c9",
        "android:com.example.shop",
    ]
    static let domainSeeds = [
        "shop.example", "Shop.Example.COM", "a.b", "xn--bcher-kva.example", "a-b.c-d.e9", "sub.1example.co",
        "1.2.3.4", "localhost", "wiki", String(repeating: "a", count: 63) + ".example",
        (0..<4).map { _ in String(repeating: "b", count: 60) }.joined(separator: ".") + ".example",
    ]

    /// Seeds and, for each, mutations: a character replaced, inserted or removed, up to three times.
    static func mutations(of seeds: [String], rounds: Int, seed: UInt64) -> [String] {
        var generator = SeededGenerator(seed: seed)
        var texts = seeds
        for _ in 0..<rounds {
            var text = Array(seeds.randomElement(using: &generator)!)
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                let character = alphabet.randomElement(using: &generator)!
                let index = Int.random(in: 0...text.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0 where index < text.count: text[index] = character
                case 1: text.insert(character, at: index)
                default: if index < text.count { text.remove(at: index) }
                }
            }
            texts.append(String(text))
        }
        return texts
    }

    /// What a parser made of `text`: its result, or its error's message.
    static func outcome<T>(_ parse: () throws -> T) -> String {
        do { return "\(try parse())" } catch { return "error: \(error)" }
    }

    @Test("an application identifier parses as the validating parser parses it")
    func identifiers() {
        let texts = Self.mutations(of: Self.identifierSeeds, rounds: 20_000, seed: 24)
        var accepted = 0
        for text in texts {
            let fast = Self.outcome { try ApplicationIdentifier(text) }
            let validated = Self.outcome { try ApplicationIdentifier.validated(text) }
            #expect(fast == validated, "\(text.debugDescription)")
            if !fast.hasPrefix("error") { accepted += 1 }
        }
        // Both sides of the shortcut are exercised: many accepted, many refused.
        #expect(accepted > 1_000 && accepted < texts.count - 1_000)
    }

    @Test("a domain normalises as the validating normaliser does it")
    func domains() {
        let texts = Self.mutations(of: Self.domainSeeds, rounds: 20_000, seed: 25)
        var shortcuts = 0
        for text in texts {
            let validated = Self.outcome { try HostName.normalizeValidating(text, context: "domain") }
            if let host = HostName.plainDomain(text) {
                shortcuts += 1
                #expect("\((host: host, kind: HostName.Kind.domain))" == validated, "\(text.debugDescription)")
                // A request's domain takes the same shortcut: no port, the same host.
                let target = try? DomainTarget(text)
                #expect(target?.host == host && target?.port == nil, "\(text.debugDescription)")
            }
            #expect(
                Self.outcome { try HostName.normalize(text, context: "domain") } == validated,
                "\(text.debugDescription)")
        }
        #expect(shortcuts > 1_000 && shortcuts < texts.count - 1_000)
    }
}
