import Foundation
import TestSupport
import Testing

/// A real browser on the vault: Debian's Firefox ESR, headless, with Debian's KeePassXC-Browser
/// installed as a temporary add-on through Marionette (Tests/Browser/firefox_fill.py, with
/// marionette-driver from PyPI), and the native-messaging manifest that `swcred browser install
/// --browser firefox` wrote into a temporary HOME. The extension's own options page asks to
/// connect; the owner approves the association in the consent routes; shop.example's login page,
/// served over HTTPS on loopback with a CA the profile trusts, is filled with the vault's
/// credential (a screenshot of it is kept in .build/test-artifacts); a sign-up's new password is
/// saved through the extension's banner; the app approved for shop.example then gets it through
/// the service. Like a user's, everything runs as the test's ordinary uid (Scripts/test), with a HOME
/// and an XDG_RUNTIME_DIR of its own, and no path given to the service or the host.
@Suite("swcred serve --browser: Firefox ESR with KeePassXC-Browser", .serialized)
struct ServiceFirefoxTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let python = root.appendingPathComponent(".build-venv/browser/bin/python").path
    static let firefox = "/usr/bin/firefox-esr"
    static let extensionFolder = "/usr/share/webext/keepassxc-browser"
    static let certutil = "/usr/bin/certutil"
    static let screenshot = root.appendingPathComponent(".build/test-artifacts/firefox-filled.png").path

    /// shop.example's pages: a login form, a sign-up form, and the page both post to.
    static func page(title: String, heading: String, form: String) -> TestRoute {
        let html = """
            <!doctype html><html><head><meta charset="utf-8"><title>\(title)</title></head>
            <body style="font-family: sans-serif"><h1>\(heading)</h1>\(form)</body></html>
            """
        return .respond(
            status: 200, headers: [("Content-Type", "text/html; charset=utf-8")], body: Array(html.utf8))
    }

    static func form(password autocomplete: String, button: String) -> String {
        """
        <form method="post" action="/welcome">
        <p><label>Email <input type="text" id="username" name="username" autocomplete="username"></label></p>
        <p><label>Password <input type="password" id="password" name="password" autocomplete="\(autocomplete)"></label></p>
        <p><button type="submit" id="submit">\(button)</button></p>
        </form>
        """
    }

    static let pages: [String: TestRoute] = [
        "/login": page(
            title: "Shop: sign in", heading: "Sign in to Shop",
            form: form(password: "current-password", button: "Sign in")),
        "/signup": page(
            title: "Shop: sign up", heading: "Create your Shop account",
            form: form(password: "new-password", button: "Sign up")),
        "/welcome": page(title: "Shop", heading: "Welcome to Shop", form: "<p>Signed in.</p>"),
    ]

    @Test("associate from the extension's page, fill the login page, save a sign-up the app then gets")
    func fillAndSave() async throws {
        for (path, what) in [
            (Self.python, "the browser tests' Python"), (Self.firefox, "Firefox ESR (firefox-esr)"),
            (Self.certutil, "certutil (libnss3-tools)"),
        ] where !FileManager.default.isExecutableFile(atPath: path) {
            throw FixtureError(message: "\(what) is missing (\(path)): run Scripts/bootstrap")
        }
        guard FileManager.default.fileExists(atPath: Self.extensionFolder + "/manifest.json") else {
            throw FixtureError(
                message: "KeePassXC-Browser (webext-keepassxc-browser) is missing (\(Self.extensionFolder)): "
                    + "run Scripts/bootstrap")
        }
        let started = ContinuousClock.now
        try await ServiceFixture.with { fixture in
            let csv = "Title,URL,Username,Password,Notes,OTPAuth\nShop,https://shop.example/,alice,Pw-alice-1,,\n"
            let file = try fixture.gated.directory.writePrivateFile("import.csv", csv)
            try fixture.gated.expect(["import", file, "--format", "apple-csv", "--yes"], status: 0)
            // The user's own runtime folder, as a login session has it: the service listens at
            // KeePassXC's path there, where the host Firefox starts finds it.
            let runtime = try TemporaryDirectory.runtime()
            try fixture.start(["--browser"], environment: ["XDG_RUNTIME_DIR": runtime.url.path])

            // shop.example's pages, with a CA of their own that only the browser's profile trusts.
            let ca = try TestCertificateAuthority(name: "swcred Firefox test CA")
            let caFile = try ca.writePEM(into: fixture.gated.directory, name: "pages-ca.pem")
            let pages = try await TestHTTPSServer.start(identity: try ca.issue(for: ["shop.example"])) { request in
                Self.pages[String(request.path.prefix { $0 != "?" })] ?? .status(404)
            }
            defer { Task { try? await pages.stop() } }

            // The manifest, where Firefox looks for it under the browser's HOME.
            let home = fixture.gated.directory.path("home")
            try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
            let installed = try SwcredProcess.run(
                ["browser", "install", "--browser", "firefox"],
                environment: fixture.gated.environment.merging(["HOME": home]) { _, new in new })
            #expect(installed.status == 0, "\(installed.stderr)")
            let manifest = home + "/.mozilla/native-messaging-hosts/org.keepassxc.keepassxc_browser.json"
            let manifestText = try String(contentsOfFile: manifest, encoding: .utf8)
            #expect(manifestText.contains("keepassxc-browser@keepassxc.org"), "\(manifestText)")

            try? FileManager.default.removeItem(atPath: Self.screenshot)
            let driver = Process()
            driver.executableURL = URL(fileURLWithPath: Self.python)
            driver.arguments = [
                Self.root.appendingPathComponent("Tests/Browser/firefox_fill.py").path, "--firefox", Self.firefox,
                "--extension", Self.extensionFolder, "--home", home, "--ca-file", caFile, "--pages-port",
                String(pages.port), "--screenshot", Self.screenshot, "--login", "alice", "--password", "Pw-alice-1",
                "--new-login", "grace", "--new-password", "Pw-grace-from-firefox",
            ]
            driver.environment = [
                "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": home, "XDG_RUNTIME_DIR": runtime.url.path,
            ]
            let output = Pipe()
            let errors = Pipe()
            driver.standardOutput = output
            driver.standardError = errors
            driver.standardInput = FileHandle.nullDevice
            // Firefox's output can be long: read it as it comes, so that the driver never blocks.
            let collected = ErrorText()
            errors.fileHandleForReading.readabilityHandler = { handle in collected.append(handle.availableData) }
            try driver.run()
            defer { if driver.isRunning { driver.terminate() } }
            let lines = output.fileHandleForReading
            func failed(_ step: String) throws -> Never {
                if driver.isRunning { driver.terminate() }
                driver.waitUntilExit()
                let rest = String(decoding: lines.readDataToEndOfFile(), as: UTF8.self)
                throw FixtureError(
                    message: "\(step)\ndriver: \(rest)\n\(collected.text)\nservice: \((try? fixture.running.log) ?? "")"
                )
            }

            // The extension's Connect button sends `associate`: the owner approves and names it.
            guard lines.readLine() == "associating" else { try failed("Firefox never asked to connect") }
            let session = try fixture.ownerSession()
            let next = try fixture.call("GET", "/v1/consent/next?wait=60", token: session)
            guard next.status == 200, let request = next.json as? [String: Any] else {
                try failed("no association request reached the owner: \(next.status) \(next.text)")
            }
            #expect(request["operation"] as? String == "browser-associate")
            #expect((request["fingerprint"] as? String)?.split(separator: " ").count == 8)
            let answered = try fixture.call(
                "POST", "/v1/consent/answer", token: session,
                json: ["id": request["id"] as? String ?? "", "approve": true, "name": "Test Firefox"])
            #expect(answered.status == 200, "\(answered.text)")

            // The extension lists the association under the name the owner gave it.
            let associated = lines.readLine()
            guard associated == "associated Test Firefox" else {
                try failed("the extension did not show the association: \(associated ?? "(end)")")
            }

            // The login page, filled with the vault's credential, and its screenshot.
            guard lines.readLine() == "filled \(Self.screenshot)" else {
                try failed("the login page was not filled")
            }
            let png = try Data(contentsOf: URL(fileURLWithPath: Self.screenshot))
            #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]) && png.count > 1000)
            print("ServiceFirefoxTests: screenshot of the filled login page: \(Self.screenshot)")

            // The sign-up's new password, saved through the extension's banner.
            guard lines.readLine() == "saved" else { try failed("the sign-up was not saved") }
            driver.waitUntilExit()
            errors.fileHandleForReading.readabilityHandler = nil
            #expect(driver.terminationStatus == 0, "\(collected.text)")

            // What Firefox saved is what the app approved for shop.example gets through the service.
            let token = try fixture.token(["--allow", "request"])
            let released = try fixture.call(
                "POST", "/v1/credentials/request", token: token, json: ["domain": "shop.example", "account": "grace"])
            #expect(released.status == 200, "\(released.text)")
            #expect(released.text.contains("Pw-grace-from-firefox"), "\(released.text)")

            let listed = try fixture.gated.expect(["browser", "list"], status: 0)
            #expect(listed.stdout.contains("Test Firefox"))
            let audit = try fixture.gated.expect(["audit", "--json"], status: 0)
            #expect(audit.stdout.contains("browser-associate"))
            #expect(audit.stdout.contains("browser:Test Firefox"))
        }
        print("ServiceFirefoxTests: \(ContinuousClock.now - started) with Firefox")
    }
}

/// Text gathered from a pipe's readability handler, on whichever thread it runs.
private final class ErrorText: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()

    func append(_ chunk: Data) {
        lock.lock()
        data.append(chunk)
        lock.unlock()
    }

    var text: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: data.suffix(8000), as: UTF8.self)
    }
}
