import Foundation
import SharedWebCredentials

/// Reads the JSON formats (Bitwarden's unencrypted export, CXF 1.0, 1PUX's `export.data`),
/// already parsed, item by item. Items are numbered from 1 in file order, across accounts and
/// vaults.
final class JSONImportReader: ImportReader {
    let format: ImportFormat
    private let items: [[String: Any]]
    private let read: ([String: Any], String) -> [ImportElement]
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
            read = { [BitwardenJSONItem.element($0, location: $1)] }
        case .cxf:
            // The full file (a header with `accounts`), or one bare account (`items`), as Apple's
            // credential-exchange API hands it over.
            if let accounts = root["accounts"] as? [[String: Any]] {
                items = accounts.flatMap { $0["items"] as? [[String: Any]] ?? [] }
            } else if let items = root["items"] as? [[String: Any]] {
                self.items = items
            } else {
                throw Self.shape(path, format, "it has neither an \"accounts\" array nor an account's \"items\"")
            }
            read = CXFItem.elements
        case .onePassword1PUX:
            guard let accounts = root["accounts"] as? [[String: Any]] else {
                throw Self.shape(path, format, "export.data has no \"accounts\" array")
            }
            let vaults = accounts.flatMap { $0["vaults"] as? [[String: Any]] ?? [] }
            items = vaults.flatMap { $0["items"] as? [[String: Any]] ?? [] }
            read = { [OnePUXItem.element($0, location: $1)] }
        default:
            preconditionFailure("\(format) is not a JSON format")
        }
    }

    func forEach(_ body: (ImportElement) throws -> Void) throws {
        for (index, item) in items.enumerated() {
            for element in read(item, "item \(index + 1)") { try body(element) }
        }
    }

    /// The JSON format of a parsed file, claimed only on that format's own shape: `accounts` with
    /// vaults is a 1PUX `export.data`, without them a CXF file; an `encrypted` flag is Bitwarden;
    /// `items` are Bitwarden's when they carry `login`, `name`, `notes` or `type`, a bare CXF account's when
    /// they carry `credentials` or `title` (or, with no items, when the object has an account's
    /// `username` or `email`). Throws, asking for `--format`, when the shape says neither or both.
    static func detect(_ json: Any, path: String) throws -> ImportFormat {
        func unknown(_ why: String) -> SharedWebCredentialsError {
            SharedWebCredentialsError(
                .invalidInput,
                "\(path) is JSON, but swcred cannot tell its format: \(why). Name the format with --format (bitwarden-json, cxf)"
            )
        }
        guard let root = json as? [String: Any] else { throw unknown("the top level is not an object") }
        if let accounts = root["accounts"] as? [[String: Any]] {
            return accounts.contains { $0["vaults"] != nil } ? .onePassword1PUX : .cxf
        }
        if root["encrypted"] != nil { return .bitwardenJSON }
        guard let items = root["items"] as? [[String: Any]] else {
            throw unknown("it has neither Bitwarden's or a CXF account's \"items\" nor CXF's \"accounts\"")
        }
        let bitwarden = items.filter {
            $0["login"] != nil || $0["name"] != nil || $0["notes"] != nil || $0["type"] is NSNumber
        }.count
        let cxf = items.filter { $0["credentials"] != nil || $0["title"] != nil }.count
        switch (bitwarden > 0, cxf > 0) {
        case (true, false): return .bitwardenJSON
        case (false, true): return .cxf
        case (true, true):
            throw unknown(
                "of its items, \(bitwarden) look like Bitwarden's (login, name, notes, type) and \(cxf) like CXF's (credentials, title)"
            )
        case (false, false):
            if items.isEmpty, root["username"] is String || root["email"] is String { return .cxf }
            if items.isEmpty, root["folders"] != nil { return .bitwardenJSON }
            throw unknown(
                "its items carry neither Bitwarden's login, name, notes or type nor CXF's credentials or title")
        }
    }

    private static func shape(_ path: String, _ format: ImportFormat, _ problem: String) -> SharedWebCredentialsError {
        SharedWebCredentialsError(.invalidInput, "\(path) is not a \(format.displayName) file: \(problem)")
    }
}

/// A JSON object's string member, "" when absent.
func string(_ object: [String: Any]?, _ key: String) -> String {
    object?[key] as? String ?? ""
}

/// Bitwarden's item: `type` 1 (or no type and a `login` object) is a login with `login.uris[].uri`,
/// `username`, `password`, `totp`.
enum BitwardenJSONItem {
    static let typeNames = [2: "secure note", 3: "card", 4: "identity", 5: "SSH key"]

    /// An item whose `type` is 1, or that has none but carries a `login` object, is a login.
    static func element(_ item: [String: Any], location: String) -> ImportElement {
        let login = item["login"] as? [String: Any]
        switch item["type"] {
        case nil where login != nil:
            break
        case nil:
            return .skipped(location: location, reason: .notALogin(type: "it has no type, and no \"login\""))
        case let type as Int where type == 1:
            break
        case let type as Int:
            return .skipped(location: location, reason: .notALogin(type: typeNames[type] ?? "type \(type)"))
        case let type?:
            return .skipped(location: location, reason: .notALogin(type: "type \(type)"))
        }
        guard let login else {
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

/// A CXF 1.0 item: its `passkey` credentials (``CXFPasskey``), and a login made of `scope.urls`,
/// a `basic-auth` credential, and optionally `note` and `totp` credentials; an item with neither
/// (a card, a note alone…) is skipped.
enum CXFItem {
    static func elements(_ item: [String: Any], location: String) -> [ImportElement] {
        let credentials = item["credentials"] as? [[String: Any]] ?? []
        let passkeys = credentials.filter { string($0, "type") == "passkey" }.map {
            CXFPasskey.element($0, item: item, location: location)
        }
        guard let basic = credentials.first(where: { string($0, "type") == "basic-auth" }) else {
            if !passkeys.isEmpty { return passkeys }
            let types = credentials.map { string($0, "type") }.filter { !$0.isEmpty }
            return [
                .skipped(
                    location: location,
                    reason: .notALogin(type: types.isEmpty ? "no credential" : types.joined(separator: ", ")))
            ]
        }
        return passkeys + [login(item, basic: basic, credentials: credentials, location: location)]
    }

    private static func login(
        _ item: [String: Any], basic: [String: Any], credentials: [[String: Any]], location: String
    ) -> ImportElement {
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

/// A 1PUX item (bare, or wrapped as `{"item": {...}}` by the older layout; one in the trash is
/// skipped): category `001` is a login, its `details.loginFields` designate the username and
/// password, `overview.urls` (or `overview.url`) its sites, a section field's `value.totp` its
/// one-time-password URI.
enum OnePUXItem {
    static let categoryNames = [
        "002": "credit card", "003": "secure note", "004": "identity", "005": "password", "006": "document",
        "100": "software license", "101": "bank account", "102": "database", "110": "server", "111": "SSH key",
    ]

    static func element(_ wrapped: [String: Any], location: String) -> ImportElement {
        // 1Password 8's first releases wrapped each item as {"item": {...}}.
        let item = wrapped["item"] as? [String: Any] ?? wrapped
        if item["trashed"] as? Bool == true || wrapped["trashed"] as? Bool == true {
            return .skipped(location: location, reason: .trashed)
        }
        let category = string(item, "categoryUuid")
        guard category == "001" else {
            let type =
                category.isEmpty ? "it has no categoryUuid" : categoryNames[category] ?? "category \(category)"
            return .skipped(location: location, reason: .notALogin(type: type))
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
