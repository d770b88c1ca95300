import Foundation
import TestSupport
import Testing
import ZIPFoundation

@testable import SharedWebCredentials
@testable import SharedWebCredentialsTransfer

/// Files in the shapes other managers really write, which import used to get wrong (issue 29):
/// each written here, the smallest that shows the shape, never taken from another project.
@Suite("import: other managers' real shapes and hostile files")
struct ImportShapeTests {
    typealias Fixture = ImportTests.Fixture

    // MARK: 1. Short rows

    @Test("a row short of optional fields in the middle is read with them empty, and warned about once")
    func shortRowsInTheMiddle() throws {
        let fixture = try Fixture()
        // An old Chrome-shaped export: five columns in the header, four fields in every row.
        let csv = """
            name,url,username,password,note
            one,https://one.example/,ann,Short-Pw-1
            two,https://two.example/,ben,Short-Pw-2
            three,https://three.example/,cat,Short-Pw-3

            """
        let summary = try fixture.run(try fixture.file("old-chrome.csv", csv))
        #expect(summary.added == 3 && summary.skipped.isEmpty)
        #expect(summary.warnings.count == 1)
        #expect(summary.warnings.first?.contains("3 rows have fewer fields than the header's 5") == true)
        #expect(summary.warnings.first?.contains("rows 2, 3, 4") == true)
        #expect(summary.warnings.first?.contains("\"note\"") == true)
        let saved = try fixture.credential("two.example", "ben")
        #expect(saved.passwordText == "Short-Pw-2" && saved.label == "two" && saved.details.notes == nil)
    }

    @Test(
        "the warning lists ten short rows in full, and the first ten of eleven with an ellipsis", arguments: [10, 11])
    func shortRowsListed(count: Int) throws {
        let fixture = try Fixture()
        let rows = (1...count).map { "site\($0),https://site\($0).example/,ann,Short-Pw-\($0)" }
        let csv = (["name,url,username,password,note"] + rows).joined(separator: "\n") + "\n"
        let summary = try fixture.run(try fixture.file("short-\(count).csv", csv))
        #expect(summary.added == count)
        let listed = (2...11).map(String.init).joined(separator: ", ")
        let warning = summary.warnings.first ?? ""
        #expect(warning.contains("(rows \(listed)\(count > 10 ? ", …" : ""))"), "\(warning)")
    }

    @Test("a short row missing a required field, or a short last row with no line break after it, is still malformed")
    func shortRowsThatAreMalformed() throws {
        let fixture = try Fixture()
        let missingPassword = """
            name,url,username,password,note
            one,https://one.example/,ann,Short-Pw-1,
            two,https://two.example/,ben
            three,https://three.example/,cat,Short-Pw-3,

            """
        let message = try #require(
            ImportTests.errorMessage { try fixture.run(try fixture.file("missing.csv", missingPassword)) })
        #expect(message.contains("row 3") && message.contains("3 fields where the header has 5"))
        #expect(message.contains("\"password\""))
        #expect(try fixture.vault.credentials.count() == 0, "all or nothing")
        // The same four-field rows as above, but the file stops without a line break: the last
        // row may have been cut off, so it is not guessed at.
        let cut =
            "name,url,username,password,note\none,https://one.example/,ann,Short-Pw-1\ntwo,https://two.example/,ben,Sh"
        let cutMessage = try #require(ImportTests.errorMessage { try fixture.run(try fixture.file("cut.csv", cut)) })
        #expect(cutMessage.contains("row 3") && cutMessage.contains("truncated"))
        #expect(try fixture.vault.credentials.count() == 0)
        let skipped = try fixture.run(try fixture.file("cut.csv", cut), skipInvalid: true)
        #expect(skipped.added == 1 && skipped.skipped.map(\.location) == ["row 3"])
        #expect(skipped.warnings.first?.contains("row 2") == true)
    }

    // MARK: 2. What is not a website

    @Test("KeePassXC's ssh:// entries, in both column layouts, are skipped and listed, not errors")
    func keepassxcSSH() throws {
        for csv in [
            """
            "Group","Title","Username","Password","URL","Notes","TOTP","Icon","Last Modified","Created"
            "Root","Server","root","Ssh-Pw-1","ssh://root@10.0.0.5:22","","","0","2024-03-01T10:00:00Z","2022-03-01T10:00:00Z"
            "Root","Forge","kim","Web-Pw-2","https://forge.example/","","","0","2024-03-01T10:00:00Z","2022-03-01T10:00:00Z"

            """,
            """
            "Group","Title","Username","Password","URL","Notes"
            "Root","Server","root","Ssh-Pw-1","ssh://root@10.0.0.5:22",""
            "Root","Forge","kim","Web-Pw-2","https://forge.example/",""

            """,
        ] {
            let fixture = try Fixture()
            let summary = try fixture.run(try fixture.file("kp.csv", csv))
            #expect(summary.format == .keepassxcCSV && summary.added == 1)
            #expect(summary.skipped.map(\.location) == ["row 2"])
            #expect(summary.skipped.map(\.reason) == [.notAWebsite("ssh: URL")])
            #expect(
                summary.skippedByReason.map(\.reason) == ["not a website (the vault stores credentials by website)"])
            #expect(try fixture.contents() == ["forge.example kim Web-Pw-2"])
        }
    }

    @Test("Firefox's chrome://FirefoxAccounts, a file:// row and a title in the url column are skipped and listed")
    func firefoxNonWebRows() throws {
        let fixture = try Fixture()
        let csv = """
            "url","username","password","httpRealm","formActionOrigin","guid","timeCreated","timeLastUsed","timePasswordChanged"
            "chrome://FirefoxAccounts","acct","Sync-Pw-1","Firefox Accounts credentials","","{1}","1600000000000","1600000000000","1600000000000"
            "file:///home/fiona/page.html","fiona","File-Pw-2","","file://","{2}","1600000000000","1600000000000","1600000000000"
            "My Router Notes","admin","Title-Pw-3","","","{3}","1600000000000","1600000000000","1600000000000"
            "https://fox.example","fiona","Fox-Pw-4","","https://fox.example","{4}","1600000000000","1600000000000","1600000000000"

            """
        let summary = try fixture.run(try fixture.file("firefox.csv", csv))
        #expect(summary.format == .firefoxCSV && summary.added == 1)
        #expect(summary.skipped.map(\.location) == ["row 2", "row 3", "row 4"])
        #expect(
            summary.skipped.map(\.reason) == [
                .notAWebsite("chrome: URL"), .notAWebsite("file: URL"),
                .notAWebsite("no web address: no scheme, and no host name"),
            ])
        #expect(summary.skippedByReason.map(\.count) == [3])
        #expect(try fixture.contents() == ["fox.example fiona Fox-Pw-4"])
    }

    @Test("an https: URL with a malformed host is still a malformed row: all or nothing")
    func malformedWebURLStillFails() throws {
        let fixture = try Fixture()
        let csv = """
            name,url,username,password,note
            ok,https://ok.example/,ann,Ok-Pw-1,
            odd,ssh://git.example/,git,Odd-Pw-2,
            bad,https://ba d.example/,ben,Bad-Pw-3,

            """
        let message = try #require(ImportTests.errorMessage { try fixture.run(try fixture.file("bad.csv", csv)) })
        #expect(message.contains("row 4") && message.contains("the URL for host \"ba d.example\""), "\(message)")
        #expect(try fixture.vault.credentials.count() == 0)
    }

    // MARK: 3. Intranet hosts

    @Test("single-label (intranet) hosts with a scheme are kept as servers; a bare word is no address")
    func intranetHosts() throws {
        let fixture = try Fixture()
        let bitwarden = """
            {"encrypted": false, "items": [
              {"type": 1, "name": "Test", "login": {"uris": [{"uri": "https://test-uri-1"}], "username": "tess",
               "password": "Intra-Pw-1"}}]}
            """
        #expect(try fixture.run(try fixture.file("bw.json", bitwarden)).added == 1)
        let chrome = """
            name,url,username,password,note
            intranet,https://intranet/login,ivan,Intra-Pw-2,
            wiki,http://wiki:8080/,wes,Intra-Pw-3,

            """
        let summary = try fixture.run(try fixture.file("chrome.csv", chrome))
        #expect(summary.added == 2 && summary.insecure == ["row 3"])
        #expect(
            try fixture.contents() == [
                "http://wiki:8080 wes Intra-Pw-3", "intranet ivan Intra-Pw-2", "test-uri-1 tess Intra-Pw-1",
            ])
        let keepass = """
            "Group","Title","Username","Password","URL","Notes"
            "Root","Mail","mo","Word-Pw-4","Gmail",""

            """
        let bare = try fixture.run(try fixture.file("kp.csv", keepass))
        #expect(
            bare.added == 0
                && bare.skipped.map(\.reason) == [.notAWebsite("no web address: no scheme, and no host name")])
        // The gate's parsers still refuse one: no entitlement or AASA host can name it.
        #expect(throws: SharedWebCredentialsError.self) { try DomainTarget("intranet") }
        #expect(throws: SharedWebCredentialsError.self) { try DomainTarget("intranet", allowDeveloperHosts: true) }
        #expect(throws: SharedWebCredentialsError.self) { try AssociatedDomainEntry("webcredentials:intranet") }
        #expect(
            try DomainTarget("intranet:8080", allowDeveloperHosts: true, allowSingleLabel: true).description
                == "intranet:8080")
        #expect(throws: SharedWebCredentialsError.self) {
            try DomainTarget("12345", allowDeveloperHosts: true, allowSingleLabel: true)
        }
    }

    // MARK: 4. A bare CXF account

    /// One CXF `Account`, as Apple's credential-exchange API hands it over: no version header.
    static let bareCXFAccount = """
        {"id": "QUNDVA", "username": "owner", "email": "owner@example.com", "collections": [],
         "items": [
           {"id": "SVRFTTE", "title": "Shop", "creationAt": 1700000000, "modifiedAt": 1705000000,
            "scope": {"urls": ["https://shop.example/"], "androidApps": []},
            "credentials": [{"type": "basic-auth", "username": {"fieldType": "string", "value": "sue"},
                             "password": {"fieldType": "concealed-string", "value": "Bare-Pw-1"}}]},
           {"id": "SVRFTTI", "title": "Wifi", "credentials": [{"type": "wifi", "ssid": {"fieldType": "string", "value": "home"}}]}]}
        """

    @Test("a bare CXF account is detected as CXF, not Bitwarden, and --format cxf reads it")
    func bareCXFAccount() throws {
        let fixture = try Fixture()
        let path = try fixture.file("account.json", Self.bareCXFAccount)
        let detected = try fixture.run(path, commit: false)
        #expect(detected.format == .cxf && detected.detected)
        #expect(detected.added == 1 && detected.skipped.map(\.reason) == [.notALogin(type: "wifi")])
        let given = try fixture.run(path, format: .cxf)
        #expect(given.added == 1)
        #expect(try fixture.credential("shop.example", "sue").passwordText == "Bare-Pw-1")
        // The full file, with its header, still reads.
        #expect(try fixture.run(try fixture.file("full.json", TransferSamples.cxf), commit: false).format == .cxf)
    }

    @Test("JSON whose items look like both formats, or neither, is not guessed at: it asks for --format")
    func jsonThatCannotBeTold() throws {
        let fixture = try Fixture()
        let both = """
            {"items": [{"type": 1, "name": "A", "login": {"username": "a", "password": "p"}},
                       {"title": "B", "credentials": []}]}
            """
        let neither = #"{"items": [{"id": "1"}]}"#
        for json in [both, neither] {
            let message = try #require(ImportTests.errorMessage { try fixture.run(try fixture.file("x.json", json)) })
            #expect(message.contains("cannot tell its format") && message.contains("--format"))
        }
    }

    // MARK: 5. Password-only logins

    @Test("a login with a password and no username is kept with an empty account, and exports back")
    func passwordOnly() async throws {
        let fixture = try Fixture()
        let path = fixture.directory.path("export.1pux")
        // 1Password's login with only a password field designated.
        try ImportTests.makeOnePUX(
            at: path,
            data: """
                {"accounts": [{"attrs": {"name": "Owner"}, "vaults": [{"attrs": {"name": "Personal"}, "items": [
                  {"uuid": "d1", "createdAt": 1600000000, "updatedAt": 1700000000, "state": "active",
                   "categoryUuid": "001",
                   "details": {"loginFields": [{"value": "Only-Pw-1", "name": "password", "fieldType": "P",
                                                "designation": "password"}]},
                   "overview": {"title": "Drop", "url": "https://drop.example/"}}]}]}]}
                """)
        #expect(try fixture.run(path).added == 1)
        let chrome = "name,url,username,password,note\nrouter,https://router.example/,,Only-Pw-2,\n"
        #expect(try fixture.run(try fixture.file("c.csv", chrome)).added == 1)
        #expect(try fixture.contents() == ["drop.example  Only-Pw-1", "router.example  Only-Pw-2"])
        #expect(try fixture.credential("drop.example", "").label == "Drop")
        // An approved app gets it with its empty account, as Safari's shared credentials give one.
        let app = try ApplicationIdentifier("ABCDE12345.com.example.drop")
        try fixture.vault.apps.register(
            app, entitlements: Entitlements(strings: ["webcredentials:drop.example"]), at: Date())
        try VaultTestSupport.approve(app, for: ["webcredentials:drop.example"], in: fixture.vault)
        let released = try await SharedWebCredentials(app: app, vault: fixture.vault, verifier: nil)
            .request(domain: DomainTarget("drop.example"))
        #expect(released.map(\.account) == [""] && released.map(\.passwordText) == ["Only-Pw-1"])
        // Exported and imported again, the empty account comes back empty.
        let exported = fixture.directory.path("out.csv")
        let descriptor = try CredentialExport.createFile(at: exported)
        try CredentialExport(format: .appleCSV).write(fixture.vault, to: descriptor)
        close(descriptor)
        let text = try String(contentsOfFile: exported, encoding: .utf8)
        #expect(text.contains("Drop,https://drop.example/,,Only-Pw-1,,\r\n"))
        let again = try Fixture()
        #expect(try again.run(exported).added == 2)
        #expect(try again.contents() == fixture.contents())
    }

    // MARK: 6. The older 1PUX layout

    @Test("the older 1PUX layout: items wrapped as {\"item\": …}, one in the trash skipped as such")
    func olderOnePUX() throws {
        let fixture = try Fixture()
        let path = fixture.directory.path("old.1pux")
        try ImportTests.makeOnePUX(
            at: path,
            data: """
                {"accounts": [{"attrs": {"name": "Owner"}, "vaults": [{"attrs": {"name": "Personal"}, "items": [
                  {"item": {"uuid": "o1", "createdAt": 1600000000, "updatedAt": 1700000000, "trashed": false,
                   "categoryUuid": "001",
                   "details": {"loginFields": [
                     {"value": "olly", "name": "username", "fieldType": "T", "designation": "username"},
                     {"value": "Old-Pw-1", "name": "password", "fieldType": "P", "designation": "password"}]},
                   "overview": {"title": "Old", "url": "https://old.example/"}}},
                  {"item": {"uuid": "o2", "createdAt": 1600000000, "updatedAt": 1700000000, "trashed": true,
                   "categoryUuid": "001",
                   "details": {"loginFields": [
                     {"value": "olly", "name": "username", "fieldType": "T", "designation": "username"},
                     {"value": "Gone-Pw-2", "name": "password", "fieldType": "P", "designation": "password"}]},
                   "overview": {"title": "Gone", "url": "https://gone.example/"}}}]}]}]}
                """)
        let summary = try fixture.run(path)
        #expect(summary.added == 1)
        #expect(summary.skipped.map(\.location) == ["item 2"] && summary.skipped.map(\.reason) == [.trashed])
        #expect(try fixture.contents() == ["old.example olly Old-Pw-1"])
    }

    // MARK: 7. Bitwarden items without a type

    @Test("a Bitwarden item with a login object and no type is a login; one with neither says it has no type")
    func bitwardenWithoutType() throws {
        let fixture = try Fixture()
        let json = """
            {"items": [
              {"name": "Hand", "login": {"uris": [{"uri": "https://hand.example/"}], "username": "hal", "password": "Hand-Pw-1"}},
              {"name": "Memo", "notes": "just text"}]}
            """
        let summary = try fixture.run(try fixture.file("hand.json", json))
        #expect(summary.format == .bitwardenJSON && summary.added == 1)
        #expect(summary.skipped.map(\.reason) == [.notALogin(type: "it has no type, and no \"login\"")])
        #expect(!summary.skipped[0].reason.description.contains("type 0"))
        #expect(try fixture.contents() == ["hand.example hal Hand-Pw-1"])
    }

    // MARK: 8. A decompression bomb

    /// A 1PUX whose export.data inflates to `size` bytes of zeros (a few dozen KB on disk).
    static func makeBomb(at path: String, size: Int) throws {
        let archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .create)
        let chunk = Data(count: 1 << 20)
        try archive.addEntry(
            with: "export.data", type: .file, uncompressedSize: Int64(size), compressionMethod: .deflate,
            bufferSize: 1 << 20
        ) { position, length in
            precondition(Int(position) + length <= size)
            return length == chunk.count ? chunk : Data(count: length)
        }
    }

    @Test("a 1PUX whose export.data inflates past the cap is refused naming the cap, before it is parsed")
    func decompressionBomb() throws {
        let fixture = try Fixture()
        let path = fixture.directory.path("bomb.1pux")
        try Self.makeBomb(at: path, size: 65 * 1024 * 1024)
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0 < 1024 * 1024)
        let message = try #require(ImportTests.errorMessage { try fixture.run(path) })
        #expect(message.contains("inflates to more than 64 MiB"))
        #expect(try fixture.vault.credentials.count() == 0)
    }

    // MARK: 9. The field limit

    @Test(
        "a field over the vault's limit fails the import naming the row, the field and the limit; --skip-invalid skips it"
    )
    func oversizedCSVField() throws {
        let fixture = try Fixture()
        let limit = Credential.maximumFieldBytes
        let atLimit = String(repeating: "n", count: limit)
        let over = String(repeating: "o", count: limit + 1)
        let csv = """
            name,url,username,password,note
            fits,https://fits.example/,fay,Fits-Pw-1,\(atLimit)
            over,https://over.example/,otto,Over-Pw-2,\(over)
            after,https://after.example/,al,After-Pw-3,

            """
        let path = try fixture.file("big.csv", csv)
        let message = try #require(ImportTests.errorMessage { try fixture.run(path) })
        #expect(message.contains("row 3") && message.contains("\"note\"") && message.contains("\(limit) bytes"))
        #expect(!message.contains("oooo"))
        #expect(try fixture.vault.credentials.count() == 0)
        let summary = try fixture.run(path, skipInvalid: true)
        #expect(summary.added == 2 && summary.skipped.map(\.location) == ["row 3"])
        #expect(try fixture.credential("fits.example", "fay").details.notes?.utf8.count == limit)
    }

    @Test(
        "a row with more fields than the header fails the import naming the row and both counts, never cut to fit; --skip-invalid skips it"
    )
    func rowLongerThanHeader() throws {
        let fixture = try Fixture()
        let csv = """
            name,url,username,password,note
            fits,https://fits.example/,fay,Fits-Pw-1,
            comma,https://comma.example/,cam,Comma,Pw-2,a note
            after,https://after.example/,al,After-Pw-3,

            """
        let path = try fixture.file("long-row.csv", csv)
        let message = try #require(ImportTests.errorMessage { try fixture.run(path) })
        #expect(
            message.contains("row 3")
                && message.contains("it has 6 fields where the header has 5 (an unquoted comma?)"),
            "\(message)")
        #expect(!message.contains("Comma") && !message.contains("Pw-2"), "the password is not in the message")
        #expect(try fixture.vault.credentials.count() == 0)
        let summary = try fixture.run(path, skipInvalid: true)
        #expect(summary.added == 2 && summary.skipped.map(\.location) == ["row 3"])
        #expect(try fixture.vault.credentials.find(server: "comma.example").isEmpty)
    }

    @Test(
        "a huge field is cut short while it is read, quoted or not, and the rows after it read as written",
        arguments: [false, true])
    func hugeFieldIsBounded(quoted: Bool) throws {
        let fixture = try Fixture()
        // 4 MB, with escaped quotes and line breaks throughout when quoted, so that the cut falls
        // among them.
        let unit = quoted ? "ab\"\"c,\n" : "abcdefg"
        let huge = String(repeating: unit, count: 600_000)
        let note = quoted ? "\"\(huge)\"" : huge
        let csv = """
            name,url,username,password,note
            huge,https://huge.example/,hugo,Huge-Pw-1,\(note)
            next,https://next.example/,nia,"Next,""Pw""-2","a ""quoted"" note"

            """
        let summary = try fixture.run(try fixture.file("huge.csv", csv), skipInvalid: true)
        #expect(summary.skipped.map(\.location) == ["row 2"])
        #expect(summary.skipped.first?.reason.description.contains("\"note\" field is longer than") == true)
        let next = try fixture.credential("next.example", "nia")
        #expect(next.passwordText == "Next,\"Pw\"-2" && next.details.notes == "a \"quoted\" note")
        #expect(summary.added == 1)
    }

    @Test("the CSV stream hands on at most the field limit of any one field, and the rest of the file intact")
    func streamBoundsFields() throws {
        let fixture = try Fixture()
        let limit = CountingInputStream.fieldLimit(forMaximumFieldBytes: Credential.maximumFieldBytes)
        let huge = String(repeating: "q\"\"", count: 1_000_000)
        let path = try fixture.file("s.csv", "a,\"\(huge)\",b\nc,d\n")
        let stream = try #require(CountingInputStream(path: path, fieldLimit: limit))
        let handed = Self.readAll(stream)
        #expect(stream.bytesRead == 3_000_000 + 11 && stream.quoteCount % 2 == 0 && stream.endsWithLineBreak)
        #expect(handed.count <= limit + 10)
        let text = String(decoding: handed, as: UTF8.self)
        #expect(text.hasPrefix("a,\"q\"\"") && text.hasSuffix("\",b\nc,d\n"))
        // What was handed on is still well-formed CSV: an even number of quotes.
        #expect(handed.filter { $0 == UInt8(ascii: "\"") }.count % 2 == 0)
    }

    @Test("the CSV stream hands on at most its field count of any one row, and the rows after it intact")
    func streamBoundsRows() throws {
        let fixture = try Fixture()
        let limit = CountingInputStream.rowFieldLimit
        let commas = String(repeating: ",", count: 1_000_000)
        let path = try fixture.file("r.csv", "a,\"q,\"\"\n\"\(commas)\nc,d\n")
        let stream = try #require(CountingInputStream(path: path, fieldLimit: 100))
        let handed = Self.readAll(stream)
        let text = String(decoding: handed, as: UTF8.self)
        // The quoted field's comma and line break are inside it, not delimiters.
        #expect(text.hasPrefix("a,\"q,\"\"\n\","), "\(text.prefix(20))")
        #expect(text.hasSuffix("\nc,d\n"))
        #expect(
            handed.filter { $0 == UInt8(ascii: ",") }.count == limit + 1,
            "one row's delimiters, the quoted comma, the last row's")
        #expect(stream.bytesRead == 1_000_000 + 14)
    }

    @Test("a row of more fields than a row may hold is refused naming the row, in bounded memory")
    func rowOverTheFieldCount() throws {
        let fixture = try Fixture()
        let limit = CountingInputStream.rowFieldLimit
        let csv = """
            name,url,username,password,note
            fits,https://fits.example/,fay,Fits-Pw-1,
            long,https://long.example/,lou,Long-Pw-2,\(String(repeating: ",", count: 1_000_000))
            after,https://after.example/,al,After-Pw-3,

            """
        let path = try fixture.file("wide.csv", csv)
        let message = try #require(ImportTests.errorMessage { try fixture.run(path) })
        #expect(
            message.contains("row 3") && message.contains("it has \(limit) or more fields where the header has 5"),
            "\(message)")
        let summary = try fixture.run(path, skipInvalid: true)
        #expect(summary.added == 2 && summary.skipped.map(\.location) == ["row 3"])
    }

    @Test("a JSON file over 64 MiB is refused before it is read")
    func oversizedJSONFile() throws {
        let fixture = try Fixture()
        let path = fixture.directory.path("huge.json")
        FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.write(contentsOf: Data("{\"items\": [], \"pad\": \"".utf8))
        let chunk = Data(repeating: UInt8(ascii: "x"), count: 1 << 20)
        for _ in 0..<65 { try handle.write(contentsOf: chunk) }
        try handle.write(contentsOf: Data("\"}".utf8))
        try handle.close()
        let message = try #require(ImportTests.errorMessage { try fixture.run(path, format: .bitwardenJSON) })
        #expect(message.contains("more than the 64 MiB of JSON swcred reads"))
    }

    @Test("a JSON item with a field over the limit is malformed, named by item and field")
    func oversizedJSONField() throws {
        let fixture = try Fixture()
        let notes = String(repeating: "j", count: Credential.maximumFieldBytes + 1)
        let json = """
            {"items": [{"type": 1, "name": "Big", "notes": "\(notes)",
              "login": {"uris": [{"uri": "https://big.example/"}], "username": "bo", "password": "Big-Pw-1"}}]}
            """
        let message = try #require(ImportTests.errorMessage { try fixture.run(try fixture.file("big.json", json)) })
        #expect(message.contains("item 1") && message.contains("notes field") && message.contains("16384 bytes"))
    }

    @Test("the vault keeps a field of exactly the limit and refuses one byte more, on every write, naming the field")
    func vaultFieldLimit() throws {
        let fixture = try Fixture()
        let limit = Credential.maximumFieldBytes
        #expect(limit == 16 * 1024)
        let password = SecureBytes(utf8: String(repeating: "p", count: limit))
        try fixture.vault.items.set(
            server: "limit.example", account: "lee", password: password,
            details: CredentialDetails(notes: String(repeating: "n", count: limit)))
        for (field, attempt) in [
            (
                "password",
                {
                    try fixture.vault.items.set(
                        server: "limit.example", account: "lee",
                        password: SecureBytes(utf8: String(repeating: "p", count: limit + 1)))
                }
            ),
            (
                "notes",
                {
                    try fixture.vault.items.set(
                        server: "limit.example", account: "lee", password: password,
                        details: CredentialDetails(notes: String(repeating: "n", count: limit + 1)))
                }
            ),
            (
                "account name",
                {
                    try fixture.vault.items.set(
                        server: "limit.example", account: String(repeating: "a", count: limit + 1), password: password)
                }
            ),
        ] as [(String, () throws -> UpsertOutcome)] {
            let error = #expect(throws: SharedWebCredentialsError.self) { try attempt() }
            #expect(error?.code == .invalidInput)
            #expect(error?.message.contains("the \(field) is \(limit + 1) bytes") == true)
            #expect(error?.message.contains("limit of \(limit) bytes") == true)
        }
        #expect(try fixture.vault.credentials.count() == 1)
    }

    /// Every byte `stream` hands on, read 4 KB at a time as CSV.swift reads it.
    private static func readAll(_ stream: CountingInputStream) -> [UInt8] {
        stream.open()
        defer { stream.close() }
        var handed: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = stream.read(&buffer, maxLength: buffer.count)
            if count <= 0 { break }
            handed += buffer[..<count]
        }
        return handed
    }
}
