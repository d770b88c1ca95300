import Foundation
import SharedWebCredentials
import SwcredBrowser

/// The options of `swcred serve` that shape the service, as typed, and the one place they become
/// a ``ServiceConfiguration``. Each option sets its own setting: `--timeout` alone sets two (a
/// fetch's whole time, and its connection's, at most 10 s), `--browser` the browser socket and
/// its legacy link, `--listen` with `--tls-cert` and `--tls-key` the TLS listener. The defaults
/// are those of `swcred serve --help`.
public struct ServiceOptions: Sendable, Equatable {
    /// `--socket`; nil: ``ServiceSocket/defaultPath(environment:)``.
    public var socket: String?
    /// `--allow-uid`, repeatable.
    public var allowedUIDs: [UInt32] = []
    /// `--lock-after`, a ``DurationText``; nil: never.
    public var lockAfter: String?
    /// `--consent-timeout`, a ``DurationText``.
    public var consentTimeout = "60s"
    /// `--reverify-every`, a ``DurationText``.
    public var reverifyEvery = "5m"
    /// `--recheck-after`, a ``DurationText``.
    public var recheckAfter = "5d"
    /// `--listen HOST:PORT`; only with ``tlsCert`` and ``tlsKey``.
    public var listen: String?
    /// `--tls-cert`, the PEM certificate chain for `--listen`.
    public var tlsCert: String?
    /// `--tls-key`, the PEM private key for `--listen`.
    public var tlsKey: String?
    /// `--metrics-without-token`.
    public var metricsWithoutToken = false
    /// `--browser`.
    public var browser = false
    /// `--offline`.
    public var offline = false
    /// `--ca-file`.
    public var caFile: String?
    /// `--connect-to`, repeatable.
    public var connectTo: [String] = []
    /// `--timeout`, seconds for one AASA fetch, 1 to 600.
    public var timeout = 30
    /// `--body-timeout`, seconds, 1 to 600.
    public var bodyTimeout = 10
    /// `--idle-timeout`, seconds, 1 to 86400.
    public var idleTimeout = 60
    /// `--busy-timeout`, seconds, 1 to 600.
    public var busyTimeout = 10
    /// `--shutdown-grace`, seconds, 1 to 600.
    public var shutdownGrace = 10

    /// The defaults: no option given.
    public init() {}

    /// The options with nothing given: what `swcred serve --help` shows as each default.
    public static let defaults = ServiceOptions()

    /// The service's configuration from these options. `environment` gives the default socket
    /// (`XDG_RUNTIME_DIR`) and, with `--browser`, KeePassXC's socket (`XDG_RUNTIME_DIR`,
    /// `TMPDIR`, `SWCRED_BROWSER_SOCKET`), `userName` the folder KeePassXC falls back to without
    /// `XDG_RUNTIME_DIR`. Reads no file and opens nothing.
    ///
    /// - Throws: `invalidInput` naming the option and its value: a duration that is not one, a
    ///   number of seconds out of its range, `--listen` that is not HOST:PORT or lacks its
    ///   certificate or key, a certificate or key without `--listen`, a bad `--connect-to` rule.
    public func configuration(environment: [String: String], userName: String) throws -> ServiceConfiguration {
        try checkRanges()
        var configuration = ServiceConfiguration(
            socketPath: socket ?? ServiceSocket.defaultPath(environment: environment),
            allowedUIDs: Set(allowedUIDs),
            network: NetworkOptions(
                offline: offline, caFile: caFile, connectTo: try connectTo.map(ConnectToRule.init),
                connectTimeout: .seconds(min(timeout, 10)), totalTimeout: .seconds(timeout)),
            lockAfter: try lockAfter.map { .seconds(try DurationText.seconds($0, option: "--lock-after")) },
            bodyTimeout: .seconds(bodyTimeout), idleTimeout: .seconds(idleTimeout),
            shutdownGrace: .seconds(shutdownGrace),
            consentTimeout: .seconds(try DurationText.seconds(consentTimeout, option: "--consent-timeout")),
            tcpListener: try tcpListener())
        configuration.metricsWithoutToken = metricsWithoutToken
        if browser {
            let location = KeePassXCSocketLocation(environment: environment, userName: userName)
            let chosen = environment["SWCRED_BROWSER_SOCKET"]
            configuration.browserSocketPath = chosen ?? location.socketPath
            configuration.browserLegacyLinkPath = chosen == nil ? location.legacyPath : nil
        }
        configuration.reverifyInterval = .seconds(try DurationText.seconds(reverifyEvery, option: "--reverify-every"))
        configuration.recheckPolicy.successInterval = try DurationText.seconds(recheckAfter, option: "--recheck-after")
        configuration.vault.busyTimeout = TimeInterval(busyTimeout)
        return configuration
    }

    /// Each number of seconds within its range, else an error naming the option and the value.
    private func checkRanges() throws {
        let ranges: [(option: String, value: Int, range: ClosedRange<Int>)] = [
            ("--timeout", timeout, 1...600), ("--body-timeout", bodyTimeout, 1...600),
            ("--idle-timeout", idleTimeout, 1...86400), ("--busy-timeout", busyTimeout, 1...600),
            ("--shutdown-grace", shutdownGrace, 1...600),
        ]
        for (option, value, range) in ranges where !range.contains(value) {
            throw SharedWebCredentialsError(
                .invalidInput,
                "\(option) \(value) is out of range: give \(range.lowerBound) to \(range.upperBound) seconds.")
        }
    }

    /// The TLS listener of `--listen` with its certificate and key, nil without `--listen`.
    private func tcpListener() throws -> ServiceConfiguration.TCPListener? {
        guard let listen else {
            for (option, path) in [("--tls-cert", tlsCert), ("--tls-key", tlsKey)] {
                if let path {
                    throw SharedWebCredentialsError(
                        .invalidInput,
                        "\(option) \"\(path)\" goes with --listen HOST:PORT: give --listen too, or leave it out.")
                }
            }
            return nil
        }
        guard let tlsCert, let tlsKey else {
            throw SharedWebCredentialsError(
                .invalidInput,
                "--listen \"\(listen)\" needs --tls-cert and --tls-key: there is no plaintext TCP.")
        }
        guard let colon = listen.lastIndex(of: ":"), let port = Int(listen[listen.index(after: colon)...]),
            (1...65535).contains(port), colon != listen.startIndex
        else {
            throw SharedWebCredentialsError(
                .invalidInput, "--listen \"\(listen)\" is not HOST:PORT, such as 127.0.0.1:8443")
        }
        var host = String(listen[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return .init(host: host, port: port, certificatePath: tlsCert, keyPath: tlsKey)
    }
}
