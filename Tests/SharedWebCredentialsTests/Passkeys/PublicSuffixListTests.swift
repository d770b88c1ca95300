import Foundation
import SharedWebCredentialsData
import Testing

@testable import SharedWebCredentials

@Suite("Public Suffix List")
struct PublicSuffixListTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test("the embedded copy is byte for byte the committed file (run Scripts/embed-resources if not)")
    func embeddedMatchesCommittedFile() throws {
        let committed = try Data(
            contentsOf: Self.root.appendingPathComponent("Resources/publicsuffix/public_suffix_list.dat"))
        #expect(Data(EmbeddedPublicSuffixListData.text.utf8) == committed)
        #expect(PublicSuffixList.embedded.skippedRules.isEmpty, "\(PublicSuffixList.embedded.skippedRules)")
        #expect(PublicSuffixList.embedded.ruleCount > 9000)
    }

    /// The list's own conformance file, `checkPublicSuffix(host, registrableDomain)` per line
    /// (null: no registrable domain). Inputs the gate's host syntax refuses (a leading dot, a
    /// lone label) must have no registrable domain there, and are refused by RelyingPartyID.
    @Test("the list's conformance tests (test_psl.txt) pass")
    func conformance() throws {
        let text = try String(
            contentsOf: Self.root.appendingPathComponent("Tests/Passkeys/test_psl.txt"), encoding: .utf8)
        var checked = 0
        for line in text.split(separator: "\n") where line.hasPrefix("checkPublicSuffix(") {
            let arguments = line.dropFirst("checkPublicSuffix(".count).prefix { $0 != ")" }
                .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard arguments.count == 2 else { continue }
            func unquote(_ text: String) -> String? { text == "null" ? nil : String(text.dropFirst().dropLast()) }
            guard let input = unquote(arguments[0]) else { continue }
            // Hosts are compared in their ASCII form: the file writes some IDNs in Unicode.
            let expected = unquote(arguments[1]).map { (try? HostName.normalize($0, context: "host").host) ?? $0 }
            let registrable = (try? HostName.normalize(input, context: "host")).flatMap {
                $0.kind == .domain ? PublicSuffixList.embedded.registrableDomain(ofNormalizedHost: $0.host) : nil
            }
            #expect(registrable == expected, "checkPublicSuffix(\(arguments[0]), \(arguments[1]))")
            checked += 1
        }
        #expect(checked > 60)
    }

    @Test("ICANN and private suffixes, wildcards and exceptions")
    func rules() {
        let list = PublicSuffixList.embedded
        for suffix in ["com", "co.uk", "github.io", "blogspot.com", "anything.ck", "foo.kawasaki.jp"] {
            #expect(list.isPublicSuffix(normalizedHost: suffix), "\(suffix)")
        }
        // Exceptions (!www.ck, !city.kawasaki.jp); kawasaki.jp itself falls under jp, not *.kawasaki.jp.
        #expect(list.registrableDomain(ofNormalizedHost: "www.ck") == "www.ck")
        #expect(list.registrableDomain(ofNormalizedHost: "city.kawasaki.jp") == "city.kawasaki.jp")
        #expect(list.registrableDomain(ofNormalizedHost: "kawasaki.jp") == "kawasaki.jp")
        #expect(list.registrableDomain(ofNormalizedHost: "a.b.example.co.uk") == "example.co.uk")
        #expect(list.registrableDomain(ofNormalizedHost: "user.github.io") == "user.github.io")
        #expect(list.registrableDomain(ofNormalizedHost: "unlisted-tld-xyz") == nil)
        // A small list shows the algorithm without the real one's size.
        let small = PublicSuffixList(
            text: "// comment\ncom\n*.wild.test   trailing words\n!keep.wild.test\nbücher.test\n\n")
        #expect(small.ruleCount == 4)
        #expect(small.isPublicSuffix(normalizedHost: "x.wild.test"))
        #expect(!small.isPublicSuffix(normalizedHost: "keep.wild.test"))
        #expect(small.isPublicSuffix(normalizedHost: "xn--bcher-kva.test"))
        #expect(small.publicSuffix(ofNormalizedHost: "a.b.example.com") == "com")
    }
}
