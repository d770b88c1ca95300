import Foundation

/// An operation an app token may be granted, named as in `swcred app token create --allow`.
public enum AppPermission: String, Sendable, CaseIterable, Comparable {
    /// Release saved credentials (`POST /v1/credentials/request`).
    case request
    /// Add or update a credential (`PUT /v1/credentials`).
    case add
    /// Delete a credential (`DELETE /v1/credentials`).
    case delete
    /// Generate passwords (`POST /v1/passwords/generate`).
    case generate
    /// Create a passkey (`POST /v1/passkeys/create`).
    case passkeyCreate = "passkey-create"
    /// Sign in with a passkey (`POST /v1/passkeys/get`).
    case passkeyGet = "passkey-get"
    /// Read the service's metrics (`GET /metrics`), which count every app's requests and the
    /// owner's consent decisions: a token for a monitoring system, never an app's by default.
    case metrics

    public static func < (lhs: AppPermission, rhs: AppPermission) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }

    /// Parses a comma-separated list such as `request,generate`; throws `invalidInput` naming an
    /// unknown or repeated entry.
    public static func parseList(_ text: String) throws -> Set<AppPermission> {
        var permissions: Set<AppPermission> = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            // A stored list has no spaces: only a typed one needs Foundation's (slower) trimming.
            let name = item.contains(where: \.isWhitespace) ? item.trimmingCharacters(in: .whitespaces) : String(item)
            guard let permission = AppPermission(rawValue: name) else {
                throw SharedWebCredentialsError(
                    .invalidInput,
                    "unknown permission \"\(name)\" in \"\(text)\": give a comma-separated list of request, add, delete, generate, passkey-create, passkey-get, metrics"
                )
            }
            guard permissions.insert(permission).inserted else {
                throw SharedWebCredentialsError(.invalidInput, "permission \"\(name)\" is given twice in \"\(text)\"")
            }
        }
        return permissions
    }

    /// The canonical text of a set of permissions: comma-separated, in declaration order.
    public static func listText(_ permissions: Set<AppPermission>) -> String {
        permissions.sorted().map(\.rawValue).joined(separator: ",")
    }
}

/// Whether changes and releases made with a token wait for the vault owner's answer.
public enum ConsentMode: String, Sendable, CaseIterable {
    /// The token's operations happen without asking (after the gate).
    case none
    /// Every add, update, delete or release waits for the owner in `swcred consent`.
    case ask
}

/// A stored app token, without its secret: what `swcred app token list` shows and what a
/// request authenticated with the token acts as.
public struct AppTokenRecord: Sendable, Equatable {
    /// The token's public id (16 hex digits), for listing and revoking.
    public let id: String
    /// The app the token acts for.
    public let app: ApplicationIdentifier
    /// The operations the token may perform.
    public let permissions: Set<AppPermission>
    /// Whether its changes and releases wait for the owner.
    public let consent: ConsentMode
    /// When it was created.
    public let createdAt: Date
    /// When it stops working, or nil for never.
    public let expiresAt: Date?

    /// Whether the token has expired at `date`.
    public func isExpired(at date: Date) -> Bool {
        guard let expiresAt else { return false }
        return date >= expiresAt
    }
}

/// A newly created token: its record and the secret text, shown to the owner once.
public struct IssuedAppToken: Sendable {
    /// The stored record.
    public let record: AppTokenRecord
    /// The bearer token, `swcred_` followed by 43 base64url characters (256 random bits).
    public let token: SecureBytes
}
