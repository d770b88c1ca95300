import Foundation
import Testing

@testable import TestSupport

@Suite("swcred generate and swcred rules, end to end")
struct PasswordCommandTests {
    @Test("generate prints one strong password by default")
    func generateDefault() throws {
        let result = try SwcredProcess.run(["generate"])
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(lines.first?.count == 20)
        #expect(result.stderr.isEmpty)
    }

    @Test(
        "generate --count N prints N distinct passwords of the style's shape",
        arguments: [("strong", 20), ("strong-nodash", 18), ("classic", 15), ("legacy", 15)])
    func generateCount(style: String, length: Int) throws {
        let result = try SwcredProcess.run(["generate", "--style", style, "--count", "5000"])
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == 5000)
        #expect(lines.allSatisfy { $0.count == length })
        #expect(Set(lines).count == 5000)
    }

    @Test("generate --rules with 12 one-character required classes and max-consecutive answers within seconds")
    func pathologicalRules() throws {
        let rules =
            (0..<12).map { "required: [\(Array("!#$%&*+/=?@^")[$0])]; " }.joined()
            + "allowed: upper, lower, digit; max-consecutive: 2; minlength: 20; maxlength: 20"
        let started = Date()
        let result = try SwcredProcess.run(["generate", "--rules", rules])
        let seconds = Date().timeIntervalSince(started)
        // 666 s before the fix; well under a second in a release build.
        #expect(seconds < 20, "took \(seconds) s")
        if result.status == 0 {
            #expect(result.stdout.split(separator: "\n").first?.count == 20)
        } else {
            #expect(result.status == 2)
            #expect(result.stderr.contains("required classes"), "\(result.stderr)")
        }
    }

    @Test("generate streams a large count through its buffer intact")
    func generateLargeCount() throws {
        let result = try SwcredProcess.run(["generate", "--count", "200000"])
        #expect(result.status == 0)
        #expect(result.stdoutData.count == 200_000 * 21)
    }

    @Test("generate --json prints password, style and entropy_bits")
    func generateJSON() throws {
        let result = try SwcredProcess.run(["generate", "--style", "legacy", "--count", "3", "--json"])
        #expect(result.status == 0)
        let array = try #require(try JSONSerialization.jsonObject(with: result.stdoutData) as? [[String: Any]])
        #expect(array.count == 3)
        for item in array {
            #expect(Set(item.keys) == ["password", "style", "entropy_bits"])
            #expect(item["style"] as? String == "legacy")
            #expect((item["password"] as? String)?.count == 15)
            #expect(abs((item["entropy_bits"] as? Double ?? 0) - 69.06) < 0.01)
        }
    }

    @Test("generate --json escapes quotes and backslashes from the rules' characters")
    func generateJSONEscapes() throws {
        let result = try SwcredProcess.run([
            "generate", "--rules", "allowed: [\"\\\\]; minlength: 8", "--count", "50", "--json",
        ])
        #expect(result.status == 0)
        let array = try #require(try JSONSerialization.jsonObject(with: result.stdoutData) as? [[String: Any]])
        #expect(array.count == 50)
        #expect(array.allSatisfy { ($0["password"] as? String)?.allSatisfy { "\"\\".contains($0) } == true })
    }

    @Test("generate --rules satisfies the rules and reports the chosen style")
    func generateWithRules() throws {
        let rules = "minlength: 8; maxlength: 12; required: digit; required: [!#$]; allowed: lower"
        let result = try SwcredProcess.run(["generate", "--rules", rules, "--count", "200", "--json"])
        #expect(result.status == 0)
        let array = try #require(try JSONSerialization.jsonObject(with: result.stdoutData) as? [[String: Any]])
        for item in array {
            let password = try #require(item["password"] as? String)
            #expect((8...12).contains(password.count))
            #expect(password.contains { $0.isNumber } && password.contains { "!#$".contains($0) })
            #expect(item["style"] as? String == "classic")
        }
    }

    @Test(
        "bad generate arguments exit 2 with a clear message",
        arguments: [
            (["generate", "--style", "fancy"], "fancy"), (["generate", "--count", "0"], "--count"),
            (["generate", "--count", "-5"], "count"), (["generate", "--count", "100000001"], "--count"),
            (["generate", "--style", "strong", "--rules", "minlength: 8"], "either"),
            (["generate", "--rules", "minlength: 30; maxlength: 10"], "minlength"),
        ])
    func generateBadArguments(arguments: [String], mention: String) throws {
        let result = try SwcredProcess.run(arguments)
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains(mention))
    }

    @Test("rules parse prints the canonical form")
    func rulesParse() throws {
        let result = try SwcredProcess.run(["rules", "parse", "required: [*&^ABC]; allowed: upper"])
        #expect(result.status == 0)
        #expect(result.stdout == "required: [ABC&*^]; allowed: upper, [&*^]\n")
        #expect(result.stderr.isEmpty)
    }

    @Test("rules parse warns on stderr and falls back; --strict exits 2 and prints nothing")
    func rulesParseStrict() throws {
        let lenient = try SwcredProcess.run(["rules", "parse", "minlength: 8; colour: blue"])
        #expect(lenient.status == 0)
        #expect(lenient.stdout == "allowed: ascii-printable\n")
        #expect(lenient.stderr.contains("warning: unknown property \"colour\""))
        let strict = try SwcredProcess.run(["rules", "parse", "--strict", "minlength: 8; colour: blue"])
        #expect(strict.status == 2)
        #expect(strict.stdout.isEmpty)
        #expect(strict.stderr.contains("colour"))
        let clean = try SwcredProcess.run(["rules", "parse", "--strict", "minlength: 8"])
        #expect(clean.status == 0)
        #expect(clean.stdout == "allowed: ascii-printable; minlength: 8\n")
    }

    @Test("rules show names the entry that matched, or says none does")
    func rulesShow() throws {
        let matched = try SwcredProcess.run(["rules", "show", "www.apple.com"])
        #expect(matched.status == 0)
        #expect(matched.stdout.contains("entry: apple.com"))
        #expect(matched.stdout.contains("canonical: required: lower; required: upper; required: digit"))
        let none = try SwcredProcess.run(["rules", "show", "example.org"])
        #expect(none.status == 0)
        #expect(none.stdout.contains("no password rules are listed for example.org"))
        let json = try SwcredProcess.run(["rules", "show", "example.org", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: json.stdoutData) as? [String: Any])
        #expect(object["entry"] is NSNull)
        #expect(object["canonical"] as? String == "allowed: ascii-printable")
    }

    @Test("rules show rejects an invalid host with exit 2", arguments: ["https://apple.com", "apple", "a..com"])
    func rulesShowInvalidHost(host: String) throws {
        let result = try SwcredProcess.run(["rules", "show", host])
        #expect(result.status == 2)
        #expect(result.stderr.contains("Invalid host"))
    }

    @Test("the quirks travel inside the binary: a copy elsewhere still knows them")
    func quirksAreEmbedded() throws {
        let directory = try TemporaryDirectory()
        let copy = directory.url.appendingPathComponent("swcred")
        try FileManager.default.copyItem(at: SwcredProcess.executableURL, to: copy)
        let result = try SwcredProcess.run(["rules", "show", "apple.com"], executable: copy)
        #expect(result.status == 0)
        #expect(result.stdout.contains("entry: apple.com"))
    }
}
