import Foundation
import SharedWebCredentials

/// How `swcred serve` runs: where it listens, whom it serves, how it verifies sites.
public struct ServiceConfiguration: Sendable {
    /// The Unix socket's path.
    public var socketPath: String
    /// Peer uids served besides the service's own.
    public var allowedUIDs: Set<UInt32>
    /// Network rules for verifying associations (`verify`'s options).
    public var network: NetworkOptions
    /// Lock after this long without a request; nil: never.
    public var lockAfter: Duration?
    /// How long a request body may take to arrive (the slow-client cut-off).
    public var bodyTimeout: Duration
    /// How long a kept-alive connection may stay idle.
    public var idleTimeout: Duration
    /// How long shutdown waits for requests in flight.
    public var shutdownGrace: Duration
    /// How long a request of a `--consent ask` token waits for the owner.
    public var consentTimeout: Duration
    /// When verdicts are re-checked (the gate's and the background re-verifier's policy).
    public var recheckPolicy: RecheckPolicy = RecheckPolicy()
    /// How often the background re-verifier looks for due verdicts (plus up to 25% jitter).
    public var reverifyInterval: Duration = .seconds(300)
    /// `HOST:PORT` of an additional TLS listener, with its certificate chain and key (PEM files).
    public var tcpListener: TCPListener?
    /// Serve `/metrics` on the TLS listener without an app token (on the socket it is always open
    /// to the service's own uid).
    public var metricsWithoutToken = false
    /// Where to serve browsers (`--browser`): KeePassXC's socket, which `keepassxc-proxy` and
    /// `swcred browser host` connect to; nil serves none.
    public var browserSocketPath: String?
    /// The older path beside it, a symbolic link to the socket when nothing else is there.
    public var browserLegacyLinkPath: String?
    /// How the vault is opened, here and on every unlock: how long a write waits for another
    /// writer (`--busy-timeout`), which also bounds a PostgreSQL statement's answer (plus 5 s);
    /// and never following another process's key rotation: the service locks instead. Its
    /// requests' audit entries go to a chain of its own (``VaultConfiguration/appendsToInstanceChain``).
    public var vault: VaultConfiguration = {
        var configuration = VaultConfiguration()
        configuration.followsKeyChanges = false
        configuration.appendsToInstanceChain = true
        return configuration
    }()

    /// A TCP listener, always with TLS.
    public struct TCPListener: Sendable {
        public var host: String
        public var port: Int
        public var certificatePath: String
        public var keyPath: String

        public init(host: String, port: Int, certificatePath: String, keyPath: String) {
            self.host = host
            self.port = port
            self.certificatePath = certificatePath
            self.keyPath = keyPath
        }
    }

    public init(
        socketPath: String, allowedUIDs: Set<UInt32> = [], network: NetworkOptions, lockAfter: Duration? = nil,
        bodyTimeout: Duration, idleTimeout: Duration, shutdownGrace: Duration, consentTimeout: Duration,
        tcpListener: TCPListener? = nil
    ) {
        self.socketPath = socketPath
        self.allowedUIDs = allowedUIDs
        self.network = network
        self.lockAfter = lockAfter
        self.bodyTimeout = bodyTimeout
        self.idleTimeout = idleTimeout
        self.shutdownGrace = shutdownGrace
        self.consentTimeout = consentTimeout
        self.tcpListener = tcpListener
    }
}
