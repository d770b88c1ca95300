/// The files `swcred import` reads, each named as `--format` takes it.
public enum ImportFormat: String, Sendable, CaseIterable {
    /// Apple Passwords and Safari: `Title,URL,Username,Password,Notes,OTPAuth`.
    case appleCSV = "apple-csv"
    /// Chrome and Chromium: `name,url,username,password,note`.
    case chromeCSV = "chrome-csv"
    /// Firefox: `url,username,password,httpRealm,formActionOrigin,guid,timeCreated,…` (times in ms).
    case firefoxCSV = "firefox-csv"
    /// Bitwarden's CSV: `folder,favorite,type,name,notes,fields,reprompt,login_uri,…`.
    case bitwardenCSV = "bitwarden-csv"
    /// Bitwarden's unencrypted JSON (`items[].login`).
    case bitwardenJSON = "bitwarden-json"
    /// KeePassXC: `Group,Title,Username,Password,URL,Notes[,TOTP,Icon,Last Modified,Created]`.
    case keepassxcCSV = "keepassxc-csv"
    /// 1Password's 1PUX: a zip whose `export.data` holds `accounts[].vaults[].items[]`.
    case onePassword1PUX = "1pux"
    /// The FIDO Alliance Credential Exchange Format 1.0, as JSON.
    case cxf = "cxf"

    /// The name people know the format by.
    public var displayName: String {
        switch self {
        case .appleCSV: "Apple Passwords / Safari CSV"
        case .chromeCSV: "Chrome CSV"
        case .firefoxCSV: "Firefox CSV"
        case .bitwardenCSV: "Bitwarden CSV"
        case .bitwardenJSON: "Bitwarden JSON"
        case .keepassxcCSV: "KeePassXC CSV"
        case .onePassword1PUX: "1Password 1PUX"
        case .cxf: "Credential Exchange Format (CXF 1.0)"
        }
    }

    /// Whether the file is CSV (read as a stream, row by row).
    var isCSV: Bool {
        switch self {
        case .appleCSV, .chromeCSV, .firefoxCSV, .bitwardenCSV, .keepassxcCSV: true
        case .bitwardenJSON, .onePassword1PUX, .cxf: false
        }
    }
}

/// The files `swcred export` writes.
public enum ExportFormat: String, Sendable, CaseIterable {
    /// Apple Passwords' CSV: title, URL, username, password, notes and OTP URI.
    case appleCSV = "apple-csv"
    /// Chrome's CSV: name, URL, username, password and note; no OTP URI, no times.
    case chromeCSV = "chrome-csv"
    /// Bitwarden's unencrypted JSON: everything, times included.
    case bitwardenJSON = "bitwarden-json"
    /// CXF 1.0 JSON: everything, times and passkeys included.
    case cxf = "cxf"

    /// Whether the format carries passkeys (CXF only).
    public var carriesPasskeys: Bool { self == .cxf }

    /// What the format cannot carry, for the warning before writing (empty when nothing is lost).
    public var lostFields: [String] {
        switch self {
        case .appleCSV: ["created and modified times"]
        case .chromeCSV: ["one-time-password URIs", "created and modified times"]
        case .bitwardenJSON, .cxf: []
        }
    }
}
