import Foundation
import TestSupport
import Testing
import ZIPFoundation

@testable import SharedWebCredentials
@testable import SharedWebCredentialsTransfer

/// Import of every format into a real vault (SQLite, libsodium), with the edge cases of each.
@Suite("import from other password managers")
struct ImportTests {
    /// A vault in a temporary directory, and a way to write sample files beside it.
    struct Fixture {
        let directory: TemporaryDirectory
        let vault: Vault

        init() throws {
            directory = try TemporaryDirectory()
            vault = try VaultTestSupport.makeVault(in: directory)
        }

        func file(_ name: String, _ contents: String) throws -> String {
            try directory.writePrivateFile(name, contents)
        }

        func file(_ name: String, bytes: [UInt8]) throws -> String {
            let path = directory.path(name)
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            return path
        }

        @discardableResult
        func run(
            _ path: String, format: ImportFormat? = nil, policy: ConflictPolicy = .skip, skipInvalid: Bool = false,
            commit: Bool = true
        ) throws -> ImportSummary {
            try CredentialImport(path: path, format: format, policy: policy, skipInvalid: skipInvalid)
                .run(into: vault.credentials) { _ in commit }
        }

        /// Every credential as "[http://]server[:port] account password", sorted.
        func contents() throws -> [String] {
            var lines: [String] = []
            try vault.credentials.forEach { credential in
                lines.append("\(credential.site.name) \(credential.account) \(credential.passwordText)")
            }
            return lines.sorted()
        }

        func credential(
            _ server: String, port: Int? = nil, scheme: CredentialScheme = .https, _ account: String
        ) throws -> Credential {
            try #require(try vault.credentials.find(server: server, port: port, scheme: scheme, account: account).first)
        }
    }

    static func errorMessage(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch let error as SharedWebCredentialsError {
            return error.message
        } catch {
            return "\(error)"
        }
    }

    @Test(
        "format detection from each sample's header or structure (a 1PUX's export.data too, out of its zip)",
        arguments: [
            (TransferSamples.chrome, ImportFormat.chromeCSV), (TransferSamples.apple, .appleCSV),
            (TransferSamples.firefox, .firefoxCSV), (TransferSamples.bitwardenCSV, .bitwardenCSV),
            (TransferSamples.bitwardenJSON, .bitwardenJSON), (TransferSamples.keepassxc, .keepassxcCSV),
            (TransferSamples.keepassxcSix, .keepassxcCSV), (TransferSamples.cxf, .cxf),
            (TransferSamples.onePUXData, .onePassword1PUX),
        ])
    func detection(sample: String, format: ImportFormat) throws {
        let fixture = try Fixture()
        let summary = try fixture.run(try fixture.file("export", sample), commit: false)
        #expect(summary.format == format && summary.detected)
        #expect(summary.added > 0)
    }

    @Test(
        "a CSV header is Bitwarden's by either of its login_ columns, before the url/username/password formats",
        arguments: [
            (["name", "login_uri", "login_username", "login_password"], ImportFormat.bitwardenCSV),
            (["name", "login_uri", "login_username"], .bitwardenCSV),
            (["name", "login_username", "login_password"], .bitwardenCSV),
            (["url", "username", "password", "login_uri"], .bitwardenCSV),
            (["Title", "URL", "Username", "Password"], .appleCSV),
            (["name", "username", "password"], nil),
            (["name", "url", "username", "password"], .chromeCSV),
            (["url", "username", "password"], nil),
            (["url", "username", "password", "note"], nil),
        ] as [([String], ImportFormat?)])
    func headerDetection(header: [String], format: ImportFormat?) {
        #expect(CSVColumns.detect(header: header) == format, "\(header)")
    }

    @Test("Chrome CSV: quoted commas, quotes and newlines, IDN host, http flagged, Android and empty password skipped")
    func chrome() throws {
        let fixture = try Fixture()
        let summary = try fixture.run(try fixture.file("chrome.csv", TransferSamples.chrome))
        #expect(summary.format == .chromeCSV)
        #expect(summary.added == 3 && summary.updated == 0)
        // Rows are records, as a spreadsheet shows them: the first one spans two lines.
        #expect(summary.insecure == ["row 5"])
        #expect(summary.skipped.map(\.location) == ["row 4", "row 6"])
        #expect(summary.skipped.map(\.reason) == [.androidApp(package: "com.example.app"), .emptyPassword])
        #expect(try fixture.credential("example.com", "alice").passwordText == "pa,ss\"wo\nrd-1")
        #expect(try fixture.credential("example.com", "alice").details.notes == "a note, with a comma")
        #expect(try fixture.credential("example.com", "alice").details.label == "example.com")
        #expect(try fixture.credential("xn--bcher-kva.example", "jürgen").passwordText == "Grüße-Pw-2")
        #expect(try fixture.credential("plain.example", scheme: .http, "carol").passwordText == "Plain-Pw-4")
        #expect(
            try fixture.vault.credentials.find(server: "plain.example").isEmpty, "an http row is no https credential")
    }

    @Test("an http:// row is an http credential: apart from the https one of its host, on 80, 443 or another port")
    func httpRows() throws {
        let fixture = try Fixture()
        let chrome = """
            name,url,username,password,note
            a,https://plain.test/,alice,Pw-https,
            b,http://plain.test:443/,alice,Pw-http-443,
            c,http://plain.test:80/,alice,Pw-http-80,
            d,http://plain.test:8443/,alice,Pw-http-8443,
            e,https://plain.test:8443/,alice,Pw-https-8443,

            """
        let summary = try fixture.run(try fixture.file("chrome.csv", chrome))
        #expect(summary.added == 5 && summary.insecure == ["row 3", "row 4", "row 5"])
        #expect(
            try fixture.contents() == [
                "http://plain.test alice Pw-http-80", "http://plain.test:443 alice Pw-http-443",
                "http://plain.test:8443 alice Pw-http-8443", "plain.test alice Pw-https",
                "plain.test:8443 alice Pw-https-8443",
            ])
    }

    @Test(
        "a scheme in capitals is the same scheme: HTTPS:// an https credential, HTTP:// an http one, host lower-cased")
    func upperCaseSchemes() throws {
        let fixture = try Fixture()
        let chrome = """
            name,url,username,password,note
            a,HTTPS://Shop.Example/login,alice,Pw-https,
            b,HTTP://Shop.Example:8080/,alice,Pw-http-8080,
            c,Https://SHOP.example:8443/,alice,Pw-https-8443,

            """
        let summary = try fixture.run(try fixture.file("chrome.csv", chrome))
        #expect(summary.added == 3 && summary.skipped.isEmpty && summary.insecure == ["row 3"])
        #expect(
            try fixture.contents() == [
                "http://shop.example:8080 alice Pw-http-8080", "shop.example alice Pw-https",
                "shop.example:8443 alice Pw-https-8443",
            ])
    }

    @Test("CRLF line ends and a UTF-8 BOM read the same as LF without one")
    func crlfAndBOM() throws {
        let plain = try Fixture()
        try plain.run(try plain.file("lf.csv", TransferSamples.chrome))
        let windows = try Fixture()
        let crlf = TransferSamples.chrome.replacingOccurrences(of: "\n", with: "\r\n")
        let summary = try windows.run(try windows.file("crlf.csv", bytes: [0xEF, 0xBB, 0xBF] + Array(crlf.utf8)))
        #expect(summary.format == .chromeCSV && summary.detected)
        // The line break inside the quoted password is CRLF too now; every other field is equal.
        #expect(try windows.credential("example.com", "alice").passwordText == "pa,ss\"wo\r\nrd-1")
        #expect(try windows.contents().count == plain.contents().count)
        #expect(try windows.credential("xn--bcher-kva.example", "jürgen").passwordText == "Grüße-Pw-2")
    }

    @Test("columns in another order and optional columns left out are read by name; a missing required one is named")
    func columnOrder() throws {
        let fixture = try Fixture()
        let shuffled = "Password,Username,URL,Title\nShuffled-Pw-1,sam,https://order.example/,Order\n"
        let summary = try fixture.run(try fixture.file("shuffled.csv", shuffled))
        #expect(summary.format == .appleCSV && summary.added == 1)
        let saved = try fixture.credential("order.example", "sam")
        #expect(saved.passwordText == "Shuffled-Pw-1" && saved.label == "Order" && saved.details.notes == nil)
        let missing = "name,url,username\nx,https://x.example/,xavier\n"
        let message = Self.errorMessage {
            try fixture.run(try fixture.file("missing.csv", missing), format: .chromeCSV)
        }
        #expect(message?.contains("no \"password\" column") == true)
        let unknown = "site,login,secret\nx,y,z\n"
        let undetected = Self.errorMessage { try fixture.run(try fixture.file("unknown.csv", unknown)) }
        #expect(undetected?.contains("matches no format") == true)
        #expect(try fixture.contents().count == 1)
    }

    @Test("a row with an invalid URL fails the whole import and leaves the vault as it was; --skip-invalid skips it")
    func invalidURL() throws {
        let fixture = try Fixture()
        try fixture.vault.credentials.upsert(
            server: "kept.example", account: "kay", password: SecureBytes(utf8: "Kept-Pw"))
        let before = try fixture.contents()
        let filesBefore = try VaultTestSupport.rowIDs(fixture.vault.path)
        let bad = """
            name,url,username,password,note
            good,https://good.example/,gina,Good-Pw-1,
            bad,https://hank:Url-Pw-9@exa mple.com/?session=Url-Token-8,hank,Bad-Pw-2,
            later,https://later.example/,ivan,Later-Pw-3,

            """
        let path = try fixture.file("bad.csv", bad)
        let message = try #require(Self.errorMessage { try fixture.run(path) })
        #expect(message.contains("row 3") && message.contains("the URL for host \"exa mple.com\""), "\(message)")
        #expect(message.contains("--skip-invalid"))
        // Neither the row's password nor the URL's user information or query is in the message.
        #expect(!message.contains("Bad-Pw-2") && !message.contains("Url-Pw-9") && !message.contains("Url-Token-8"))
        #expect(try fixture.contents() == before)
        #expect(try VaultTestSupport.rowIDs(fixture.vault.path) == filesBefore)
        #expect(try fixture.vault.integrityReport().isIntact)

        let summary = try fixture.run(path, skipInvalid: true)
        #expect(summary.added == 2)
        #expect(summary.skipped.count == 1 && summary.skipped[0].location == "row 3")
        #expect(summary.skipped[0].reason.description.contains("exa mple.com"))
    }

    @Test("a truncated file fails naming its last row: cut inside a quoted field, or short of fields")
    func truncated() throws {
        let fixture = try Fixture()
        // Cut inside the last quoted field: the row still has every field, only the quote count
        // tells that it is cut off.
        let full = TransferSamples.firefox.trimmingCharacters(in: .newlines)
        let insideQuotes = String(full.prefix(full.count - 5))
        let message = try #require(Self.errorMessage { try fixture.run(try fixture.file("cut.csv", insideQuotes)) })
        #expect(message.contains("row 2") && message.contains("ends inside a quoted field"))
        let skipped = try fixture.run(try fixture.file("cut.csv", insideQuotes), skipInvalid: true)
        #expect(skipped.added == 0 && skipped.skipped.map(\.location) == ["row 2"])
        let shortRow = "name,url,username,password,note\nx,https://x.example/,xavier"
        let short = try #require(Self.errorMessage { try fixture.run(try fixture.file("short.csv", shortRow)) })
        #expect(short.contains("row 2") && short.contains("3 fields where the header has 5"))
        let json = String(TransferSamples.bitwardenJSON.prefix(200))
        let cutJSON = try #require(Self.errorMessage { try fixture.run(try fixture.file("cut.json", json)) })
        #expect(cutJSON.contains("not valid JSON"))
        #expect(try fixture.vault.credentials.count() == 0)
    }

    @Test("duplicate rows: skip keeps the first and names it, replace takes the last")
    func duplicates() throws {
        let csv = """
            name,url,username,password,note
            a,https://dup.example/,dora,First-Pw-1,
            b,https://dup.example/path,dora,Second-Pw-2,
            a,https://dup.example/,dora,First-Pw-1,

            """
        let skipping = try Fixture()
        let skipped = try skipping.run(try skipping.file("dup.csv", csv), policy: .skip)
        #expect(skipped.added == 1 && skipped.skipped.map(\.reason) == [.duplicate(of: "row 2")])
        #expect(skipped.unchanged == 1)
        #expect(try skipping.credential("dup.example", "dora").passwordText == "First-Pw-1")
        let replacing = try Fixture()
        let replaced = try replacing.run(try replacing.file("dup.csv", csv), policy: .replace)
        #expect(replaced.added == 1 && replaced.updated == 2)
        #expect(try replacing.credential("dup.example", "dora").passwordText == "First-Pw-1")
        #expect(try replacing.credential("dup.example", "dora").label == "a")
    }

    @Test("conflicts with the vault: skip keeps it, replace takes the file's, newer compares modification times")
    func conflicts() throws {
        let fixture = try Fixture()
        let saved = Date(timeIntervalSince1970: 1_660_000_000)  // after the sample's 1_650_000_000_000 ms
        try fixture.vault.credentials.batch {
            try $0.upsert(
                server: "fox.example", account: "fiona", password: SecureBytes(utf8: "Vault-Pw"), created: saved,
                modified: saved)
        }
        let path = try fixture.file("firefox.csv", TransferSamples.firefox)
        #expect(try fixture.run(path, policy: .skip).skipped.map(\.reason) == [.exists])
        #expect(try fixture.run(path, policy: .newer).skipped.map(\.reason) == [.notNewer])
        #expect(try fixture.credential("fox.example", "fiona").passwordText == "Vault-Pw")
        let newerFile = TransferSamples.firefox.replacingOccurrences(of: "\"1650000000000\"", with: "\"1670000000000\"")
        #expect(try fixture.run(try fixture.file("newer.csv", newerFile), policy: .newer).updated == 1)
        let updated = try fixture.credential("fox.example", "fiona")
        #expect(updated.passwordText == "Fox-Pw-7")
        #expect(updated.modified == Date(timeIntervalSince1970: 1_670_000_000) && updated.created == saved)
        try fixture.vault.credentials.upsert(
            server: "fox.example", account: "fiona", password: SecureBytes(utf8: "Again"))
        #expect(try fixture.run(path, policy: .replace).updated == 1)
        #expect(try fixture.credential("fox.example", "fiona").passwordText == "Fox-Pw-7")
        #expect(try fixture.run(path, policy: .skip).unchanged == 1, "the same credential again is unchanged")
    }

    @Test("a dry run reports what would change and writes nothing")
    func dryRun() throws {
        let fixture = try Fixture()
        let before = VaultTestSupport.fileBytes(fixture.vault.path)[fixture.vault.path]
        let summary = try fixture.run(try fixture.file("apple.csv", TransferSamples.apple), commit: false)
        #expect(summary.added == 2 && !summary.committed)
        #expect(try fixture.vault.credentials.count() == 0)
        #expect(VaultTestSupport.fileBytes(fixture.vault.path)[fixture.vault.path] == before)
    }

    @Test("Apple CSV: title, notes, OTP URI and a port")
    func apple() throws {
        let fixture = try Fixture()
        try fixture.run(try fixture.file("apple.csv", TransferSamples.apple))
        let shop = try fixture.credential("shop.example", port: 8443, "alice@example.com")
        #expect(shop.passwordText == "Apple-Pw-5" && shop.label == "Shop" && shop.details.notes == "Card on file")
        #expect(shop.details.otpAuth == "otpauth://totp/Shop:alice%40example.com?secret=JBSWY3DPEHPK3PXP&issuer=Shop")
    }

    @Test("Bitwarden CSV: one credential per URI, a bare TOTP secret becomes a URI, a note is skipped")
    func bitwardenCSV() throws {
        let fixture = try Fixture()
        let summary = try fixture.run(try fixture.file("bw.csv", TransferSamples.bitwardenCSV))
        #expect(summary.added == 2)
        #expect(summary.skipped.map(\.reason) == [.notALogin(type: "note")])
        for server in ["intra.example", "sso.example"] {
            let saved = try fixture.credential(server, "walt")
            #expect(saved.passwordText == "Warden-Pw-8" && saved.details.notes == "VPN too")
            #expect(saved.details.otpAuth == "otpauth://totp/walt?secret=JBSWY3DPEHPK3PXP")
        }
    }

    @Test("Bitwarden JSON: a login with its times and TOTP; a card skipped; an encrypted export refused")
    func bitwardenJSON() throws {
        let fixture = try Fixture()
        let summary = try fixture.run(try fixture.file("bw.json", TransferSamples.bitwardenJSON))
        #expect(summary.added == 1 && summary.skipped.map(\.reason) == [.notALogin(type: "card")])
        let forum = try fixture.credential("forum.example", "wendy")
        #expect(forum.passwordText == "Json-Pw-9" && forum.label == "Forum" && forum.details.notes == "old account")
        #expect(forum.details.otpAuth == "otpauth://totp/Forum:wendy?secret=GEZDGNBVGY3TQOJQ")
        #expect(forum.modified.timeIntervalSince1970 == 1_714_979_289.123)
        let encrypted = try fixture.file("enc.json", TransferSamples.bitwardenEncrypted)
        for format in [nil, ImportFormat.bitwardenJSON] {
            let message = try #require(Self.errorMessage { try fixture.run(encrypted, format: format) })
            #expect(message.contains("encrypted Bitwarden export") && message.contains("\"JSON\""))
        }
        #expect(try fixture.vault.credentials.count() == 1)
    }

    @Test("KeePassXC CSV in both forms: TOTP and times in the ten-column form, a bare host in the six")
    func keepassxc() throws {
        let fixture = try Fixture()
        try fixture.run(try fixture.file("kp10.csv", TransferSamples.keepassxc))
        let git = try fixture.credential("git.example", "kim")
        #expect(git.passwordText == "Kee-Pw-10" && git.label == "Git host")
        #expect(git.details.otpAuth == "otpauth://totp/Git:kim?secret=MFRGGZDFMZTWQ2LK")
        #expect(git.created == Date(timeIntervalSince1970: 1_646_128_800))
        #expect(git.modified == Date(timeIntervalSince1970: 1_709_287_200))
        try fixture.run(try fixture.file("kp6.csv", TransferSamples.keepassxcSix))
        #expect(try fixture.credential("wiki.example", "kai").passwordText == "Kee-Pw-11")
    }

    @Test("CXF 1.0: basic-auth with its note and TOTP; a passkey-only item gives a passkey; a card is skipped")
    func cxf() throws {
        let fixture = try Fixture()
        let summary = try fixture.run(try fixture.file("export.cxf.json", TransferSamples.cxf))
        #expect(summary.added == 1 && summary.passkeysAdded == 1 && summary.entries == 3)
        #expect(summary.skipped.map(\.location) == ["item 3"])
        #expect(summary.skipped.map(\.reason) == [.notALogin(type: "credit-card")])
        let passkey = try #require(try fixture.vault.passkeys.all().first)
        #expect(passkey.rpID == "keys.example" && passkey.userName == "bert" && passkey.algorithm == "EdDSA")
        #expect(passkey.credentialID == "cGFzc2tleS1jcmVkLWlkIQ" && passkey.userHandle == "dXNlcg")
        #expect(passkey.created == Date(timeIntervalSince1970: 1_700_000_000))
        let bank = try fixture.credential("bank.example", "bert")
        #expect(bank.passwordText == "Cxf-Pw-12" && bank.label == "Bank" && bank.details.notes == "branch 42")
        #expect(
            bank.details.otpAuth
                == "otpauth://totp/Bank:bert?secret=JBSWY3DPEHPK3PXP&issuer=Bank&algorithm=SHA1&digits=6&period=30")
        #expect(bank.modified == Date(timeIntervalSince1970: 1_705_000_000))
    }

    /// A 1PUX file made the way 1Password lays one out: a zip with export.attributes and export.data.
    static func makeOnePUX(at path: String, data: String) throws {
        let archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .create)
        for (name, text) in [
            ("export.attributes", "{\"version\": 3, \"createdAt\": 1700000000}"), ("export.data", data),
        ] {
            let bytes = Data(text.utf8)
            try archive.addEntry(
                with: name, type: .file, uncompressedSize: Int64(bytes.count), compressionMethod: .deflate
            ) { position, size in bytes.subdata(in: Int(position)..<Int(position) + size) }
        }
    }

    @Test(
        "1PUX: a login with TOTP from the zip's export.data; an item with no login is skipped; a damaged zip is refused"
    )
    func onePUX() throws {
        let fixture = try Fixture()
        let path = fixture.directory.path("export.1pux")
        try Self.makeOnePUX(at: path, data: TransferSamples.onePUXData)
        let summary = try fixture.run(path)
        #expect(summary.format == .onePassword1PUX && summary.detected)
        #expect(summary.added == 1 && summary.skipped.map(\.reason) == [.notALogin(type: "secure note")])
        let club = try fixture.credential("club.example", "olga")
        #expect(club.passwordText == "One-Pw-13" && club.label == "Club" && club.details.notes == "from 1Password")
        #expect(club.details.otpAuth == "otpauth://totp/Club:olga?secret=KRSXG5CTMVRXEZLU")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let cut = try fixture.file("cut.1pux", bytes: Array(bytes.prefix(bytes.count / 2)))
        let message = try #require(Self.errorMessage { try fixture.run(cut) })
        #expect(message.contains("truncated"))
    }
}
