import Foundation

/// One saved credential: a scheme, a server (and port), an account and its password.
public struct Credential: Sendable {
    /// `https` (all that apps reach) or `http`: part of the credential's identity.
    public let scheme: CredentialScheme
    /// The normalised host name (lower-case ASCII).
    public let server: String
    /// The port, only when it is not the scheme's default (443 for https, 80 for http).
    public let port: Int?
    /// The account name, exactly as saved.
    public let account: String
    /// The password, in locked memory. Call `password.exposedString()` only where it is released.
    public let password: SecureBytes
    /// The owner's label, notes and one-time-password URI.
    public let details: CredentialDetails
    /// When the credential was first saved.
    public let created: Date
    /// When the password or details last changed.
    public let modified: Date

    /// The owner's label, if any.
    public var label: String? { details.label }

    /// The scheme, server and port the credential is saved for.
    public var site: CredentialSite { CredentialSite(scheme: scheme, host: server, port: port) }
}

/// What ``CredentialStore/upsert(server:port:scheme:account:password:details:)`` did.
public enum UpsertOutcome: Sendable, Equatable {
    /// No credential existed for (scheme, server, port, account); one was added.
    case added
    /// One existed with a different password or details; it was updated.
    case updated
    /// One existed with the same password and details; nothing changed.
    case unchanged
}

/// The identity of a credential short of its account: a normalised server, port and scheme.
struct CredentialKey: Sendable {
    let server: String
    let port: Int?
    let scheme: CredentialScheme

    /// Normalises a server: lower-cased; the scheme's default port (443, or 80 for http) is
    /// stored as no port. Full host validation (IDNA, the rules of SPEC §2) belongs to the caller.
    init(server: String, port: Int?, scheme: CredentialScheme = .https) throws {
        let normalised = server.lowercased()
        guard !normalised.isEmpty, normalised.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f }) else {
            throw SharedWebCredentialsError(
                .invalidInput,
                "A server must be a non-empty ASCII host name without spaces (convert IDNs to xn-- form).")
        }
        if let port, !(1...65535).contains(port) {
            throw SharedWebCredentialsError(.invalidInput, "Port \(port) is out of range: use 1...65535.")
        }
        self.server = normalised
        self.port = port == scheme.defaultPort ? nil : port
        self.scheme = scheme
    }
}

extension Credential {
    /// The most bytes (UTF-8) that any one field of a credential may hold: the account name, the
    /// password, the label, the notes and the one-time-password URI. 16 KiB is far more than any
    /// of them needs (a long note of recovery codes is a few KiB), and small enough that a whole
    /// credential fits in one request to the service, whose bodies are capped at 64 KiB. Every
    /// write enforces it (``CredentialBatch/upsert(server:port:account:password:details:created:modified:)``,
    /// which the gated facade, `swcred item set`, the service and import all go through), and
    /// import refuses a row with a longer field.
    public static let maximumFieldBytes = 16 * 1024

    /// Throws `.invalidInput` naming the first field longer than ``maximumFieldBytes`` (by its
    /// size, never its content).
    public static func checkFieldSizes(account: String, password: SecureBytes, details: CredentialDetails) throws {
        let fields: [(name: String, bytes: Int)] = [
            ("account name", account.utf8.count), ("password", password.count),
            ("label", details.label?.utf8.count ?? 0), ("notes", details.notes?.utf8.count ?? 0),
            ("one-time-password URI", details.otpAuth?.utf8.count ?? 0),
        ]
        if let field = fields.first(where: { $0.bytes > maximumFieldBytes }) {
            throw fieldTooLong(field.name, bytes: field.bytes)
        }
    }

    /// The refusal of a field of `bytes` bytes, over ``maximumFieldBytes``.
    public static func fieldTooLong(_ field: String, bytes: Int) -> SharedWebCredentialsError {
        SharedWebCredentialsError(
            .invalidInput,
            "the \(field) is \(bytes) bytes, over the vault's limit of \(maximumFieldBytes) bytes (16 KiB) per field: shorten it; nothing was saved"
        )
    }
}
