import SharedWebCredentials

/// Where each field is in one format's CSV rows, found by the header's names (any order, any
/// case), so that columns in another order or optional columns left out still read right.
struct CSVColumns {
    let url: Int
    let username: Int
    let password: Int
    let title: Int?
    let notes: Int?
    let otpAuth: Int?
    let created: Int?
    let modified: Int?
    /// Bitwarden's item type (`login`, `note`…).
    let type: Int?
    /// How the format writes times.
    let timeFormat: ImportTime.Format

    /// The column names of each format, lower-cased; url, username and password are required.
    private struct Names {
        var url: String, username: String, password: String
        var title: String? = nil, notes: String? = nil, otpAuth: String? = nil
        var created: String? = nil, modified: String? = nil, type: String? = nil
        var timeFormat = ImportTime.Format.iso8601
    }

    private static func names(_ format: ImportFormat) -> Names {
        switch format {
        case .appleCSV:
            Names(
                url: "url", username: "username", password: "password", title: "title", notes: "notes",
                otpAuth: "otpauth")
        case .chromeCSV:
            Names(url: "url", username: "username", password: "password", title: "name", notes: "note")
        case .firefoxCSV:
            Names(
                url: "url", username: "username", password: "password", created: "timecreated",
                modified: "timepasswordchanged", timeFormat: .unixMilliseconds)
        case .bitwardenCSV:
            Names(
                url: "login_uri", username: "login_username", password: "login_password", title: "name",
                notes: "notes", otpAuth: "login_totp", type: "type")
        case .keepassxcCSV:
            Names(
                url: "url", username: "username", password: "password", title: "title", notes: "notes",
                otpAuth: "totp", created: "created", modified: "last modified")
        case .bitwardenJSON, .onePassword1PUX, .cxf:
            preconditionFailure("\(format) is not a CSV format")
        }
    }

    /// The columns of `format` in `header`. Throws `.invalidInput` naming a required column the
    /// header lacks.
    init(header: [String], format: ImportFormat) throws {
        let normalized = header.map(Self.normalize)
        let names = Self.names(format)
        func find(_ name: String?) -> Int? { name.flatMap { normalized.firstIndex(of: $0) } }
        func require(_ name: String) throws -> Int {
            guard let index = find(name) else {
                throw SharedWebCredentialsError(
                    .invalidInput,
                    "the header has no \"\(name)\" column, which a \(format.displayName) file needs (the header is: \(header.joined(separator: ","))); export the file again, or name its format with --format"
                )
            }
            return index
        }
        url = try require(names.url)
        username = try require(names.username)
        password = try require(names.password)
        title = find(names.title)
        notes = find(names.notes)
        otpAuth = find(names.otpAuth)
        created = find(names.created)
        modified = find(names.modified)
        type = find(names.type)
        timeFormat = names.timeFormat
    }

    /// The CSV format a header belongs to, or nil when it matches none.
    static func detect(header: [String]) -> ImportFormat? {
        let names = Set(header.map(normalize))
        if names.contains("login_uri") || names.contains("login_password") { return .bitwardenCSV }
        guard names.isSuperset(of: ["url", "username", "password"]) else { return nil }
        if names.contains("group") && names.contains("title") { return .keepassxcCSV }
        if !names.isDisjoint(with: ["httprealm", "formactionorigin", "timepasswordchanged", "guid"]) {
            return .firefoxCSV
        }
        if names.contains("title") { return .appleCSV }
        if names.contains("name") { return .chromeCSV }
        return nil
    }

    private static func normalize(_ name: String) -> String {
        name.trimmingCharacters(in: .whitespaces).lowercased()
    }
}
