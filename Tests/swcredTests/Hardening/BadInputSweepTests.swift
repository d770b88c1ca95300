import Foundation
import Testing

@testable import TestSupport

/// Every command, fed empty, huge, non-UTF-8, control-character and option-like input, exits
/// with its documented code and a short, clean message on stderr: never a crash, a signal or a
/// Swift runtime trap.
@Suite("bad input sweep over the CLI")
struct BadInputSweepTests {
    static let app = "ABCDE12345.com.example.app"

    /// One argument as long as Linux allows (MAX_ARG_STRLEN is 128 KiB, terminator included).
    static let hugeArgument = String(repeating: "a", count: 131_000)
    /// Control characters that would move the cursor or recolour a terminal if echoed raw.
    static let controlArgument = "a\u{1B}[31m\u{07}\u{08}\r\u{9B}\u{202E}.example"

    /// One run of the binary and the status it must end with.
    struct Case: Sendable, CustomStringConvertible {
        var arguments: [String]
        var status: Int32
        var stdin: Data? = nil
        /// Run through bash so that `$'\xff'` in `arguments` reaches the binary as raw bytes.
        var rawBytes = false

        var description: String {
            let shown = arguments.map { $0.count > 60 ? "\($0.prefix(20))…(\($0.count) chars)" : $0 }
            return "swcred " + shown.joined(separator: " ")
        }
    }

    /// A vault with one registered app (no network), shared by the cases of one test.
    final class Setup: Sendable {
        let directory: TemporaryDirectory
        let environment: [String: String]

        init() throws {
            directory = try TemporaryDirectory()
            environment = [
                "SWCRED_VAULT": directory.path("vault.sqlite"), "SWCRED_PASSPHRASE": "sweep passphrase for bad inputs",
            ]
            for arguments in [
                ["init", "--kdf", "interactive"],
                ["app", "add", BadInputSweepTests.app, "--domain", "webcredentials:shop.example"],
            ] {
                let result = try SwcredProcess.run(arguments, environment: environment)
                guard result.status == 0 else { throw FixtureError(message: "setup failed: \(result.stderr)") }
            }
        }

        /// Writes `bytes` to a file in the setup's directory and returns its path.
        func file(_ name: String, _ bytes: Data) throws -> String {
            let path = directory.path(name)
            // 0600: swcred refuses passphrase and key files that others can read.
            guard FileManager.default.createFile(atPath: path, contents: bytes, attributes: [.posixPermissions: 0o600])
            else { throw CocoaError(.fileWriteUnknown) }
            return path
        }
    }

    /// Runs every case, a few at a time, and checks each outcome.
    static func sweep(_ cases: [Case], setup: Setup) async throws {
        try await withThrowingTaskGroup(of: (Case, SwcredProcess.Result).self) { group in
            var pending = cases[...]
            func startNext() {
                guard let next = pending.popFirst() else { return }
                group.addTask {
                    if next.rawBytes {
                        let script = "exec \"$0\" " + next.arguments.joined(separator: " ")
                        let result = try SwcredProcess.run(
                            ["-c", script, SwcredProcess.executableURL.path], environment: setup.environment,
                            stdin: next.stdin, executable: URL(fileURLWithPath: "/bin/bash"))
                        return (next, result)
                    }
                    return (
                        next, try SwcredProcess.run(next.arguments, environment: setup.environment, stdin: next.stdin)
                    )
                }
            }
            for _ in 0..<4 { startNext() }
            while let (finished, result) = try await group.next() {
                check(finished, result)
                startNext()
            }
        }
    }

    /// The exit status is the documented one, and stderr is short, printable and free of traps.
    static func check(_ run: Case, _ result: SwcredProcess.Result) {
        let stderr = result.stderr
        #expect(result.status == run.status, "\(run): exited \(result.status), stderr: \(stderr.prefix(400))")
        for trap in ["Fatal error", "Stack dump", "Backtrace", "Illegal instruction", "Segmentation fault"] {
            #expect(!stderr.contains(trap), "\(run): \(trap) on stderr")
        }
        let unsafe = stderr.unicodeScalars.filter {
            ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value)
        }
        #expect(unsafe.isEmpty, "\(run): raw control characters on stderr")
        if run.status != 0 {
            #expect(!stderr.isEmpty, "\(run): failed without a message")
            #expect(stderr.utf8.count < 2_500, "\(run): \(stderr.utf8.count) bytes on stderr")
            let lines = stderr.split(separator: "\n")
            #expect(
                lines.contains { $0.hasPrefix("swcred: error:") || $0.hasPrefix("Error:") },
                "\(run): no error line in \(stderr.prefix(400))")
        }
    }

    @Test("empty, huge and control-character arguments to every command")
    func arguments() async throws {
        let setup = try Setup()
        var cases: [Case] = []
        for value in ["", Self.hugeArgument, Self.controlArgument] {
            cases += [
                Case(arguments: ["app", "add", value, "--domain", "webcredentials:shop.example"], status: 2),
                Case(arguments: ["app", "add", "ABCDE12345.com.example.other", "--domain", value], status: 2),
                Case(
                    arguments: ["app", "add", "ABCDE12345.com.example.other", "--domain", "webcredentials:" + value],
                    status: 2),
                Case(arguments: ["app", "add", "ABCDE12345.com.example.other", "--entitlements", value], status: 2),
                Case(arguments: ["app", "show", value], status: 2),
                Case(arguments: ["app", "remove", value], status: 2),
                Case(arguments: ["verify", value, "--offline"], status: 2),
                Case(arguments: ["verify", Self.app, "--domain", value, "--offline"], status: 2),
                Case(arguments: ["request", "--app", value, "--domain", "shop.example", "--offline"], status: 2),
                Case(arguments: ["request", "--app", Self.app, "--domain", value, "--offline"], status: 2),
                Case(
                    arguments: [
                        "add", "--app", value, "--domain", "shop.example", "--account", "a", "--generate", "--offline",
                    ], status: 2),
                Case(
                    arguments: [
                        "add", "--app", Self.app, "--domain", value, "--account", "a", "--generate", "--offline",
                    ], status: 2),
                Case(
                    arguments: ["delete", "--app", Self.app, "--domain", value, "--account", "a", "--offline"],
                    status: 2),
                Case(arguments: ["never-save", value], status: 2),
                Case(arguments: ["rules", "show", value], status: 2),
                Case(arguments: ["aasa", "check", value, "--offline"], status: 2),
                Case(arguments: ["aasa", "check", "shop.example", "--offline", "--app", value], status: 2),
                Case(arguments: ["aasa", "check", "shop.example", "--connect-to", value], status: 2),
                Case(arguments: ["aasa", "check", "shop.example", "--ca-file", value], status: 2),
                Case(arguments: ["generate", "--count", value], status: 2),
                Case(arguments: ["generate", "--style", value], status: 2),
                Case(arguments: ["init", "--kdf", value], status: 2),
                Case(arguments: ["status", "--verify", "--passphrase-file", value], status: 2),
                Case(arguments: ["status", "--verify", "--key-file", value], status: 2),
                // Unknown rules are warnings, not errors, unless --strict.
                Case(arguments: ["rules", "parse", value], status: 0),
                Case(arguments: ["generate", "--rules", value], status: 0),
            ]
            if !value.isEmpty {
                cases.append(Case(arguments: ["rules", "parse", "--strict", value], status: 2))
            }
        }
        try await Self.sweep(cases, setup: setup)
    }

    @Test("option-like values are never taken for options, nor the reverse")
    func optionInjection() async throws {
        let setup = try Setup()
        try await Self.sweep(
            [
                Case(arguments: ["--vault=", "status"], status: 2),
                Case(arguments: ["status", "--vault="], status: 2),
                Case(arguments: ["status", "--vault", ""], status: 2),
                Case(arguments: ["app", "show", "--", "--json"], status: 2),
                Case(arguments: ["app", "add", "--", "--domain", "webcredentials:shop.example"], status: 2),
                Case(arguments: ["app", "add", "ABCDE12345.com.example.other", "--domain", "--offline"], status: 2),
                Case(
                    arguments: ["app", "add", "ABCDE12345.com.example.other", "--domain", "webcredentials:--x"],
                    status: 2),
                Case(arguments: ["verify", Self.app, "--domain", "-h", "--offline"], status: 2),
                Case(arguments: ["rules", "show", "--", "-h"], status: 2),
                Case(arguments: ["rules", "parse", "--strict", "--", "--x"], status: 2),
                Case(arguments: ["aasa", "check", "--offline", "--", "-h"], status: 2),
                Case(arguments: ["aasa", "check", "--offline", "--", "--json"], status: 2),
                Case(arguments: ["never-save", "--", "--clear"], status: 2),
                Case(arguments: ["request", "--app", "--domain", "shop.example"], status: 2),
                Case(arguments: ["request", "--app", Self.app, "--domain", "--account", "x", "--offline"], status: 2),
                Case(
                    arguments: [
                        "add", "--app", Self.app, "--domain", "shop.example", "--account", "--yes", "--generate",
                    ], status: 2),
                Case(
                    arguments: ["delete", "--app", Self.app, "--domain", "shop.example", "--account", "--yes"],
                    status: 2),
                Case(arguments: ["generate", "--count", "-1"], status: 2),
                Case(arguments: ["generate", "--count", "0"], status: 2),
                Case(arguments: ["generate", "--count", "99999999999999999999999"], status: 2),
                Case(arguments: ["aasa", "check", "shop.example", "--timeout", "-1"], status: 2),
                Case(arguments: ["aasa", "check", "shop.example", "--timeout", "nan"], status: 2),
                Case(arguments: ["aasa", "check", "shop.example", "--connect-to", "a:b:c:d"], status: 2),
                Case(arguments: ["no-such-command", "--json"], status: 2),
            ], setup: setup)
    }

    @Test("non-UTF-8 bytes in arguments, files and standard input")
    func invalidUTF8() async throws {
        let setup = try Setup()
        let invalid = Data([0xFF, 0xFE, 0x00, 0xC3, 0x28, 0x80, 0x0A])
        let huge = Data((0..<1_048_576).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) })
        let badFile = try setup.file("invalid.bin", invalid)
        let hugeFile = try setup.file("huge.bin", huge)
        var cases = [
            Case(arguments: ["rules", "show", "$'\\xff\\xfe'"], status: 2, rawBytes: true),
            Case(arguments: ["rules", "parse", "--strict", "$'\\xc3\\x28'"], status: 2, rawBytes: true),
            Case(arguments: ["rules", "parse", "$'\\xc3\\x28'"], status: 0, rawBytes: true),
            Case(arguments: ["app", "show", "$'ABCDE12345.com.\\xff'"], status: 2, rawBytes: true),
            Case(
                arguments: ["app", "add", "ABCDE12345.com.x", "--domain", "$'webcredentials:\\xff.com'"], status: 2,
                rawBytes: true),
            Case(arguments: ["never-save", "$'\\x80.example'"], status: 2, rawBytes: true),
            Case(arguments: ["aasa", "check", "--offline", "$'\\xff'"], status: 2, rawBytes: true),
            Case(
                arguments: ["request", "--app", Self.app, "--domain", "$'shop\\xff.example'", "--offline"], status: 2,
                rawBytes: true),
            Case(arguments: ["generate", "--count", "$'1\\xff'"], status: 2, rawBytes: true),
            Case(arguments: ["$'--vault=\\xff'", "status"], status: 2, rawBytes: true),
        ]
        for path in [badFile, hugeFile] {
            cases += [
                Case(arguments: ["aasa", "check", path], status: 2),
                Case(arguments: ["app", "add", "ABCDE12345.com.example.other", "--entitlements", path], status: 2),
                Case(arguments: ["status", "--verify", "--passphrase-file", path], status: path == badFile ? 7 : 2),
                Case(arguments: ["status", "--verify", "--key-file", path], status: 2),
            ]
        }
        // Invalid UTF-8 is read, then refused offline; a megabyte is refused as too long first.
        for (input, status) in [(invalid, Int32(10)), (huge, 2)] {
            cases.append(
                Case(
                    arguments: [
                        "add", "--app", Self.app, "--domain", "shop.example", "--account", "a", "--password-stdin",
                        "--offline",
                    ],
                    status: status, stdin: input))
        }
        try await Self.sweep(cases, setup: setup)
    }
}
