import Foundation
import SharedWebCredentials

/// The owner's routes of a running service, on its Unix socket: health, lock, unlock, and the
/// consent requests of `--consent ask` tokens (`swcred lock`, `unlock`, `consent`).
public final class ServiceOwnerClient: Sendable {
    /// The service's state, from `GET /v1/health`.
    public struct Health: Sendable {
        /// The service's version.
        public let version: String
        /// Whether the vault is locked.
        public let locked: Bool
    }

    /// A change or release waiting for the owner's answer.
    public struct ConsentRequest: Sendable {
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
    public init(socketPath: String) throws {
        connection = try ServiceConnection(
            endpoint: .unixSocket(path: socketPath), token: nil, caFile: nil, timeout: .seconds(90))
    }

    /// Closes the connections. Call once when done.
    public func shutdown() async throws {
        try await connection.shutdown()
    }

    /// The service's version and lock state.
    public func health() async throws -> Health {
        let health = try await connection.perform { try await $0.health().ok.body.json }
        return Health(version: health.version, locked: health.locked)
    }

    /// Locks the vault now.
    public func lock() async throws {
        _ = try await connection.perform { try await $0.lock().ok }
    }

    /// Unlocks with the passphrase; a wrong one throws `vaultLocked`.
    public func unlock(passphrase: SecureBytes) async throws {
        _ = try await connection.perform {
            try await $0.unlock(body: .json(.init(passphrase: passphrase.exposedString()))).ok
        }
    }

    /// Unlocks a key-file vault with the key file at `path` (read by the service).
    public func unlock(keyFile path: String) async throws {
        _ = try await connection.perform { try await $0.unlock(body: .json(.init(keyFile: path))).ok }
    }

    /// The oldest request waiting for consent, waiting up to `wait` seconds for one; nil if none.
    public func nextConsentRequest(wait: Int) async throws -> ConsentRequest? {
        try await connection.perform { client in
            switch try await client.nextConsentRequest(query: .init(wait: wait)) {
            case .ok(let ok):
                let request = try ok.body.json
                return ConsentRequest(
                    id: request.id, app: request.app, operation: request.operation.rawValue, domain: request.domain,
                    account: request.account)
            case .noContent:
                return nil
            default:
                throw SharedWebCredentialsError(.internalError, "the service answered an undocumented status")
            }
        }
    }

    /// Answers a consent request; throws `itemNotFound` when it already timed out.
    public func answer(_ request: ConsentRequest, approve: Bool) async throws {
        _ = try await connection.perform {
            try await $0.answerConsentRequest(body: .json(.init(id: request.id, approve: approve))).ok
        }
    }
}
