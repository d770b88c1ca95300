import Foundation

/// One saved credential: a server (and port), an account and its password.
public struct Credential: Sendable {
    /// The normalised host name (lower-case ASCII).
    public let server: String
    /// The port, only when it is not the default (443).
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
}

/// What ``CredentialStore/upsert(server:port:account:password:details:)`` did.
public enum UpsertOutcome: Sendable, Equatable {
    /// No credential existed for (server, port, account); one was added.
    case added
    /// One existed with a different password or details; it was updated.
    case updated
    /// One existed with the same password and details; nothing changed.
    case unchanged
}

/// The identity of a credential: a normalised server, port and account.
struct CredentialKey {
    let server: String
    let port: Int?

    /// Normalises a server: lower-cased; port 443 (the HTTPS default) is stored as no port.
    /// Full host validation (IDNA, the rules of SPEC §2) belongs to the caller.
    init(server: String, port: Int?) throws {
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
        self.port = port == 443 ? nil : port
    }
}
