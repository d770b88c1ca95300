import Foundation
import SwcredService
import Testing

/// `swcred serve`'s options one at a time (issue 51, item 3): each option changed alone from the
/// defaults changes exactly its own settings of the service's configuration, and every other
/// setting stays at its default; where one option sets two settings (`--timeout`, `--browser`,
/// `--listen`), both and only those. Two values of an option (two ports, two sockets, two users'
/// browser sockets) give two configurations.
@Suite("swcred serve's options, one at a time")
struct ServiceOptionsTests {
    static let environment = ["XDG_RUNTIME_DIR": "/run/user/1000"]

    /// One option changed from the defaults: as typed, as it changes ``ServiceOptions``, and the
    /// settings it must change (by path, see ``ServiceSettingsSnapshot``) with their new values.
    struct Case: Sendable, CustomTestStringConvertible {
        var arguments: [String]
        var change: @Sendable (inout ServiceOptions) -> Void
        var changes: [String: String]
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static func seconds(_ count: Int64) -> String { "\(Duration.seconds(count))" }

    static let cases: [Case] = [
        Case(
            arguments: ["--socket", "/srv/a/one.sock"], change: { $0.socket = "/srv/a/one.sock" },
            changes: ["socketPath": "/srv/a/one.sock"]),
        Case(
            arguments: ["--socket", "/srv/b/two.sock"], change: { $0.socket = "/srv/b/two.sock" },
            changes: ["socketPath": "/srv/b/two.sock"]),
        Case(
            arguments: ["--allow-uid", "1001"], change: { $0.allowedUIDs = [1001] }, changes: ["allowedUIDs": "1001"]),
        Case(
            arguments: ["--allow-uid", "1002", "--allow-uid", "1001", "--allow-uid", "1002"],
            change: { $0.allowedUIDs = [1002, 1001, 1002] },
            changes: ["allowedUIDs": "1001,1002"]),
        Case(
            arguments: ["--lock-after", "15m"], change: { $0.lockAfter = "15m" }, changes: ["lockAfter": seconds(900)]),
        Case(
            arguments: ["--lock-after", "2h"], change: { $0.lockAfter = "2h" }, changes: ["lockAfter": seconds(7200)]),
        Case(
            arguments: ["--consent-timeout", "30s"], change: { $0.consentTimeout = "30s" },
            changes: ["consentTimeout": seconds(30)]),
        Case(
            arguments: ["--reverify-every", "1m"], change: { $0.reverifyEvery = "1m" },
            changes: ["reverifyInterval": seconds(60)]),
        Case(
            arguments: ["--recheck-after", "2d"], change: { $0.recheckAfter = "2d" },
            changes: ["recheckPolicy.successInterval": "\(TimeInterval(172_800))"]),
        Case(
            arguments: ["--listen", "127.0.0.1:8443", "--tls-cert", "/k/a.crt", "--tls-key", "/k/a.key"],
            change: { $0.listenWithTLS("127.0.0.1:8443", cert: "/k/a.crt", key: "/k/a.key") },
            changes: listener(host: "127.0.0.1", port: 8443, cert: "/k/a.crt", key: "/k/a.key")),
        Case(
            arguments: ["--listen", "127.0.0.1:8444", "--tls-cert", "/k/a.crt", "--tls-key", "/k/a.key"],
            change: { $0.listenWithTLS("127.0.0.1:8444", cert: "/k/a.crt", key: "/k/a.key") },
            changes: listener(host: "127.0.0.1", port: 8444, cert: "/k/a.crt", key: "/k/a.key")),
        Case(
            arguments: ["--listen", "[::1]:443", "--tls-cert", "/k/b.crt", "--tls-key", "/k/b.key"],
            change: {
                $0.listenWithTLS("[::1]:443", cert: "/k/b.crt", key: "/k/b.key")
            }, changes: listener(host: "::1", port: 443, cert: "/k/b.crt", key: "/k/b.key")),
        Case(
            arguments: ["--listen", "127.0.0.1:1", "--tls-cert", "/k/a.crt", "--tls-key", "/k/a.key"],
            change: { $0.listenWithTLS("127.0.0.1:1", cert: "/k/a.crt", key: "/k/a.key") },
            changes: listener(host: "127.0.0.1", port: 1, cert: "/k/a.crt", key: "/k/a.key")),
        Case(
            arguments: ["--listen", "127.0.0.1:65535", "--tls-cert", "/k/a.crt", "--tls-key", "/k/a.key"],
            change: { $0.listenWithTLS("127.0.0.1:65535", cert: "/k/a.crt", key: "/k/a.key") },
            changes: listener(host: "127.0.0.1", port: 65535, cert: "/k/a.crt", key: "/k/a.key")),
        Case(
            arguments: ["--metrics-without-token"], change: { $0.metricsWithoutToken = true },
            changes: ["metricsWithoutToken": "true"]),
        Case(
            arguments: ["--browser"], change: { $0.browser = true },
            changes: [
                "browserSocketPath": "/run/user/1000/app/org.keepassxc.KeePassXC/org.keepassxc.KeePassXC.BrowserServer",
                "browserLegacyLinkPath": "/run/user/1000/org.keepassxc.KeePassXC.BrowserServer",
            ]),
        Case(arguments: ["--offline"], change: { $0.offline = true }, changes: ["network.offline": "true"]),
        Case(
            arguments: ["--ca-file", "/etc/extra.pem"], change: { $0.caFile = "/etc/extra.pem" },
            changes: ["network.caFile": "/etc/extra.pem"]),
        Case(
            arguments: ["--connect-to", "shop.example:443:127.0.0.1:8443", "--connect-to", "login.example::[::1]:"],
            change: {
                $0.connectTo = ["shop.example:443:127.0.0.1:8443", "login.example::[::1]:"]
            }, changes: ["network.connectTo": "[shop.example:443:127.0.0.1:8443, login.example::[::1]:]"]),
        Case(
            arguments: ["--timeout", "5"], change: { $0.timeout = 5 },
            changes: ["network.totalTimeout": seconds(5), "network.connectTimeout": seconds(5)]),
        Case(
            arguments: ["--timeout", "20"], change: { $0.timeout = 20 },
            changes: ["network.totalTimeout": seconds(20)]),
        Case(arguments: ["--body-timeout", "3"], change: { $0.bodyTimeout = 3 }, changes: ["bodyTimeout": seconds(3)]),
        Case(
            arguments: ["--idle-timeout", "600"], change: { $0.idleTimeout = 600 },
            changes: ["idleTimeout": seconds(600)]),
        Case(
            arguments: ["--busy-timeout", "20"], change: { $0.busyTimeout = 20 },
            changes: ["vault.busyTimeout": "\(TimeInterval(20))"]),
        Case(
            arguments: ["--shutdown-grace", "2"], change: { $0.shutdownGrace = 2 },
            changes: ["shutdownGrace": seconds(2)]),
    ]

    /// The settings `--listen` with its certificate and key sets: the listener's four.
    static func listener(host: String, port: Int, cert: String, key: String) -> [String: String] {
        [
            "tcpListener": "absent", "tcpListener.host": host, "tcpListener.port": "\(port)",
            "tcpListener.certificatePath": cert, "tcpListener.keyPath": key,
        ]
    }

    static func configuration(
        _ options: ServiceOptions, environment: [String: String] = environment, userName: String = "alice"
    ) throws -> ServiceConfiguration {
        try options.configuration(environment: environment, userName: userName)
    }

    @Test("the defaults: the documented values, no listener, no browser, never locked by time")
    func defaults() throws {
        let settings = ServiceSettingsSnapshot.settings(of: try Self.configuration(.defaults))
        let expected = [
            "socketPath": "/run/user/1000/swcred/swcred.sock", "allowedUIDs": "", "lockAfter": "nil",
            "tcpListener": "nil", "browserSocketPath": "nil", "browserLegacyLinkPath": "nil",
            "metricsWithoutToken": "false", "network.offline": "false", "network.caFile": "nil",
            "network.connectTo": "[]", "network.connectTimeout": Self.seconds(10),
            "network.totalTimeout": Self.seconds(30), "bodyTimeout": Self.seconds(10),
            "idleTimeout": Self.seconds(60), "consentTimeout": Self.seconds(60),
            "shutdownGrace": Self.seconds(10), "reverifyInterval": Self.seconds(300),
            "recheckPolicy.successInterval": "\(TimeInterval(432_000))", "vault.busyTimeout": "\(TimeInterval(10))",
            "vault.followsKeyChanges": "false",
        ]
        for (path, value) in expected {
            #expect(settings[path] == value, "\(path)")
        }
    }

    @Test("one option changed alone changes its own settings and no other", arguments: cases)
    func oneAtATime(_ option: Case) throws {
        var options = ServiceOptions.defaults
        option.change(&options)
        let changes = ServiceSettingsSnapshot.changes(
            from: try Self.configuration(.defaults), to: try Self.configuration(options))
        #expect(changes == option.changes)
    }

    @Test("two values of one option give two configurations: sockets, ports, users' browser sockets")
    func twoValuesKeptApart() throws {
        var one = ServiceOptions.defaults
        var two = ServiceOptions.defaults
        one.listenWithTLS("127.0.0.1:8443", cert: "/k/a.crt", key: "/k/a.key")
        two.listenWithTLS("127.0.0.1:8444", cert: "/k/a.crt", key: "/k/a.key")
        #expect(try Self.configuration(one).tcpListener?.port == 8443)
        #expect(try Self.configuration(two).tcpListener?.port == 8444)

        let runtimeA = try Self.configuration(.defaults, environment: ["XDG_RUNTIME_DIR": "/run/user/1000"])
        let runtimeB = try Self.configuration(.defaults, environment: ["XDG_RUNTIME_DIR": "/run/user/1001"])
        #expect(runtimeA.socketPath == "/run/user/1000/swcred/swcred.sock")
        #expect(runtimeB.socketPath == "/run/user/1001/swcred/swcred.sock")

        var browser = ServiceOptions.defaults
        browser.browser = true
        let alice = try Self.configuration(browser, environment: [:], userName: "alice")
        let bob = try Self.configuration(browser, environment: [:], userName: "bob")
        #expect(
            alice.browserSocketPath
                == "/tmp/runtime-alice/app/org.keepassxc.KeePassXC/org.keepassxc.KeePassXC.BrowserServer")
        #expect(
            bob.browserSocketPath
                == "/tmp/runtime-bob/app/org.keepassxc.KeePassXC/org.keepassxc.KeePassXC.BrowserServer")
        #expect(alice.browserLegacyLinkPath == "/tmp/runtime-alice/org.keepassxc.KeePassXC.BrowserServer")
    }

    @Test("--socket wins over XDG_RUNTIME_DIR; SWCRED_BROWSER_SOCKET replaces KeePassXC's socket and its link")
    func environmentOnlyForDefaults() throws {
        var socket = ServiceOptions.defaults
        socket.socket = "/srv/a/one.sock"
        #expect(
            try Self.configuration(socket, environment: ["XDG_RUNTIME_DIR": "/run/user/1001"]).socketPath
                == "/srv/a/one.sock")

        var browser = ServiceOptions.defaults
        browser.browser = true
        let chosen = try Self.configuration(
            browser, environment: ["XDG_RUNTIME_DIR": "/run/user/1000", "SWCRED_BROWSER_SOCKET": "/srv/b/browser.sock"])
        #expect(chosen.browserSocketPath == "/srv/b/browser.sock")
        #expect(chosen.browserLegacyLinkPath == nil)
        let without = try Self.configuration(
            .defaults,
            environment: ["XDG_RUNTIME_DIR": "/run/user/1000", "SWCRED_BROWSER_SOCKET": "/srv/b/browser.sock"])
        #expect(without.browserSocketPath == nil, "SWCRED_BROWSER_SOCKET serves no browser without --browser")
    }
}

extension ServiceOptions {
    /// `--listen address --tls-cert cert --tls-key key`.
    mutating func listenWithTLS(_ address: String, cert: String = "/k/a.crt", key: String = "/k/a.key") {
        listen = address
        tlsCert = cert
        tlsKey = key
    }
}
