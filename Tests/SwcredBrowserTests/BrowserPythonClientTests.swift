import Foundation
import Testing

@testable import SwcredBrowser

/// keepassxc-browser-api (PyPI, pinned in Tests/Browser/requirements.txt), a protocol client
/// nobody here wrote, against the listener over the memory vault: Tests/Browser/kpxc_client.py
/// takes the socket and the expected values as arguments, so that it runs unchanged against
/// `swcred serve --browser`.
@Suite("A KeePassXC-Browser client from PyPI against the listener")
struct BrowserPythonClientTests {
    @Test(
        "keepassxc-browser-api associates, gets logins, sets and updates a login, generates a password, gets a TOTP code pyotp agrees with"
    )
    func keepassxcBrowserAPI() async throws {
        guard FileManager.default.isExecutableFile(atPath: Interop.python) else {
            throw WireFailure("the browser tests' Python is missing (\(Interop.python)): run Scripts/bootstrap")
        }
        let fixture = try ListenerFixture()
        let uri = "otpauth://totp/shop:ada?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=shop"
        await fixture.vault.add(
            .init(
                uuid: "8f3c6a2b9d1e4f5a8b7c6d5e4f3a2b1c", host: "shop.example", login: "ada", password: "correct horse",
                otpauth: uri))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Interop.python)
        process.arguments = [
            Interop.root.appendingPathComponent("Tests/Browser/kpxc_client.py").path,
            "--socket", fixture.socketPath, "--url", "https://shop.example/login", "--login", "ada",
            "--password", "correct horse", "--association", "Firefox on this machine", "--totp-uuid",
            "8f3c6a2b9d1e4f5a8b7c6d5e4f3a2b1c",
            "--totp-uri", uri, "--totp-time", "1111111109", "--min-generated-length", "13",
        ]
        let (output, errors) = (Pipe(), Pipe())
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Off the shared pool, which the listener's engine needs (see offPool).
        let (seen, diagnostics) = try await offPool {
            let seen = output.fileHandleForReading.readDataToEndOfFile()
            let diagnostics = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return (seen, diagnostics)
        }
        #expect(process.terminationStatus == 0, "\(diagnostics)")
        let summary = try #require(object([UInt8](seen)), "\(diagnostics)")
        #expect(summary["totp"] as? String == "081804")
        #expect(summary["association"] as? String == "Firefox on this machine")
        // What the client saved is in the vault, as the vault keeps it.
        let entries = await fixture.vault.entries
        #expect(
            entries.contains {
                $0.host == "signup.example" && $0.login == "grace" && $0.password == "a new password 1 changed"
            })
        let calls = await fixture.vault.calls
        for call in ["associate", "isAssociated", "logins", "setLogin", "generatePassword", "totp"] {
            #expect(calls.contains(call), "\(call)")
        }
        // The association request named the program on the other end of the socket: the Python
        // client, started by this test process, as /proc showed them.
        let peer = try #require(await fixture.vault.lastPeer)
        #expect(peer.pid == process.processIdentifier)
        let executable = try #require(peer.executable)
        #expect(
            executable.hasPrefix("/") && (executable as NSString).lastPathComponent.hasPrefix("python3"),
            "\(executable)")
        #expect(peer.commandLine?.contains("kpxc_client.py --socket \(fixture.socketPath)") == true, "\(peer)")
        let ownExecutable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        #expect(peer.ancestors.first == .init(pid: getpid(), executable: ownExecutable), "\(peer.ancestors)")
        #expect(peer.ancestors.last?.pid == 1 || peer.ancestors.count == BrowserPeerProcess.maximumAncestors)
        #expect(peer.chain.hasSuffix("\(ownExecutable) (pid \(getpid())) → \(executable) (pid \(peer.pid))"))
    }

    @Test("a peer that has exited is described as unreadable, never guessed")
    func exitedPeer() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        try process.run()
        process.waitUntilExit()
        let peer = BrowserPeerProcess(readingPID: process.processIdentifier)
        #expect(
            peer == BrowserPeerProcess(pid: process.processIdentifier, executable: nil, commandLine: nil, ancestors: [])
        )
        #expect(peer.chain == "(executable not readable) (pid \(process.processIdentifier))")
    }

    @Test("a command line is escaped for a terminal, quoted where an argument has a space, and cut")
    func commandLineMadeSafe() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [
            "-c", "import time; print(1, flush=True); time.sleep(30)", "two words\u{1b}[2J", "",
            String(repeating: "x", count: 2000),
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        defer { process.terminate() }
        // Once it prints, its exec is over and /proc holds its arguments.
        _ = output.fileHandleForReading.readData(ofLength: 1)
        let peer = BrowserPeerProcess(readingPID: process.processIdentifier)
        let line = try #require(peer.commandLine)
        #expect(
            line.hasPrefix(
                "/usr/bin/python3 -c 'import time; print(1, flush=True); time.sleep(30)' 'two words\\u{1b}[2J' '' xxx"),
            "\(line)")
        #expect(line.count == BrowserPeerProcess.maximumTextLength && line.hasSuffix("…"))
        #expect(peer.executable?.contains("python3") == true)
    }
}
