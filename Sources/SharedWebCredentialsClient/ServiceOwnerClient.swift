import Foundation
import NIOHTTP1
import SharedWebCredentials

/// The owner's routes of a running service, on its Unix socket: health, lock, unlock, and the
/// consent requests of `--consent ask` tokens (`swcred lock`, `unlock`, `consent`).
public final class ServiceOwnerClient: Sendable {
    /// The service's state, from `GET /v1/health`.
    public struct Health: Sendable, Decodable {
        /// The service's version.
        public let version: String
        /// Whether the vault is locked.
        public let locked: Bool
    }

    /// A change or release waiting for the owner's answer.
    public struct ConsentRequest: Sendable, Decodable {
        /// Its id, for the answer.
        public let id: String
        /// The app asking.
        public let app: String
        /// `add`, `update`, `delete` or `release`.
        public let operation: String
        /// The site (or sites, for a release).
        public let domain: String
        /// The account (or accounts, for a release).
        public let account: String?
    }

    private let connection: ServiceConnection

    /// A client of the service at `socketPath`.
    public init(socketPath: String) {
        connection = ServiceConnection(endpoint: .unixSocket(path: socketPath), caFile: nil, timeout: .seconds(90))
    }

    /// Closes the connections. Call once when done.
    public func shutdown() async throws {
        try await connection.shutdown()
    }

    /// The service's version and lock state.
    public func health() async throws -> Health {
        try await require(connection.call(.GET, "/v1/health", body: NoBody?.none, token: nil))
    }

    /// Locks the vault now.
    public func lock() async throws {
        let _: Health = try await require(connection.call(.POST, "/v1/lock", body: NoBody?.none, token: nil))
    }

    /// Unlocks with the passphrase; a wrong one throws `vaultLocked`.
    public func unlock(passphrase: SecureBytes) async throws {
        struct Body: Encodable { let passphrase: String }
        let _: Health = try await require(
            connection.call(.POST, "/v1/unlock", body: Body(passphrase: passphrase.exposedString()), token: nil))
    }

    /// Unlocks a key-file vault with the key file at `path` (read by the service).
    public func unlock(keyFile path: String) async throws {
        struct Body: Encodable {
            let keyFile: String
            enum CodingKeys: String, CodingKey { case keyFile = "key_file" }
        }
        let _: Health = try await require(connection.call(.POST, "/v1/unlock", body: Body(keyFile: path), token: nil))
    }

    /// The oldest request waiting for consent, waiting up to `wait` seconds for one; nil if none.
    public func nextConsentRequest(wait: Int) async throws -> ConsentRequest? {
        try await connection.call(.GET, "/v1/consent/next?wait=\(wait)", body: NoBody?.none, token: nil)
    }

    /// Answers a consent request; throws `itemNotFound` when it already timed out.
    public func answer(_ request: ConsentRequest, approve: Bool) async throws {
        struct Body: Encodable {
            let id: String
            let approve: Bool
        }
        struct Outcome: Decodable { let outcome: String }
        let _: Outcome = try await require(
            connection.call(.POST, "/v1/consent/answer", body: Body(id: request.id, approve: approve), token: nil))
    }

    private func require<T>(_ value: T?) throws -> T {
        guard let value else { throw SharedWebCredentialsError(.internalError, "the service answered with no content") }
        return value
    }
}
