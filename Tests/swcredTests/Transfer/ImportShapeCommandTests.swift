import Foundation
import Testing
import ZIPFoundation

@testable import TestSupport

/// `swcred import` of the shapes other managers really write, and of hostile files, end to end
/// (issue 29): the built binary, a real vault file. Fixtures are written here, each the smallest
/// that shows its shape.
@Suite("swcred import: real shapes and hostile files")
struct ImportShapeCommandTests {
    typealias Fixture = TransferCommandTests.Fixture

    /// One shape: the file, the lines the dry run must print, and how many logins it keeps.
    struct Shape: CustomTestStringConvertible, Sendable {
        let name: String
        let contents: String
        let added: Int
        let expected: [String]
        var testDescription: String { name }
    }

    static let shapes = [
        Shape(
            name: "old Chrome rows without the note column",
            contents: """
                name,url,username,password,note
                one,https://one.example/,ann,Shape-Pw-1
                two,https://intranet/login,ben,Shape-Pw-2

                """,
            added: 2,
            expected: [
                "warning:    2 rows have fewer fields than the header's 5 (rows 2, 3): the missing optional fields (\"note\") were read as empty"
            ]),
        Shape(
            name: "KeePassXC with an ssh:// entry",
            contents: """
                "Group","Title","Username","Password","URL","Notes"
                "Root","Box","root","Shape-Pw-3","ssh://box.example:22",""
                "Root","Web","kim","Shape-Pw-4","web.example",""

                """,
            added: 1,
            expected: [
                "  1 not a website (the vault stores credentials by website)",
                "skipped row 2: not a website (ssh: URL): the vault stores credentials by website only",
            ]),
        Shape(
            name: "Firefox with its chrome://FirefoxAccounts row",
            contents: """
                "url","username","password","httpRealm","formActionOrigin","guid","timeCreated","timeLastUsed","timePasswordChanged"
                "chrome://FirefoxAccounts","sync","Shape-Pw-5","Firefox Accounts credentials","","{a}","1600000000000","1600000000000","1600000000000"
                "https://fox.example","fiona","Shape-Pw-6","","https://fox.example","{b}","1600000000000","1600000000000","1600000000000"

                """,
            added: 1,
            expected: ["skipped row 2: not a website (chrome: URL): the vault stores credentials by website only"]),
        Shape(
            name: "a bare CXF account",
            contents: """
                {"id": "QQ", "username": "o", "email": "o@example.com", "collections": [], "items": [
                  {"id": "SQ", "title": "Shop", "scope": {"urls": ["https://shop.example/"]},
                   "credentials": [{"type": "basic-auth", "username": {"fieldType": "string", "value": "sue"},
                                    "password": {"fieldType": "concealed-string", "value": "Shape-Pw-7"}}]}]}
                """,
            added: 1,
            expected: ["format:     Credential Exchange Format (CXF 1.0) (cxf, detected)"]),
        Shape(
            name: "Bitwarden items without a type",
            contents: """
                {"items": [{"name": "Hand", "login": {"uris": [{"uri": "https://test-uri-1"}], "username": "hal",
                  "password": "Shape-Pw-8"}}, {"name": "Memo", "notes": "text"}]}
                """,
            added: 1,
            expected: ["skipped item 2: not a login (it has no type, and no \"login\")"]),
        Shape(
            name: "a password-only Chrome row",
            contents: "name,url,username,password,note\nrouter,https://router.example/,,Shape-Pw-9,\n",
            added: 1,
            expected: ["skipped:    0"]),
    ]

    @Test("--dry-run of each shape keeps the logins a person expects and lists every skipped row", arguments: shapes)
    func dryRunOfEachShape(_ shape: Shape) throws {
        let fixture = try Fixture()
        let file = try fixture.directory.writePrivateFile("export", shape.contents)
        let result = try fixture.run(["import", file, "--dry-run"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.components(separatedBy: "\n")
        #expect(lines.contains("added:      \(shape.added)"), "\(result.stdout)")
        for line in shape.expected { #expect(lines.contains(line), "\(result.stdout)") }
        #expect(!result.stdout.contains("Shape-Pw") && !result.stderr.contains("Shape-Pw"))
    }

    @Test("the warning and the skipped rows are in --json too")
    func json() throws {
        let fixture = try Fixture()
        let file = try fixture.directory.writePrivateFile(
            "old.csv", Self.shapes[0].contents + "x,ssh://x.example/,xi,Pw-X\n")
        let result = try fixture.run(["import", file, "--dry-run", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any])
        #expect((json["warnings"] as? [String])?.first?.contains("rows 2, 3, 4") == true)
        let skipped = try #require(json["skipped"] as? [[String: String]])
        #expect(skipped.map { $0["location"] } == ["row 4"])
        #expect(json["added"] as? Int == 2)
    }

    @Test("a password-only login is saved with an empty account, shown, listed and exported with it")
    func passwordOnly() throws {
        let fixture = try Fixture()
        let file = try fixture.directory.writePrivateFile("pw.csv", Self.shapes[5].contents)
        let imported = try fixture.run(["import", file, "--yes"])
        #expect(imported.status == 0, "\(imported.stderr)")
        let shown = try fixture.run(["item", "show", "router.example", "--account", "", "--json"])
        #expect(shown.status == 0, "\(shown.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: shown.stdoutData) as? [String: Any])
        #expect(json["account"] as? String == "" && json["password"] as? String == "Shape-Pw-9")
        #expect(try fixture.exportedLines().contains("router,https://router.example/,,Shape-Pw-9,,"))
        let listed = try fixture.run(["item", "list"])
        #expect(listed.stdout.hasPrefix("router.example\t\trouter\t"))
    }

    @Test("a 1PUX decompression bomb is refused with exit 2, naming the cap, and nothing is written")
    func decompressionBomb() throws {
        let fixture = try Fixture()
        let path = fixture.directory.path("bomb.1pux")
        let archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .create)
        let size = 65 * 1024 * 1024
        let chunk = Data(count: 1 << 20)
        try archive.addEntry(
            with: "export.data", type: .file, uncompressedSize: Int64(size), compressionMethod: .deflate,
            bufferSize: 1 << 20
        ) { _, length in length == chunk.count ? chunk : Data(count: length) }
        let started = Date()
        let result = try fixture.run(["import", path, "--dry-run"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("inflates to more than 64 MiB"), "\(result.stderr)")
        // Refused as it inflates, not after: generous, for a debug build on a loaded machine.
        #expect(Date().timeIntervalSince(started) < 30)
        #expect(try fixture.run(["status"]).stdout.contains("credentials:  0"))
    }

    @Test("a field over the limit fails the import naming row, field and limit; --skip-invalid lists it")
    func oversizedField() throws {
        let fixture = try Fixture()
        let note = String(repeating: "z", count: 2_000_000)
        let csv = """
            name,url,username,password,note
            ok,https://ok.example/,ann,Field-Pw-1,
            big,https://big.example/,ben,Field-Pw-2,"\(note)"
            after,https://after.example/,cat,Field-Pw-3,

            """
        let file = try fixture.directory.writePrivateFile("big.csv", csv)
        let failed = try fixture.run(["import", file, "--yes"])
        #expect(failed.status == 2)
        #expect(
            failed.stderr.contains(
                "row 3 of \(file): its \"note\" field is longer than the vault's limit of 16384 bytes (16 KiB) per field"
            ),
            "\(failed.stderr)")
        #expect(!failed.stderr.contains("zzzz"))
        #expect(try fixture.run(["status"]).stdout.contains("credentials:  0"))
        let skipping = try fixture.run(["import", file, "--yes", "--skip-invalid"])
        #expect(skipping.status == 0, "\(skipping.stderr)")
        #expect(skipping.stdout.contains("skipped row 3: its \"note\" field is longer than"))
        #expect(skipping.stdout.contains("imported: 2 credentials saved"))
    }
}
