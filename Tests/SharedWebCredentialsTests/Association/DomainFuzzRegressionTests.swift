import Foundation
import SharedWebCredentials
import Testing

/// Inputs found by (or written for) the FuzzDomainEntry fuzzer, checked the way the fuzzer checks
/// them: parsing never traps, and whatever parses prints a form that parses back to the same value.
@Suite("associated-domain parsers against the fuzz corpus")
struct DomainFuzzRegressionTests {
    static let corpus = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/Corpus/FuzzDomainEntry")

    /// The fuzz target's own checks, as one function.
    static func checkRoundTrips(_ text: String) throws {
        if let entry = try? AssociatedDomainEntry(text) {
            #expect(try AssociatedDomainEntry(entry.description) == entry, "entry \(text.debugDescription)")
            #expect(entry.covers(entry.aasaTarget))
        }
        if let target = try? DomainTarget(text, allowDeveloperHosts: true) {
            #expect(
                try DomainTarget(target.description, allowDeveloperHosts: true) == target, "\(text.debugDescription)")
        }
        _ = try? DomainTarget(text)
        _ = try? ApplicationIdentifier(text)
    }

    @Test("every committed FuzzDomainEntry input parses without a trap and round-trips")
    func committedCorpus() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.corpus.path).sorted()
        #expect(files.contains("crash-98e3874363cd9a431ee4740662433ab82d93d0a2"))
        for file in files {
            let bytes = try Data(contentsOf: Self.corpus.appendingPathComponent(file))
            try Self.checkRoundTrips(String(decoding: bytes, as: UTF8.self))
        }
    }

    /// crash-98e38743… (found by FuzzDomainEntry, minimised) is `2` U+033F `...`: a digit with a
    /// combining mark is one `Character` that sorts between "0" and "9", so the IPv4 check took it
    /// for a digit and force-unwrapped `Int("2̿")`, which is nil.
    @Test("a digit with a combining mark is not an IPv4 octet (fuzz crash 98e38743)")
    func digitWithCombiningMarkInAddress() throws {
        let bytes = try Data(
            contentsOf: Self.corpus.appendingPathComponent("crash-98e3874363cd9a431ee4740662433ab82d93d0a2"))
        #expect(Array(bytes) == [0x32, 0xCC, 0xBF, 0x2E, 0x2E, 0x2E])
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(throws: SharedWebCredentialsError.self) { try DomainTarget(text, allowDeveloperHosts: true) }
        #expect(throws: SharedWebCredentialsError.self) {
            try AssociatedDomainEntry("webcredentials:\(text)?mode=developer")
        }
        let numericTop = #expect(throws: SharedWebCredentialsError.self) { try DomainTarget("1\u{301}.2.3.4") }
        #expect(numericTop?.message.contains("is numeric") == true)
        #expect(throws: SharedWebCredentialsError.self) {
            try AssociatedDomainEntry("webcredentials:1.2.3.4\u{20E3}?mode=developer")
        }
        #expect(try DomainTarget("1.2.3.4", allowDeveloperHosts: true).host == "1.2.3.4")
    }

    @Test(
        "an address with a NUL is refused: inet_pton would stop reading at the NUL",
        arguments: ["::1␀.evil.example", "[::1␀evil]", "fe80::1␀"])
    func addressWithNUL(_ pattern: String) {
        // ␀ stands for the NUL so that the test's name stays printable.
        let text = pattern.replacingOccurrences(of: "␀", with: "\u{0}")
        #expect(text.utf8.contains(0))
        #expect(throws: SharedWebCredentialsError.self) { try DomainTarget(text, allowDeveloperHosts: true) }
        #expect(throws: SharedWebCredentialsError.self) {
            try AssociatedDomainEntry("webcredentials:\(text.hasPrefix("[") ? text : "[\(text)]")?mode=developer")
        }
    }

    @Test(
        "a port digit with a combining mark is refused, not taken for a digit",
        arguments: ["example.com:8\u{301}", "example.com:4\u{20E3}43", "example.com:0\u{300}8080"])
    func digitWithCombiningMarkInPort(_ text: String) {
        let error = #expect(throws: SharedWebCredentialsError.self) { try DomainTarget(text) }
        #expect(error?.code == .invalidInput)
        #expect(error?.message.contains("is not in 1...65535") == true)
        #expect(throws: SharedWebCredentialsError.self) { try AssociatedDomainEntry("webcredentials:\(text)") }
    }

    @Test("a Unicode label too long for 63 characters is refused before Punycode encodes it")
    func hugeUnicodeLabel() throws {
        let huge = String(String.UnicodeScalarView((0..<20_000).map { Unicode.Scalar(0x4E00 + $0)! })) + ".com"
        let error = #expect(throws: SharedWebCredentialsError.self) { try DomainTarget(huge) }
        #expect(error?.message.contains("longer than 63 characters in its xn-- form") == true)
        let sixty = String(repeating: "é", count: 60) + ".com"
        #expect(throws: SharedWebCredentialsError.self) { try DomainTarget(sixty) }
        #expect(try DomainTarget("bücher.example").host == "xn--bcher-kva.example")
    }
}
