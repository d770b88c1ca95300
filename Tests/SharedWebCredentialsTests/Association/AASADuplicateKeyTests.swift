import SharedWebCredentials
import Testing

/// A repeated key in an AASA file means what it means to Apple's JSON reader: the last one wins.
/// Reading the first instead would let a file approve an app Apple's devices would not (or the
/// reverse), so the gate would disagree with the platform it imitates.
@Suite("AASA files with a repeated key: the last one wins")
struct AASADuplicateKeyTests {
    static let app = try! ApplicationIdentifier("ABCDE12345.com.example.app")
    static let listed = "{\"apps\": [\"ABCDE12345.com.example.app\"]}"
    static let empty = "{\"apps\": []}"

    static func approves(_ text: String) -> Bool {
        AASAParser.check(Array(text.utf8), contentType: "application/json").approves(app)
    }

    @Test("a repeated webcredentials section: only the last counts")
    func repeatedSection() {
        #expect(Self.approves("{\"webcredentials\": \(Self.empty), \"webcredentials\": \(Self.listed)}"))
        #expect(!Self.approves("{\"webcredentials\": \(Self.listed), \"webcredentials\": \(Self.empty)}"))
    }

    @Test("a repeated apps array: only the last counts")
    func repeatedApps() {
        #expect(Self.approves("{\"webcredentials\": {\"apps\": [], \"apps\": [\"\(Self.app)\"]}}"))
        #expect(!Self.approves("{\"webcredentials\": {\"apps\": [\"\(Self.app)\"], \"apps\": []}}"))
    }
}
