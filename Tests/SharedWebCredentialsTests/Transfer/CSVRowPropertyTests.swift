import Foundation
import PropertyBased
import TestSupport
import Testing

@testable import SharedWebCredentials
@testable import SharedWebCredentialsTransfer

/// Rows of a Chrome CSV file as a property: generated URLs (``SiteAddressPropertyTests/urls``)
/// and passwords full of what CSV quotes (commas, quotes, line breaks), written as a CSV writer
/// quotes them and imported into a real vault, give exactly the credentials ``SiteAddress`` reads
/// from each URL: no row lost, split or moved to another site, every password intact.
@Suite("import: generated CSV rows through the reader into a vault")
struct CSVRowPropertyTests {
    struct Row: Sendable {
        var url: SiteAddressPropertyTests.ImportedURL
        var password: String
    }

    static let rows = Generator<[Row], Shrink.None<[Row]>>(run: { random in
        (0..<Int.random(in: 1...5, using: &random)).map { index in
            let pieces = ["Pw", ",", "\"", "\n", "é", " ", "a,b", "\"\""]
            let password = (0..<Int.random(in: 1...4, using: &random)).map { _ in
                pieces.randomElement(using: &random)!
            }.joined()
            return Row(url: SiteAddressPropertyTests.urls.run(using: &random), password: "\(password)-\(index)")
        }
    })

    /// `field` as CSV writes it: always quoted, each quote doubled.
    static func quoted(_ field: String) -> String { "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }

    @Test("each row's credential is the site its URL names, with its password intact; nothing else is imported")
    func rowsImportAsTheirSites() async throws {
        let directory = try TemporaryDirectory()
        let vault = try VaultTestSupport.makeVault(in: directory)
        var file = 0
        await propertyCheck(count: 60, input: Self.rows) { rows in
            for credential in try vault.credentials.all() {
                try vault.credentials.delete(
                    server: credential.server, port: credential.port, scheme: credential.scheme,
                    account: credential.account)
            }
            let lines = rows.enumerated().map { index, row in
                ["title \(index)", row.url.text, "user\(index)", row.password, "a note, \"quoted\""].map(Self.quoted)
                    .joined(separator: ",")
            }
            file += 1
            let path = try directory.writePrivateFile(
                "rows-\(file).csv", (["name,url,username,password,note"] + lines).joined(separator: "\n") + "\n")
            _ = try CredentialImport(path: path, format: .chromeCSV, policy: .skip, skipInvalid: true)
                .run(into: vault.credentials) { _ in true }
            let expected = rows.enumerated().compactMap { index, row -> String? in
                guard case .site(let site)? = try? SiteAddress.parse(row.url.text) else { return nil }
                return "\(site.name) user\(index) \(row.password)"
            }
            let imported = try vault.credentials.all().map {
                "\($0.site.name) \($0.account) \($0.password.exposedString())"
            }
            #expect(imported.sorted() == expected.sorted(), "\(rows.map(\.url.text))")
        }
    }
}
