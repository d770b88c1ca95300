import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `swcred serve --browser` end to end with a KeePassXC-Browser client nobody here wrote
/// (keepassxc-browser-api from PyPI, driven by Tests/Browser/kpxc_client.py): the owner approves
/// the association in the consent routes, the client gets a site's logins, saves one, generates a
/// password and gets a TOTP code pyotp agrees with; the app approved for that site then gets the
/// password the browser saved; after `swcred browser revoke` the client gets nothing.
@Suite("swcred serve --browser: the shared loop with a client from PyPI", .serialized)
struct ServiceBrowserTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let python = root.appendingPathComponent(".build-venv/browser/bin/python").path
    static let otpauth = "otpauth://totp/Shop:alice?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&issuer=Shop"

    @Test("associate with the owner's approval, logins, a save the app then gets, TOTP, and refusal after revoke")
    func sharedLoop() async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.python) else {
            throw FixtureError(message: "the browser tests' Python is missing (\(Self.python)): run Scripts/bootstrap")
        }
        try await ServiceFixture.with { fixture in
            let csv =
                "Title,URL,Username,Password,Notes,OTPAuth\nShop,https://shop.example/,alice,Pw-alice-1,,\(Self.otpauth)\n"
            let file = try fixture.gated.directory.writePrivateFile("import.csv", csv)
            try fixture.gated.expect(["import", file, "--format", "apple-csv", "--yes"], status: 0)
            let socket = fixture.gated.directory.path("browser/kpxc.sock")
            try fixture.start(["--browser"], environment: ["SWCRED_BROWSER_SOCKET": socket])

            let client = Process()
            client.executableURL = URL(fileURLWithPath: Self.python)
            client.arguments = [
                Self.root.appendingPathComponent("Tests/Browser/kpxc_client.py").path, "--socket", socket,
                "--url", "https://shop.example/login", "--login", "alice", "--password", "Pw-alice-1",
                "--association", "Test Firefox", "--totp-login", "alice", "--totp-uri", Self.otpauth,
                "--new-url", "https://shop.example/signup", "--new-login", "grace", "--new-password",
                "Pw-grace-from-the-browser", "--then-revoked",
            ]
            let input = Pipe()
            let output = Pipe()
            let errors = Pipe()
            client.standardInput = input
            client.standardOutput = output
            client.standardError = errors
            try client.run()
            defer { if client.isRunning { client.terminate() } }

            // The owner approves and names the browser, after checking its fingerprint.
            let session = try fixture.ownerSession()
            let next = try fixture.call("GET", "/v1/consent/next?wait=30", token: session)
            guard next.status == 200 else {
                client.terminate()
                client.waitUntilExit()
                let problems = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                Issue.record("no association request: client: \(problems)\nservice: \(try fixture.running.log)")
                return
            }
            let request = try #require(next.json as? [String: Any])
            #expect(request["operation"] as? String == "browser-associate")
            #expect((request["fingerprint"] as? String)?.split(separator: " ").count == 8)
            // The program on the other end of the socket, for the owner to check: the Python
            // client, whose parent is this test process.
            let peer = try #require(request["peer"] as? [String: Any], "\(request)")
            #expect(peer["pid"] as? Int == Int(client.processIdentifier))
            let executable = try #require(peer["executable"] as? String)
            #expect((executable as NSString).lastPathComponent.hasPrefix("python3"), "\(executable)")
            #expect((peer["command_line"] as? String)?.contains("kpxc_client.py --socket \(socket)") == true)
            let parents = try #require(peer["parents"] as? [[String: Any]])
            #expect(parents.first?["pid"] as? Int == Int(getpid()), "\(parents)")
            #expect(
                parents.first?["executable"] as? String
                    == (try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")))
            let answered = try fixture.call(
                "POST", "/v1/consent/answer", token: session,
                json: ["id": request["id"] as? String ?? "", "approve": true, "name": "Test Firefox"])
            #expect(answered.status == 200, "\(answered.text)")

            // The client's checks, up to the pause before the revocation.
            let ready = output.fileHandleForReading.readLine()
            #expect(
                ready == "ready",
                "client: \(String(decoding: errors.fileHandleForReading.availableData, as: UTF8.self))")

            // What the browser saved is what the app approved for shop.example gets.
            let token = try fixture.token(["--allow", "request"])
            let released = try fixture.call(
                "POST", "/v1/credentials/request", token: token, json: ["domain": "shop.example", "account": "grace"])
            #expect(released.status == 200, "\(released.text)")
            #expect(released.text.contains("Pw-grace-from-the-browser changed"), "\(released.text)")

            try fixture.gated.expect(["browser", "revoke", "Test Firefox"], status: 0)
            try? input.fileHandleForWriting.write(contentsOf: Data("go\n".utf8))
            client.waitUntilExit()
            let report = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let problems = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(client.terminationStatus == 0, "\(report)\n\(problems)")
            #expect(report.contains("after_revocation"), "\(report)")
            let listed = try fixture.gated.expect(["browser", "list"], status: 0)
            #expect(!listed.stdout.contains("Test Firefox"))
            let audit = try fixture.gated.expect(["audit", "--json"], status: 0)
            #expect(audit.stdout.contains("browser-associate") && audit.stdout.contains("browser:Test Firefox"))
            #expect(audit.stdout.contains("asked by \(executable)"), "\(audit.stdout)")
            #expect(!audit.stdout.contains("kpxc_client.py"), "the command line stays out of the audit log")
            #expect(try !fixture.running.log.contains("kpxc_client.py"), "and out of the service's log")
        }
    }
}

extension ServiceBrowserTests {
    @Test(
        "swcred consent on a terminal shows the program asking for an association and its parents, then the fingerprint"
    )
    func consentShowsPeer() async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.python) else {
            throw FixtureError(message: "the browser tests' Python is missing (\(Self.python)): run Scripts/bootstrap")
        }
        try await ServiceFixture.with { fixture in
            let socket = fixture.gated.directory.path("browser/kpxc.sock")
            try fixture.start(["--browser"], environment: ["SWCRED_BROWSER_SOCKET": socket])
            let client = try Self.startAssociating(at: socket, stderr: FileHandle.nullDevice)
            defer {
                kill(client.processIdentifier, SIGKILL)
                client.waitUntilExit()
            }
            let terminal = try TerminalSession(
                executable: SwcredProcess.executableURL.path,
                arguments: ["consent", "--once", "--socket", fixture.socketPath], environment: fixture.gated.environment
            )
            // Long chains wrap on the terminal, and a space that falls at the end of a screen line is
            // not kept: the screen's lines joined, compared without white space.
            let shown = try terminal.waitFor("Approve it? [y/N]").replacingOccurrences(of: "\n", with: "")
            func compact(_ text: String) -> String { text.filter { !$0.isWhitespace } }
            let python = try FileManager.default.destinationOfSymbolicLink(
                atPath: "/proc/\(client.processIdentifier)/exe")
            let ownExecutable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
            let chain = "\(ownExecutable) (pid \(getpid())) → \(python) (pid \(client.processIdentifier))"
            let from = try #require(compact(shown).range(of: "Checkthattheprogramaskingisyourbrowser:from"), "\(shown)")
            let fingerprint = try #require(compact(shown).range(of: "Itskeyfingerprint"), "\(shown)")
            #expect(compact(shown).contains(compact(chain)), "\(shown)")
            #expect(compact(shown).contains(compact("command line: \(Self.python) -c ")), "\(shown)")
            #expect(from.upperBound < fingerprint.lowerBound, "the program is shown before the fingerprint")
            try terminal.type("n", "Enter")
            #expect(try terminal.exitStatus() == 0)
            #expect(try terminal.screen().contains("swcred: declined"))
        }
    }

    @Test("--browser where something already listens (a running KeePassXC): exit 11, naming the path")
    func keePassXCRunning() async throws {
        try await ServiceFixture.with { fixture in
            let socket = fixture.gated.directory.path("browser/kpxc.sock")
            try FileManager.default.createDirectory(
                atPath: (socket as NSString).deletingLastPathComponent, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
            // A listener of someone else's at the path, as KeePassXC's would be.
            let other = Process()
            other.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            other.arguments = [
                "-c",
                "import socket, sys, time; s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(); print('up', flush=True); time.sleep(60)",
                socket,
            ]
            let ready = Pipe()
            other.standardOutput = ready
            try other.run()
            defer { other.terminate() }
            _ = ready.fileHandleForReading.readLine()

            var environment = fixture.gated.environment
            environment["SWCRED_BROWSER_SOCKET"] = socket
            let refused = try ServiceProcess.launch(
                socketPath: fixture.socketPath, arguments: fixture.gated.networkArguments + ["--browser"],
                environment: environment, logPath: fixture.gated.directory.path("refused.log"))
            refused.waitUntilExit()
            #expect(refused.terminationStatus == 11)
            let log = try String(contentsOfFile: fixture.gated.directory.path("refused.log"), encoding: .utf8)
            #expect(log.contains("something already listens on \(socket)"), "\(log)")
            #expect(!FileManager.default.fileExists(atPath: fixture.socketPath), "the service did not start")
        }
    }
}

extension ServiceBrowserTests {
    @Test("a browser that asks to associate and goes away: its request is withdrawn, nothing is stored")
    func associationWithdrawn() async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.python) else {
            throw FixtureError(message: "the browser tests' Python is missing (\(Self.python)): run Scripts/bootstrap")
        }
        try await ServiceFixture.with { fixture in
            let socket = fixture.gated.directory.path("browser/kpxc.sock")
            try fixture.start(["--browser"], environment: ["SWCRED_BROWSER_SOCKET": socket])
            let client = try Self.startAssociating(at: socket)
            let session = try fixture.ownerSession()
            let asked = try fixture.call("GET", "/v1/consent/next?wait=30", token: session)
            #expect(asked.status == 200, "\(asked.text)")
            // The browser goes away while the owner has not answered.
            kill(client.processIdentifier, SIGKILL)
            client.waitUntilExit()
            var withdrawn = false
            for _ in 0..<50 where !withdrawn {
                withdrawn = try fixture.call("GET", "/v1/consent/next", token: session).status == 204
                if !withdrawn { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(withdrawn, "the request of a browser that is gone is still waiting for the owner")
            let listed = try fixture.gated.expect(["browser", "list", "--json"], status: 0)
            let associations = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [Any]
            #expect(associations?.isEmpty == true, "\(listed.stdout)")
        }
    }
}

extension ServiceBrowserTests {
    @Test(
        "the same conversation through Debian's keepassxc-proxy and through swcred browser host, started as a browser starts them",
        arguments: ["keepassxc-proxy", "swcred browser host"])
    func throughTheRelays(relay: String) async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.python) else {
            throw FixtureError(message: "the browser tests' Python is missing (\(Self.python)): run Scripts/bootstrap")
        }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/keepassxc-proxy") else {
            throw FixtureError(message: "keepassxc-proxy is missing: run Scripts/bootstrap")
        }
        try await ServiceFixture.with { fixture in
            let csv =
                "Title,URL,Username,Password,Notes,OTPAuth\nShop,https://shop.example/,alice,Pw-alice-1,,\(Self.otpauth)\n"
            let file = try fixture.gated.directory.writePrivateFile("import.csv", csv)
            try fixture.gated.expect(["import", file, "--format", "apple-csv", "--yes"], status: 0)
            // Both find the socket where KeePassXC's would be, under $XDG_RUNTIME_DIR (0700, ours;
            // short, for the socket path's 107 bytes).
            var template = Array("/tmp/swr-XXXXXX".utf8CString)
            let runtime = try #require(
                template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }.map { String(cString: $0) })
            defer { try? FileManager.default.removeItem(atPath: runtime) }
            try fixture.start(["--browser"], environment: ["XDG_RUNTIME_DIR": runtime])
            let via =
                relay == "keepassxc-proxy"
                ? [
                    "/usr/bin/keepassxc-proxy", fixture.gated.directory.path("manifest.json"),
                    "keepassxc-browser@keepassxc.org",
                ]
                : [SwcredProcess.executableURL.path, "browser", "host"]

            let client = Process()
            client.executableURL = URL(fileURLWithPath: Self.python)
            client.arguments =
                [
                    Self.root.appendingPathComponent("Tests/Browser/kpxc_client.py").path, "--url",
                    "https://shop.example/login", "--login", "alice", "--password", "Pw-alice-1", "--totp-login",
                    "alice",
                    "--totp-uri", Self.otpauth, "--new-url", "https://shop.example/signup", "--new-login", "\(relay)",
                    "--new-password", "Pw-through-the-relay", "--via",
                ] + via
            var environment = ProcessInfo.processInfo.environment
            environment["XDG_RUNTIME_DIR"] = runtime
            client.environment = environment
            let output = Pipe()
            let errors = Pipe()
            client.standardOutput = output
            client.standardError = errors
            try client.run()
            defer { if client.isRunning { client.terminate() } }

            let session = try fixture.ownerSession()
            let next = try fixture.call("GET", "/v1/consent/next?wait=30", token: session)
            guard next.status == 200, let request = next.json as? [String: Any] else {
                client.terminate()
                client.waitUntilExit()
                let problems = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                Issue.record("no association request: client: \(problems)\nservice: \(try fixture.running.log)")
                return
            }
            #expect(request["operation"] as? String == "browser-associate")
            let answered = try fixture.call(
                "POST", "/v1/consent/answer", token: session,
                json: ["id": request["id"] as? String ?? "", "approve": true])
            #expect(answered.status == 200, "\(answered.text)")
            client.waitUntilExit()
            let report = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let problems = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(client.terminationStatus == 0, "\(report)\n\(problems)")

            // The login the browser saved through the relay is what the approved app gets.
            let token = try fixture.token(["--allow", "request"])
            let released = try fixture.call(
                "POST", "/v1/credentials/request", token: token, json: ["domain": "shop.example", "account": relay])
            #expect(
                released.status == 200 && released.text.contains("Pw-through-the-relay changed"), "\(released.text)")
        }
    }
}

extension FileHandle {
    /// One line, without its newline (nil at the end of the stream): what a browser test's
    /// driver printed.
    func readLine() -> String? {
        var bytes: [UInt8] = []
        while true {
            let byte = readData(ofLength: 1)
            guard let first = byte.first else { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
            if first == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(first)
        }
    }
}

extension ServiceBrowserTests {
    /// Issue 49, item 1: the service runs with a 0177 umask, which made KeePassXC's folders 0600;
    /// root enters those anyway, so this is a test as an ordinary uid. `app/` is Flatpak's too: a
    /// mode swcred did not set is never changed.
    @Test(
        "--browser at KeePassXC's path in XDG_RUNTIME_DIR, with and without app/: the folders it makes are 0700 and one already there keeps its mode"
    )
    func runtimeFolders() async throws {
        try await ServiceFixture.with { fixture in
            for existingApp: mode_t? in [nil, 0o755, 0o700] {
                let runtimeDirectory = try TemporaryDirectory.runtime()
                let runtime = runtimeDirectory.url.path
                if let existingApp {
                    #expect(mkdir(runtime + "/app", existingApp) == 0 && chmod(runtime + "/app", existingApp) == 0)
                }
                let folder = runtime + "/app/org.keepassxc.KeePassXC"
                let socket = folder + "/org.keepassxc.KeePassXC.BrowserServer"
                try fixture.start(["--browser"], environment: ["XDG_RUNTIME_DIR": runtime])
                let log = try fixture.running.log
                #expect(Self.mode(runtime + "/app") == (existingApp ?? 0o700), "app/ made 0700 or left as it was")
                #expect(Self.mode(folder) == 0o700)
                #expect(Self.mode(socket) == 0o600)
                #expect(Self.answers(socket), "\(log)")
                #expect(try fixture.running.stop() == 0)
            }
        }
    }

    /// The permission bits of `path`, or nil when it is missing.
    static func mode(_ path: String) -> mode_t? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return info.st_mode & 0o7777
    }

    /// Whether something accepts a connection on the Unix socket at `path`.
    static func answers(_ path: String) -> Bool {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.enumerated() { buffer[index] = byte }
        }
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        } == 0
    }
}

extension ServiceBrowserTests {
    /// Starts keepassxc-browser-api (from the browser tests' Python) asking the listener at `socket`
    /// to associate; it waits there for the owner's answer until it is killed.
    static func startAssociating(at socket: String, stderr: FileHandle? = nil) throws -> Process {
        let client = Process()
        client.executableURL = URL(fileURLWithPath: python)
        client.arguments = [
            "-c",
            """
            import sys
            import keepassxc_browser_api.client as kpxc
            from keepassxc_browser_api import BrowserClient, BrowserConfig
            kpxc._get_keepassxc_socket_path = lambda: sys.argv[1]
            client = BrowserClient(BrowserConfig())
            client.connect()
            client.change_public_keys()
            client.associate()
            """,
            socket,
        ]
        if let stderr { client.standardError = stderr }
        try client.run()
        return client
    }
}
