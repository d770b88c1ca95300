import Foundation
import Glibc
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL
import ServiceLifecycle
import SharedWebCredentials
import UnixSignals

/// `swcred serve`: one process that holds the unlocked vault and serves the gated operations to
/// apps over HTTP on a Unix socket (and optionally TLS on TCP), until SIGTERM or SIGINT.
public enum VaultService {
    /// Serves `vault` until a shutdown signal; then finishes the requests in flight (bounded by
    /// `shutdownGrace`), drops the vault (its keys are wiped) and returns.
    ///
    /// - Parameter onListening: called once the socket accepts connections (scripts and tests
    ///   wait for the socket; the CLI prints a line).
    public static func run(
        vault: Vault, configuration: ServiceConfiguration, logger: Logger,
        onListening: @escaping @Sendable () -> Void = {}
    ) async throws {
        let lock = try SocketPreparation.prepare(socketPath: configuration.socketPath)
        defer { close(lock) }
        let directory = (configuration.socketPath as NSString).deletingLastPathComponent
        try SocketAccessList.grantDirectory(directory, to: configuration.allowedUIDs)
        if !configuration.allowedUIDs.isEmpty {
            for closed in SocketAccessList.closedAncestors(of: directory) {
                logger.warning(
                    "\(closed) does not let other users through: --allow-uid peers may not reach the socket; choose a --socket they can reach"
                )
            }
        }
        let previousMask = umask(0o177)
        defer { umask(previousMask) }
        let holder = VaultHolder(unlocked: vault, configuration: configuration.vault)
        defer { holder.lock() }
        if configuration.network.offline {
            try await serve(
                holder: holder, threads: vault.storage.threads, verifier: nil, configuration: configuration,
                logger: logger, onListening)
        } else {
            try await Verifier.withVerifier(options: configuration.network) { verifier in
                try await serve(
                    holder: holder, threads: vault.storage.threads, verifier: verifier, configuration: configuration,
                    logger: logger, onListening)
            }
        }
        unlink(configuration.socketPath)
        logger.notice("stopped; vault closed and keys wiped")
    }

    /// Serves until a shutdown signal. Both listeners' connections run on `threads`, the vault's
    /// storage engine's (``OnEngineThreadsChannel``), which stay the same when the vault is locked and
    /// unlocked again.
    private static func serve(
        holder: VaultHolder, threads: EngineThreads, verifier: Verifier?, configuration: ServiceConfiguration,
        logger: Logger,
        _ onListening: @escaping @Sendable () -> Void
    ) async throws {
        let metrics = ServiceMetrics()
        let trail = OwnerAuditTrail()
        let consent = ConsentBroker(timeout: configuration.consentTimeout)
        let api = VaultAPI(
            holder: holder, verifier: verifier?.observed { metrics.recordVerification($0.verdict, background: false) },
            metrics: metrics, policy: configuration.recheckPolicy,
            throttle: FailedAuthenticationThrottle(), consent: consent,
            owner: OwnerAuthority(
                holder: holder,
                throttle: ServiceWideThrottle(GuessThrottle(store: holder.store, configuration: holder.configuration))),
            metricsWithoutToken: configuration.metricsWithoutToken, trail: trail, logger: logger)
        let router = Router(context: ServiceRequestContext.self)
        router.add(
            middleware: ServiceMiddleware(allowedUIDs: configuration.allowedUIDs, logger: logger, metrics: metrics))
        router.add(middleware: RequestBodyMiddleware())
        try api.register(on: router)
        let bodyTimeout = TimeAmount.nanoseconds(configuration.bodyTimeout.nanoseconds)
        let http = HTTP1Channel.Configuration(
            additionalChannelHandlers: [BodyDeadlineHandler(timeout: bodyTimeout)],
            idleTimeout: .nanoseconds(configuration.idleTimeout.nanoseconds))
        let socketPath = configuration.socketPath
        let allowedUIDs = configuration.allowedUIDs
        var services: [any Service] = [
            NamedListener(
                wrapped: Application(
                    router: router,
                    server: HTTPServerBuilder { responder in
                        OnEngineThreadsChannel(
                            wrapped: HTTP1Channel(responder: responder, configuration: http), threads: threads)
                    },
                    configuration: .init(address: .unixDomainSocket(path: socketPath), serverName: nil, backlog: 4096),
                    onServerRunning: { _ in
                        chmod(socketPath, 0o600)
                        do {
                            try SocketAccessList.grantSocket(socketPath, to: allowedUIDs)
                        } catch {
                            logger.error("\(error): the --allow-uid peers cannot connect")
                        }
                        logger.notice("listening", metadata: ["socket": "\(socketPath)"])
                        onListening()
                    },
                    logger: logger),
                address: "the socket \(socketPath)", advice: "pass another --socket", reason: .unusableSocketPath)
        ]
        if let tcp = configuration.tcpListener {
            let tls = TLSConfiguration.makeServerConfiguration(
                certificateChain: try NIOSSLCertificate.fromPEMFile(tcp.certificatePath).map { .certificate($0) },
                privateKey: .privateKey(try NIOSSLPrivateKey(file: tcp.keyPath, format: .pem)))
            services.append(
                NamedListener(
                    wrapped: Application(
                        router: router,
                        server: HTTPServerBuilder { responder in
                            OnEngineThreadsChannel(
                                wrapped: try TLSChannel(
                                    HTTP1Channel(responder: responder, configuration: http), tlsConfiguration: tls),
                                threads: threads)
                        },
                        configuration: .init(
                            address: .hostname(tcp.host, port: tcp.port), serverName: nil, backlog: 4096),
                        onServerRunning: { channel in
                            logger.notice(
                                "listening with TLS",
                                metadata: ["address": "\(channel.localAddress.map { "\($0)" } ?? "?")"])
                        },
                        logger: logger),
                    address: "--listen \(tcp.host):\(tcp.port)",
                    advice: "stop what listens there, or choose another --listen", reason: .unusableListenAddress))
        }
        if let verifier {
            services.append(
                BackgroundReverifier(
                    holder: holder,
                    verifier: verifier.observed { metrics.recordVerification($0.verdict, background: true) },
                    policy: configuration.recheckPolicy,
                    interval: configuration.reverifyInterval, logger: logger))
        }
        if let browserSocketPath = configuration.browserSocketPath {
            services.append(
                try BrowserNotices.start(
                    socketPath: browserSocketPath, legacyLinkPath: configuration.browserLegacyLinkPath,
                    bridge: ServiceBrowserBridge(holder: holder, consent: consent, logger: logger), holder: holder,
                    logger: logger))
        }
        services.append(UnlockWatcher(holder: holder, trail: trail, logger: logger))
        if let lockAfter = configuration.lockAfter {
            services.append(IdleLocker(holder: holder, interval: lockAfter, trail: trail, logger: logger))
        }
        var groupConfiguration = ServiceGroupConfiguration(services: services, logger: logger)
        groupConfiguration.maximumGracefulShutdownDuration = configuration.shutdownGrace
        let group = ServiceGroup(configuration: groupConfiguration)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            tasks.addTask { await shutDownOnSignal(group, socketPath: socketPath, logger: logger) }
            try await tasks.next()
            tasks.cancelAll()
        }
    }

    /// Waits for SIGTERM or SIGINT, then shuts the service group down gracefully. First the socket
    /// file is removed, so that no new client can connect, and the connections already in the
    /// accept backlog get a moment to be taken up: a connection accepted while the listener
    /// closes is dropped unserved by NIO's async server channel, which traps
    /// ("Deinited NIOAsyncWriter without calling finish()", apple/swift-nio#2813).
    private static func shutDownOnSignal(_ group: ServiceGroup, socketPath: String, logger: Logger) async {
        for await signal in await UnixSignalsSequence(trapping: .sigterm, .sigint) {
            logger.notice("shutting down", metadata: ["signal": "\(signal)"])
            unlink(socketPath)
            try? await Task.sleep(for: .milliseconds(200))
            await group.triggerGracefulShutdown()
            return
        }
    }
}

extension Duration {
    /// The duration in whole nanoseconds.
    var nanoseconds: Int64 {
        components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000
    }
}

/// Locks the vault after `interval` without a request (`--lock-after`).
struct IdleLocker: Service {
    let holder: VaultHolder
    let interval: Duration
    let trail: OwnerAuditTrail
    let logger: Logger

    func run() async throws {
        let tick = min(interval / 4, .seconds(1))
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            try? await Task.sleep(for: tick)
            let vault = holder.peekVault()
            if holder.lockIfIdle(for: interval) {
                await trail.locked(
                    vault, by: .service, detail: "after \(interval.components.seconds) s without a request")
                logger.notice("vault locked after idle time")
            }
        }
    }
}
