import ArgumentParser
import Foundation
import SharedWebCredentials
import SwcredBrowser

extension NativeMessagingBrowser: ExpressibleByArgument {}

/// `swcred browser`: the KeePassXC-Browser bridge's setup.
struct BrowserCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "browser",
        abstract: "Let the KeePassXC-Browser extension use the vault.",
        discussion: """
            The KeePassXC-Browser extension (Firefox, Chromium, Chrome, Brave, Vivaldi, Edge) talks to \
            a password manager through a native-messaging host that the browser starts. `swcred browser \
            install` registers swcred as that host for your user; `swcred browser uninstall` removes the \
            registration again. Neither touches a registration that belongs to another program (such as \
            KeePassXC's keepassxc-proxy) unless you say --force.
            """,
        subcommands: [
            BrowserInstallCommand.self, BrowserUninstallCommand.self, BrowserHostCommand.self, BrowserListCommand.self,
            BrowserRevokeCommand.self, BrowserSetCommand.self,
        ])
}

/// The folders the browser commands work in, from the environment.
struct BrowserFolders {
    var home: String
    var configHome: String
    var dataHome: String

    init() {
        let environment = ProcessInfo.processInfo.environment
        home = environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? NSHomeDirectory()
        // XDG: a relative value is invalid and ignored.
        configHome = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.config"
        dataHome = environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.local/share"
    }

    /// The executable every manifest of swcred names: a two-line shell script that runs
    /// `swcred browser host`.
    ///
    /// Why a script: a manifest's `path` is one executable, started with the browser's own
    /// arguments (Firefox: the manifest's path and the extension's id; Chrome: the extension's
    /// origin), and it cannot carry `browser host`. KeePassXC names a separate program,
    /// keepassxc-proxy; swcred has no separate host binary, so the script adds the subcommand and
    /// execs the swcred that installed it. It sits beside the vault in swcred's data folder.
    var hostScript: String { dataHome + "/swcred/browser-host" }

    func manifestPath(_ browser: NativeMessagingBrowser) -> String {
        browser.manifestPath(home: home, configHome: configHome)
    }
}

/// The browsers named with --browser (repeatable).
struct BrowserChoice: ParsableArguments {
    @Option(
        name: .customLong("browser"),
        help: ArgumentHelp(
            "A browser to set up (repeat for several).",
            discussion:
                "Without it: install sets up every browser whose folder exists for your user; uninstall looks at all.",
            valueName: "name"))
    var browsers: [NativeMessagingBrowser] = []
}

/// Reads a manifest file, or nil when there is none.
private func existingManifest(at path: String) -> [UInt8]? {
    FileManager.default.contents(atPath: path).map { [UInt8]($0) }
}

/// Writes `bytes` to `path` through a temporary file and a rename, so that a browser never reads
/// half a file.
private func writeAtomically(_ bytes: [UInt8], to path: String, permissions: Int) throws {
    let temporary = path + ".swcred-\(getpid()).tmp"
    guard
        FileManager.default.createFile(
            atPath: temporary, contents: Data(bytes), attributes: [.posixPermissions: permissions])
    else {
        throw SharedWebCredentialsError(.internalError, "could not write \(temporary)")
    }
    guard rename(temporary, path) == 0 else {
        let reason = String(cString: strerror(errno))
        try? FileManager.default.removeItem(atPath: temporary)
        throw SharedWebCredentialsError(.internalError, "could not put \(path) in place: \(reason)")
    }
}

/// The shell-quoted form of a path.
private func shellQuoted(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
}

/// `swcred browser install [--browser NAME]... [--force]`.
struct BrowserInstallCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "install",
        abstract: "Register swcred as KeePassXC-Browser's native-messaging host for your user.",
        discussion: """
            Writes org.keepassxc.keepassxc_browser.json into each browser's folder: \
            ~/.mozilla/native-messaging-hosts for Firefox, ~/.config/<browser>/NativeMessagingHosts for \
            the Chromium family (with the extension's Chrome Web Store and Edge ids). The manifest starts \
            $XDG_DATA_HOME/swcred/browser-host, a small script that runs `swcred browser host`.

            A manifest that already points at another program (KeePassXC's keepassxc-proxy, say) is left \
            alone and named, and nothing is written, unless you add --force. Running install again is \
            safe: swcred's own manifests are rewritten.

            Example: swcred browser install --browser firefox
            """)

    @OptionGroup var choice: BrowserChoice

    @Flag(help: "Replace a manifest that points at another program.")
    var force = false

    func run() throws {
        let folders = BrowserFolders()
        var browsers = choice.browsers
        if browsers.isEmpty {
            browsers = NativeMessagingBrowser.allCases.filter {
                FileManager.default.fileExists(
                    atPath: $0.profileFolder(home: folders.home, configHome: folders.configHome))
            }
            guard !browsers.isEmpty else {
                let names = NativeMessagingBrowser.allCases.map(\.rawValue).joined(separator: ", ")
                throw SharedWebCredentialsError(
                    .invalidInput, "no browser has a folder for your user yet; name one with --browser (\(names))")
            }
        }
        // Every conflict first: all or nothing.
        var replaced: [NativeMessagingBrowser: String] = [:]
        var conflicts: [String] = []
        for browser in browsers {
            let path = folders.manifestPath(browser)
            guard let bytes = existingManifest(at: path) else { continue }
            let program = NativeMessagingManifest.program(inManifest: bytes)
            if program == folders.hostScript { continue }
            let named = program.map { "points at \($0)" } ?? "is not a manifest swcred can read"
            if force {
                replaced[browser] = named
            } else {
                conflicts.append("\(path) \(named)")
            }
        }
        guard conflicts.isEmpty else {
            throw SharedWebCredentialsError(
                .invalidInput,
                conflicts.joined(separator: "; ")
                    + "; nothing was written. Uninstall that program's browser integration, or rerun with --force to replace it"
            )
        }
        try writeHostScript(folders)
        for browser in browsers {
            let path = folders.manifestPath(browser)
            try FileManager.default.createDirectory(
                atPath: browser.manifestFolder(home: folders.home, configHome: folders.configHome),
                withIntermediateDirectories: true)
            try writeAtomically(
                NativeMessagingManifest.contents(for: browser, hostPath: folders.hostScript), to: path,
                permissions: 0o644)
            if let previous = replaced[browser] {
                TextOutput.line("\(browser.rawValue): replaced \(path), which \(previous)")
            } else {
                TextOutput.line("\(browser.rawValue): wrote \(path)")
            }
        }
        TextOutput.line("host: \(folders.hostScript) runs swcred browser host")
    }

    private func writeHostScript(_ folders: BrowserFolders) throws {
        let folder = (folders.hostScript as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(
            atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let swcred =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        let script = """
            #!/bin/sh
            # Written by `swcred browser install`: the native-messaging host KeePassXC-Browser starts.
            # Removed by `swcred browser uninstall`.
            exec \(shellQuoted(swcred)) browser host "$@"

            """
        try writeAtomically(Array(script.utf8), to: folders.hostScript, permissions: 0o755)
    }
}

/// `swcred browser uninstall [--browser NAME]...`.
struct BrowserUninstallCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "uninstall",
        abstract: "Remove swcred's native-messaging manifests (only swcred's own).",
        discussion: """
            Removes org.keepassxc.keepassxc_browser.json from each browser's folder when it points at \
            swcred's host, and the host script once no manifest uses it. A manifest of another program \
            is left in place and named.
            """)

    @OptionGroup var choice: BrowserChoice

    func run() throws {
        let folders = BrowserFolders()
        let browsers = choice.browsers.isEmpty ? NativeMessagingBrowser.allCases : choice.browsers
        var removed = 0
        for browser in browsers {
            let path = folders.manifestPath(browser)
            guard let bytes = existingManifest(at: path) else { continue }
            let program = NativeMessagingManifest.program(inManifest: bytes)
            guard program == folders.hostScript else {
                Terminal.printWarning(
                    "left \(path): it points at \(program ?? "a program swcred cannot read"), not at swcred")
                continue
            }
            try FileManager.default.removeItem(atPath: path)
            TextOutput.line("\(browser.rawValue): removed \(path)")
            removed += 1
        }
        let stillUsed = NativeMessagingBrowser.allCases.contains { browser in
            existingManifest(at: folders.manifestPath(browser)).flatMap(NativeMessagingManifest.program(inManifest:))
                == folders.hostScript
        }
        if !stillUsed && FileManager.default.fileExists(atPath: folders.hostScript) {
            try FileManager.default.removeItem(atPath: folders.hostScript)
            TextOutput.line("host: removed \(folders.hostScript)")
        }
        if removed == 0 { TextOutput.line("no manifest of swcred's was installed") }
    }
}
