import Foundation
import SharedWebCredentials
import SwcredService
import Testing

@testable import TestSupport

/// Every option of `swcred serve` given a bad value alone: the error names the option and the
/// value, once, exits 2, and comes before the vault is looked for (a missing vault must not hide
/// a bad option). In `ServiceOptions.configuration` directly, then through the built binary as
/// the ordinary user.
@Suite("swcred serve's bad options, one at a time")
struct ServiceOptionErrorTests {
    /// One bad value and the message it must give.
    struct Case: Sendable, CustomTestStringConvertible {
        var arguments: [String]
        var change: @Sendable (inout ServiceOptions) -> Void
        var message: String
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static func notADuration(_ option: String, _ value: String) -> String {
        "\(option) \"\(value)\" is not a duration: give a positive whole number and a unit s, m, h, d or w"
    }

    static func notHostPort(_ value: String) -> String {
        "--listen \"\(value)\" is not HOST:PORT, such as 127.0.0.1:8443"
    }

    static let tls = ["--tls-cert", "/k/a.crt", "--tls-key", "/k/a.key"]

    /// Each number of seconds: its option, the field it sets, its largest value (the smallest is 1).
    static let numbers: [(option: String, field: WritableKeyPath<ServiceOptions, Int> & Sendable, maximum: Int)] = [
        ("--timeout", \.timeout, 600), ("--body-timeout", \.bodyTimeout, 600), ("--idle-timeout", \.idleTimeout, 86400),
        ("--busy-timeout", \.busyTimeout, 600), ("--shutdown-grace", \.shutdownGrace, 600),
    ]

    /// Each number at 0 and one past its largest value.
    static let outOfRange: [Case] = numbers.flatMap { number in
        [0, number.maximum + 1].map { value in
            Case(
                arguments: [number.option, "\(value)"], change: { $0[keyPath: number.field] = value },
                message: "\(number.option) \(value) is out of range: give 1 to \(number.maximum) seconds.")
        }
    }

    static let cases: [Case] =
        outOfRange + [
            Case(
                arguments: ["--lock-after", "5x"], change: { $0.lockAfter = "5x" },
                message: notADuration("--lock-after", "5x")),
            Case(
                arguments: ["--lock-after", "15"], change: { $0.lockAfter = "15" },
                message: notADuration("--lock-after", "15")),
            Case(
                arguments: ["--consent-timeout", "0s"], change: { $0.consentTimeout = "0s" },
                message: notADuration("--consent-timeout", "0s")),
            Case(
                arguments: ["--reverify-every", "abc"], change: { $0.reverifyEvery = "abc" },
                message: notADuration("--reverify-every", "abc")),
            Case(
                arguments: ["--recheck-after=-1d"], change: { $0.recheckAfter = "-1d" },
                message: notADuration("--recheck-after", "-1d")),
            Case(
                arguments: ["--listen", "nope"] + tls, change: { $0.listenWithTLS("nope") },
                message: notHostPort("nope")),
            Case(
                arguments: ["--listen", "127.0.0.1:0"] + tls, change: { $0.listenWithTLS("127.0.0.1:0") },
                message: notHostPort("127.0.0.1:0")),
            Case(
                arguments: ["--listen", "127.0.0.1:65536"] + tls, change: { $0.listenWithTLS("127.0.0.1:65536") },
                message: notHostPort("127.0.0.1:65536")),
            Case(
                arguments: ["--listen", ":8443"] + tls, change: { $0.listenWithTLS(":8443") },
                message: notHostPort(":8443")),
            Case(
                arguments: ["--listen", "127.0.0.1:8443", "--tls-cert", "/k/a.crt"],
                change: {
                    $0.listen = "127.0.0.1:8443"
                    $0.tlsCert = "/k/a.crt"
                },
                message: "--listen \"127.0.0.1:8443\" needs --tls-cert and --tls-key: there is no plaintext TCP."),
            Case(
                arguments: ["--listen", "127.0.0.1:8443", "--tls-key", "/k/a.key"],
                change: {
                    $0.listen = "127.0.0.1:8443"
                    $0.tlsKey = "/k/a.key"
                },
                message: "--listen \"127.0.0.1:8443\" needs --tls-cert and --tls-key: there is no plaintext TCP."),
            Case(
                arguments: ["--tls-cert", "/k/a.crt"], change: { $0.tlsCert = "/k/a.crt" },
                message: "--tls-cert \"/k/a.crt\" goes with --listen HOST:PORT: give --listen too, or leave it out."),
            Case(
                arguments: ["--tls-key", "/k/a.key"], change: { $0.tlsKey = "/k/a.key" },
                message: "--tls-key \"/k/a.key\" goes with --listen HOST:PORT: give --listen too, or leave it out."),
            Case(
                arguments: ["--connect-to", "a.example:443"], change: { $0.connectTo = ["a.example:443"] },
                message: "invalid --connect-to \"a.example:443\": it has 2 fields, not 4; expected HOST:PORT:ADDR:PORT2"
            ),
        ]

    @Test("each bad value alone is refused as invalidInput, naming the option and the value", arguments: cases)
    func refusedByTheConfiguration(_ bad: Case) throws {
        var options = ServiceOptions.defaults
        bad.change(&options)
        let error = try #require(throws: SharedWebCredentialsError.self) {
            try options.configuration(environment: [:], userName: "alice")
        }
        #expect(error.code == .invalidInput)
        #expect(error.message.hasPrefix(bad.message), "\(error.message)")
    }

    /// The cases that only the parser or `validate()` of the command refuse, with their messages.
    static let parserCases: [(arguments: [String], message: String)] = [
        (["--log-level", "loud"], "--log-level \"loud\" is not one of debug, info, notice, warning, error."),
        (["--log-level", "trace"], "--log-level \"trace\" is not one of debug, info, notice, warning, error."),
        (["--log-level", "critical"], "--log-level \"critical\" is not one of debug, info, notice, warning, error."),
        (["--timeout", "abc"], "The value 'abc' is invalid for '--timeout <SECONDS>'"),
        (["--allow-uid", "abc"], "The value 'abc' is invalid for '--allow-uid <uid>'"),
        (
            ["--passphrase-file", "/k/p", "--key-file", "/k/k"],
            "Give either --passphrase-file or --key-file, not both."
        ),
    ]

    @Test("through the binary: exit 2, the message once, before the missing vault is noticed")
    func refusedByTheBinary() throws {
        let directory = try TemporaryDirectory()
        let missingVault = directory.path("none.sqlite")
        let all = Self.cases.map { ($0.arguments, $0.message) } + Self.parserCases
        for (arguments, message) in all {
            let result = try SwcredProcess.run(
                ["serve", "--vault", missingVault, "--socket", directory.path("run/swcred.sock")] + arguments,
                environment: ["SWCRED_PASSPHRASE": "never used: the options are refused first"])
            let shown = arguments.joined(separator: " ")
            #expect(result.status == 2, "\(shown): \(result.stderr)")
            #expect(result.stderr.components(separatedBy: message).count == 2, "\(shown), once: \(result.stderr)")
            #expect(!result.stderr.contains("No vault"), "\(shown): \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: directory.path("run")), "\(shown) made the socket's folder")
        }
    }
}
