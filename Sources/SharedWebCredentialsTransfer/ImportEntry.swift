import Foundation
import SharedWebCredentials

/// One login read from an import file, before it is matched against the vault.
struct ImportEntry {
    /// Where it is in the file, as messages name it: `row 7` (the header is row 1) or `item 3`.
    let location: String
    /// Its URLs; an entry with several becomes one credential per distinct site.
    let urls: [String]
    let account: String
    let password: String
    let details: CredentialDetails
    let created: Date?
    let modified: Date?

    /// The first field longer than ``Credential/maximumFieldBytes``, named as messages name it,
    /// and its size; nil when every field fits.
    var oversizedField: (name: String, bytes: Int)? {
        let fields = [
            ("username", account), ("password", password), ("title", details.label ?? ""),
            ("notes", details.notes ?? ""), ("one-time-password URI", details.otpAuth ?? ""),
        ]
        return fields.lazy.map { ($0, $1.utf8.count) }.first { $0.1 > Credential.maximumFieldBytes }
    }
}

/// What a reader yields for each row or item of a file.
enum ImportElement {
    /// A login to import.
    case entry(ImportEntry)
    /// A passkey to import (CXF), with the time its item was last modified.
    case passkey(location: String, Passkey, modified: Date?)
    /// Something that is not a login to import, and why (counted in the summary).
    case skipped(location: String, reason: SkipReason)
    /// A malformed row or item: the import fails unless `--skip-invalid` is given. `problem`
    /// never holds a secret from the file.
    case invalid(location: String, problem: String)

    /// Where in the file it comes from (one item can give a login and passkeys).
    var location: String {
        switch self {
        case .entry(let entry): entry.location
        case .passkey(let location, _, _), .skipped(let location, _), .invalid(let location, _): location
        }
    }
}

/// Why a row or item of an import file added nothing to the vault.
public enum SkipReason: Hashable, Sendable, CustomStringConvertible {
    /// The password is empty (the vault keeps none).
    case emptyPassword
    /// The entry has no URL.
    case noURL
    /// An Android app's credential (`android://`): the vault stores credentials by website.
    case androidApp(package: String)
    /// A URL that is not a website's (`ssh:`, `file:`, Firefox's `chrome:`, or text that is no
    /// host name): the vault stores credentials by website. What it is, without its content.
    case notAWebsite(String)
    /// An entry of another type than a login (a note, a card…).
    case notALogin(type: String)
    /// A passkey whose key swcred cannot sign with: its relying party and what the key is
    /// ("login.example.com with an RSA key").
    case unsupportedPasskey(String)
    /// The item is in the exporting app's trash (deleted there).
    case trashed
    /// The vault already has this credential with another password (`--on-conflict skip`).
    case exists
    /// An earlier entry of the file already gave this credential (`--on-conflict skip`).
    case duplicate(of: String)
    /// The saved credential is as new or newer, or the file gives no time (`--on-conflict newer`).
    case notNewer
    /// The entry is malformed, and `--skip-invalid` was given.
    case invalid(String)

    /// The reason as the summary words it, shared by all entries skipped for it.
    public var category: String {
        switch self {
        case .emptyPassword: "empty password"
        case .noURL: "no URL"
        case .androidApp: "Android app (the vault stores credentials by website)"
        case .notAWebsite: "not a website (the vault stores credentials by website)"
        case .notALogin: "not a login"
        case .unsupportedPasskey: "a passkey of an algorithm swcred does not sign with"
        case .trashed: "in the trash (deleted in the exporting app)"
        case .exists: "already saved with another password (--on-conflict skip)"
        case .duplicate: "duplicate in the file (--on-conflict skip)"
        case .notNewer: "not newer than the saved one (--on-conflict newer)"
        case .invalid: "invalid (--skip-invalid)"
        }
    }

    public var description: String {
        switch self {
        case .androidApp(let package): "Android app \(package): the vault stores credentials by website only"
        case .notAWebsite(let what): "not a website (\(what)): the vault stores credentials by website only"
        case .notALogin(let type): "not a login (\(type))"
        case .unsupportedPasskey(let what):
            "a passkey for \(what): swcred signs only with ES256 (P-256) and Ed25519"
        case .duplicate(let first): "duplicate of \(first)"
        case .invalid(let problem): problem
        default: category
        }
    }
}
