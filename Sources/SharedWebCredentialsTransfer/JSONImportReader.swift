import Foundation
import SharedWebCredentials

/// Reads the JSON formats (Bitwarden's unencrypted export, CXF 1.0, 1PUX's `export.data`),
/// already parsed, item by item. Items are numbered from 1 in file order, across accounts and
/// vaults.
final class JSONImportReader: ImportReader {
    let format: ImportFormat
    private let items: [[String: Any]]
    private let read: ([String: Any], String) -> ImportElement
    private(set) var bytesRead = 0

    init(format: ImportFormat, json: Any, path: String) throws {
        self.format = format
        guard let root = json as? [String: Any] else {
            throw Self.shape(path, format, "the top level is not an object")
        }
        switch format {
        case .bitwardenJSON:
            if root["encrypted"] as? Bool == true {
                throw SharedWebCredentialsError(
                    .invalidInput,
                    "\(path) is an encrypted Bitwarden export, which swcred cannot read. In Bitwarden, export again with the file format \"JSON\" (not \"JSON (Encrypted)\"), import that file, then delete it"
                )
            }
            guard let items = root["items"] as? [[String: Any]] else {
                throw Self.shape(path, format, "it has no \"items\" array")
            }
            self.items = items
            read = BitwardenJSONItem.element
        case .cxf:
            guard let accounts = root["accounts"] as? [[String: Any]] else {
                throw Self.shape(path, format, "it has no \"accounts\" array")
            }
            items = accounts.flatMap { $0["items"] as? [[String: Any]] ?? [] }
            read = CXFItem.element
        case .onePassword1PUX:
            guard let accounts = root["accounts"] as? [[String: Any]] else {
                throw Self.shape(path, format, "export.data has no \"accounts\" array")
            }
            let vaults = accounts.flatMap { $0["vaults"] as? [[String: Any]] ?? [] }
            items = vaults.flatMap { $0["items"] as? [[String: Any]] ?? [] }
            read = OnePUXItem.element
        default:
            preconditionFailure("\(format) is not a JSON format")
        }
    }

    func forEach(_ body: (ImportElement) throws -> Void) throws {
        for (index, item) in items.enumerated() { try body(read(item, "item \(index + 1)")) }
    }

    /// The JSON format of a parsed file: an `encrypted` flag or `items` is Bitwarden, `accounts`
    /// with items is CXF, with vaults a 1PUX `export.data`.
    static func detect(_ json: Any, path: String) throws -> ImportFormat {
        if let root = json as? [String: Any] {
            if root["encrypted"] != nil || root["items"] != nil { return .bitwardenJSON }
            if let accounts = root["accounts"] as? [[String: Any]] {
                return accounts.contains { $0["vaults"] != nil } ? .onePassword1PUX : .cxf
            }
        }
        throw SharedWebCredentialsError(
            .invalidInput,
            "\(path) is JSON of no format swcred imports (expected Bitwarden's \"items\" or CXF's \"accounts\"); name the format with --format"
        )
    }

    private static func shape(_ path: String, _ format: ImportFormat, _ problem: String) -> SharedWebCredentialsError {
        SharedWebCredentialsError(.invalidInput, "\(path) is not a \(format.displayName) file: \(problem)")
    }
}

/// A JSON object's string member, "" when absent.
func string(_ object: [String: Any]?, _ key: String) -> String {
    object?[key] as? String ?? ""
}

/// Bitwarden's item: `type` 1 is a login with `login.uris[].uri`, `username`, `password`, `totp`.
enum BitwardenJSONItem {
    static let typeNames = [2: "secure note", 3: "card", 4: "identity", 5: "SSH key"]

    static func element(_ item: [String: Any], location: String) -> ImportElement {
        let type = item["type"] as? Int ?? 0
        guard type == 1 else {
            return .skipped(location: location, reason: .notALogin(type: typeNames[type] ?? "type \(type)"))
        }
        guard let login = item["login"] as? [String: Any] else {
            return .invalid(location: location, problem: "a login item without \"login\"")
        }
        let times: (Date?, Date?)
        do {
            times = (
                try ImportTime.parse(string(item, "creationDate"), format: .iso8601, field: "creationDate"),
                try ImportTime.parse(string(item, "revisionDate"), format: .iso8601, field: "revisionDate")
            )
        } catch {
            return .invalid(location: location, problem: error.problem)
        }
        let account = string(login, "username")
        let uris = (login["uris"] as? [[String: Any]] ?? []).map { string($0, "uri") }.filter { !$0.isEmpty }
        return .entry(
            ImportEntry(
                location: location, urls: uris, account: account, password: string(login, "password"),
                details: CredentialDetails(
                    label: string(item, "name"), notes: string(item, "notes"),
                    otpAuth: OTPAuth.uri(string(login, "totp"), account: account)),
                created: times.0, modified: times.1))
    }
}

/// A CXF 1.0 item: `scope.urls`, a `basic-auth` credential, and optionally `note` and `totp`
/// credentials; an item without `basic-auth` (a passkey, a card…) is skipped.
enum CXFItem {
    static func element(_ item: [String: Any], location: String) -> ImportElement {
        let credentials = item["credentials"] as? [[String: Any]] ?? []
        guard let basic = credentials.first(where: { string($0, "type") == "basic-auth" }) else {
            let types = credentials.map { string($0, "type") }.filter { !$0.isEmpty }
            return .skipped(
                location: location,
                reason: .notALogin(type: types.isEmpty ? "no credential" : types.joined(separator: ", ")))
        }
        func value(_ object: [String: Any]?, _ key: String) -> String {
            string(object?[key] as? [String: Any], "value")
        }
        let account = value(basic, "username")
        let note = credentials.first { string($0, "type") == "note" }
        let totp = credentials.first { string($0, "type") == "totp" }.map { CXFTOTP.uri($0, account: account) }
        let urls = (item["scope"] as? [String: Any])?["urls"] as? [String] ?? []
        return .entry(
            ImportEntry(
                location: location, urls: urls, account: account, password: value(basic, "password"),
                details: CredentialDetails(label: string(item, "title"), notes: value(note, "content"), otpAuth: totp),
                created: ImportTime.fromUnixSeconds(item["creationAt"]),
                modified: ImportTime.fromUnixSeconds(item["modifiedAt"])))
    }
}

/// A 1PUX item: category `001` is a login, its `details.loginFields` designate the username and
/// password, `overview.urls` (or `overview.url`) its sites, a section field's `value.totp` its
/// one-time-password URI.
enum OnePUXItem {
    static let categoryNames = [
        "002": "credit card", "003": "secure note", "004": "identity", "005": "password", "006": "document",
        "100": "software license", "101": "bank account", "102": "database", "110": "server", "111": "SSH key",
    ]

    static func element(_ item: [String: Any], location: String) -> ImportElement {
        let category = string(item, "categoryUuid")
        guard category == "001" else {
            return .skipped(
                location: location, reason: .notALogin(type: categoryNames[category] ?? "category \(category)"))
        }
        let details = item["details"] as? [String: Any] ?? [:]
        let fields = details["loginFields"] as? [[String: Any]] ?? []
        func designated(_ name: String) -> String? {
            fields.first { string($0, "designation") == name }.map { string($0, "value") }
        }
        guard let password = designated("password") else {
            return .skipped(location: location, reason: .notALogin(type: "a login item with no password field"))
        }
        let overview = item["overview"] as? [String: Any] ?? [:]
        var urls = (overview["urls"] as? [[String: Any]] ?? []).map { string($0, "url") }
        if urls.isEmpty { urls = [string(overview, "url")] }
        let sectionFields = (details["sections"] as? [[String: Any]] ?? []).flatMap {
            $0["fields"] as? [[String: Any]] ?? []
        }
        let totp = sectionFields.lazy.compactMap { ($0["value"] as? [String: Any])?["totp"] as? String }.first
        let account = designated("username") ?? ""
        return .entry(
            ImportEntry(
                location: location, urls: urls.filter { !$0.isEmpty }, account: account, password: password,
                details: CredentialDetails(
                    label: string(overview, "title"), notes: string(details, "notesPlain"),
                    otpAuth: totp.flatMap { OTPAuth.uri($0, account: account) }),
                created: ImportTime.fromUnixSeconds(item["createdAt"]),
                modified: ImportTime.fromUnixSeconds(item["updatedAt"])))
    }
}
