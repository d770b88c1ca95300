import Foundation
import SharedWebCredentials

/// The owner's routes of a running service, on its Unix socket: health, lock, unlock, and the
/// owner's proof that opens a session for the consent requests of `--consent ask` tokens
/// (`swcred lock`, `unlock`, `consent`).
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
        /// `add`, `update`, `delete`, `release`, `passkey-create`, `passkey-get`, or
        /// `browser-associate` (a browser asks to become a client).
        public let operation: String
        /// The site (or sites, for a release); empty for `browser-associate`.
        public let domain: String
        /// The account (or accounts, for a release).
        public let account: String?
        /// `browser-associate`: the fingerprint of the browser's identification key.
        public var fingerprint: String? = nil
        /// `browser-associate`: the name offered when the owner gives none.
        public var suggestedName: String? = nil
        /// `browser-associate`: the program that asks, as the service read it from `/proc`.
        public var peer: Peer? = nil

        /// The program on the other end of the browser socket; a field `/proc` did not give is nil.
        public struct Peer: Sendable, Equatable {
            /// One process above it.
            public struct Parent: Sendable, Equatable {
                /// Its process id.
                public let pid: Int32
                /// Where its `/proc/PID/exe` links.
                public let executable: String?
            }

            /// Its process id.
            public let pid: Int32
            /// Where its `/proc/PID/exe` links.
            public let executable: String?
            /// Its arguments, separated by spaces.
            public let commandLine: String?
            /// Its parent, that one's parent, and so on.
            public let parents: [Parent]
        }

        /// Whether a browser asks to become a client.
        public var isBrowserAssociation: Bool { operation == "browser-associate" }
        /// Whether an associated browser asks (its `app` is `browser:NAME`).
        public var isFromBrowser: Bool { app.hasPrefix("browser:") }
    }

    private let connection: ServiceConnection
    private let socketPath: String
    private let trustedServiceUID: uid_t?

    /// A client of the service at `socketPath`. The socket is checked first, and nothing is sent
    /// unless its directory is the caller's own (or `trustedServiceUID`'s), writable by nobody
    /// else, under directories only root, the caller or that uid can change, and the process
    /// listening on it runs as the caller's uid or as `trustedServiceUID`; otherwise this throws
    /// `vaultLocked` naming the owner it found.
    ///
    /// - Parameter trustedServiceUID: another uid whose service the caller trusts with its
    ///   passphrase and proofs (`swcred --server-uid`, `SWCRED_SERVER_UID`); nil: only its own.
    public init(socketPath: String, trustedServiceUID: uid_t? = nil) throws {
        self.socketPath = socketPath
        self.trustedServiceUID = trustedServiceUID
        connection = try ServiceConnection(
            endpoint: .unixSocket(path: socketPath), token: nil, caFile: nil, timeout: .seconds(90),
            trustedServiceUID: trustedServiceUID)
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

    /// Unlocks a key-file vault with its key (``KeyFile/read(at:)``), sent in the request: the
    /// service opens no file that a request names.
    public func unlock(key: SecureBytes) async throws {
        _ = try await connection.perform { try await $0.unlock(body: .json(.init(key: KeyFile.text(of: key)))).ok }
    }

    /// Proves to the service that this is the vault's owner, and returns an owner session for the
    /// consent routes: the service's random challenge answered with `vault`'s owner proof, which
    /// only the unlocked vault (its passphrase or key file) can make. The service checks it
    /// against the vault it holds; a wrong one is refused (`vaultLocked`) and slows down later tries.
    public func openOwnerSession(with vault: Vault) async throws -> ServiceOwnerSession {
        let challenge = try await connection.perform { try await $0.ownerChallenge().ok.body.json }
        guard let challengeBytes = OwnerProof.bytes(fromText: challenge.challenge) else {
            throw SharedWebCredentialsError(.internalError, "the service sent a challenge that is not base64url")
        }
        let proof = OwnerProof.text(vault.ownerProof(answering: challengeBytes))
        let session = try await connection.perform {
            try await $0.ownerSession(body: .json(.init(challenge: challenge.challenge, proof: proof))).ok.body.json
        }
        return try ServiceOwnerSession(
            socketPath: socketPath, session: SecureBytes(utf8: session.session), trustedServiceUID: trustedServiceUID)
    }
}

/// The consent routes of a running service, for an owner who proved the passphrase
/// (``ServiceOwnerClient/openOwnerSession(with:)``).
public final class ServiceOwnerSession: Sendable {
    private let connection: ServiceConnection

    init(socketPath: String, session: SecureBytes, trustedServiceUID: uid_t?) throws {
        connection = try ServiceConnection(
            endpoint: .unixSocket(path: socketPath), token: session, caFile: nil, timeout: .seconds(90),
            trustedServiceUID: trustedServiceUID)
    }

    /// Closes the connections. Call once when done.
    public func shutdown() async throws {
        try await connection.shutdown()
    }

    /// The oldest request waiting for consent, waiting up to `wait` seconds for one; nil if none.
    public func nextConsentRequest(wait: Int) async throws -> ServiceOwnerClient.ConsentRequest? {
        try await connection.perform { client in
            switch try await client.nextConsentRequest(query: .init(wait: wait)) {
            case .ok(let ok):
                let request = try ok.body.json
                return ServiceOwnerClient.ConsentRequest(
                    id: request.id, app: request.app, operation: request.operation.rawValue, domain: request.domain,
                    account: request.account, fingerprint: request.fingerprint, suggestedName: request.suggestedName,
                    peer: request.peer.map { peer in
                        ServiceOwnerClient.ConsentRequest.Peer(
                            pid: peer.pid, executable: peer.executable, commandLine: peer.commandLine,
                            parents: peer.parents.map { .init(pid: $0.pid, executable: $0.executable) })
                    })
            case .noContent:
                return nil
            default:
                throw SharedWebCredentialsError(.internalError, "the service answered an undocumented status")
            }
        }
    }

    /// Answers a consent request; throws `itemNotFound` when it already timed out. `name` is the
    /// name given to a browser being associated; `remember` keeps the answer for that browser and
    /// site until the service stops.
    public func answer(
        _ request: ServiceOwnerClient.ConsentRequest, approve: Bool, name: String? = nil, remember: Bool = false
    ) async throws {
        _ = try await connection.perform {
            try await $0.answerConsentRequest(
                body: .json(.init(id: request.id, approve: approve, name: name, remember: remember ? true : nil))
            ).ok
        }
    }
}
