import Foundation
import Testing

@testable import TestSupport

/// `swcred browser install|uninstall`, run as the built binary with a temporary HOME.
@Suite("swcred browser install and uninstall")
struct BrowserCommandTests {
    let home: TemporaryDirectory

    init() throws {
        home = try TemporaryDirectory(prefix: "swcred-browser")
    }

    private func run(_ arguments: [String]) throws -> SwcredProcess.Result {
        try SwcredProcess.run(["browser"] + arguments, environment: ["HOME": home.url.path])
    }

    private var firefoxManifest: String {
        home.path(".mozilla/native-messaging-hosts/org.keepassxc.keepassxc_browser.json")
    }
    private func chromiumFamilyManifest(_ folder: String) -> String {
        home.path(".config/\(folder)/NativeMessagingHosts/org.keepassxc.keepassxc_browser.json")
    }
    private var hostScript: String { home.path(".local/share/swcred/browser-host") }

    private func manifest(at path: String) throws -> [String: Any] {
        let data = try #require(FileManager.default.contents(atPath: path))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test("Firefox: the manifest names the extension's id and a host script that runs swcred browser host")
    func firefox() throws {
        let result = try run(["install", "--browser", "firefox"])
        #expect(result.status == 0, "\(result.stderr)")
        let written = try manifest(at: firefoxManifest)
        #expect(written["name"] as? String == "org.keepassxc.keepassxc_browser")
        #expect(written["type"] as? String == "stdio")
        #expect(written["allowed_extensions"] as? [String] == ["keepassxc-browser@keepassxc.org"])
        #expect(written["allowed_origins"] == nil)
        #expect(written["path"] as? String == hostScript)
        #expect(FileManager.default.isExecutableFile(atPath: hostScript))
        let script = try String(contentsOfFile: hostScript, encoding: .utf8)
        #expect(script.hasPrefix("#!/bin/sh\n"))
        #expect(script.contains("'\(SwcredProcess.executableURL.resolvingSymlinksInPath().path)' browser host \"$@\""))
        #expect(result.stdout.contains("firefox: wrote \(firefoxManifest)"))
    }

    @Test("Chromium family: allowed_origins are the extension's two ids, in each browser's own folder")
    func chromiumFamily() throws {
        let result = try run(["install", "--browser", "chromium", "--browser", "brave", "--browser", "edge"])
        #expect(result.status == 0, "\(result.stderr)")
        for folder in ["chromium", "BraveSoftware/Brave-Browser", "microsoft-edge"] {
            let written = try manifest(at: chromiumFamilyManifest(folder))
            #expect(
                written["allowed_origins"] as? [String] == [
                    "chrome-extension://pdffhmdngciaglkoonimfcmckehcpafo/",
                    "chrome-extension://oboonakemofpalcgghocfoadofidjkkk/",
                ])
            #expect(written["allowed_extensions"] == nil)
        }
        #expect(!FileManager.default.fileExists(atPath: chromiumFamilyManifest("google-chrome")))
    }

    @Test("a manifest of another program is named and kept, unless --force")
    func foreignManifest() throws {
        try FileManager.default.createDirectory(
            atPath: (firefoxManifest as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let foreign = #"{"name":"org.keepassxc.keepassxc_browser","path":"/usr/bin/keepassxc-proxy","type":"stdio"}"#
        try foreign.write(toFile: firefoxManifest, atomically: true, encoding: .utf8)

        let refused = try run(["install", "--browser", "firefox", "--browser", "chromium"])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("points at /usr/bin/keepassxc-proxy"), "\(refused.stderr)")
        #expect(refused.stderr.contains("--force"))
        #expect(try String(contentsOfFile: firefoxManifest, encoding: .utf8) == foreign)
        #expect(!FileManager.default.fileExists(atPath: chromiumFamilyManifest("chromium")), "all or nothing")

        let kept = try run(["uninstall", "--browser", "firefox"])
        #expect(kept.status == 0)
        #expect(kept.stderr.contains("points at /usr/bin/keepassxc-proxy, not at swcred"))
        #expect(try String(contentsOfFile: firefoxManifest, encoding: .utf8) == foreign)

        let forced = try run(["install", "--browser", "firefox", "--force"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(forced.stdout.contains("which points at /usr/bin/keepassxc-proxy"))
        #expect(try manifest(at: firefoxManifest)["path"] as? String == hostScript)
    }

    @Test("installing twice is fine; uninstall removes swcred's manifests and then its host script")
    func reinstallAndUninstall() throws {
        #expect(try run(["install", "--browser", "firefox", "--browser", "vivaldi"]).status == 0)
        #expect(try run(["install", "--browser", "firefox"]).status == 0)
        let partial = try run(["uninstall", "--browser", "firefox"])
        #expect(partial.status == 0)
        #expect(!FileManager.default.fileExists(atPath: firefoxManifest))
        #expect(FileManager.default.fileExists(atPath: hostScript), "vivaldi still uses it")
        let rest = try run(["uninstall"])
        #expect(rest.stdout.contains("vivaldi: removed"))
        #expect(!FileManager.default.fileExists(atPath: chromiumFamilyManifest("vivaldi")))
        #expect(!FileManager.default.fileExists(atPath: hostScript))
        #expect(try run(["uninstall"]).stdout.contains("no manifest of swcred's was installed"))
    }

    @Test("without --browser: the browsers whose folder exists, or a refusal that says how to name one")
    func detection() throws {
        let none = try run(["install"])
        #expect(none.status == 2)
        #expect(none.stderr.contains("name one with --browser (firefox, chromium, chrome, brave, vivaldi, edge)"))
        try FileManager.default.createDirectory(
            atPath: home.path(".config/chromium"), withIntermediateDirectories: true)
        let detected = try run(["install"])
        #expect(detected.status == 0, "\(detected.stderr)")
        #expect(FileManager.default.fileExists(atPath: chromiumFamilyManifest("chromium")))
        #expect(!FileManager.default.fileExists(atPath: firefoxManifest))
    }

    @Test("an unknown browser is a usage error listing the names; --help teaches the setup")
    func usage() throws {
        let unknown = try run(["install", "--browser", "netscape"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("firefox"))
        let help = try run(["install", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("org.keepassxc.keepassxc_browser.json"))
        #expect(help.stdout.contains("--force"))
    }

    @Test("browser host, started as a browser starts it with no service listening, says to start one and fails")
    func hostWithoutService() throws {
        let result = try SwcredProcess.run(
            ["browser", "host", "chrome-extension://pdffhmdngciaglkoonimfcmckehcpafo/"],
            environment: ["HOME": home.url.path, "XDG_RUNTIME_DIR": home.path("run")])
        #expect(result.status == 7)
        #expect(result.stderr.contains("start `swcred serve --browser`"), "\(result.stderr)")
        #expect(result.stdout.isEmpty, "nothing on standard output, which the browser reads as messages")
    }
}
