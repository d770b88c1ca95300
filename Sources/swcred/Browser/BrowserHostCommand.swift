import ArgumentParser
import Foundation
import SharedWebCredentials
import SwcredBrowser

/// `swcred browser host`: the native-messaging host the browser starts, relaying to the browser
/// socket of `swcred serve --browser` as `keepassxc-proxy` relays to KeePassXC.
struct BrowserHostCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "host",
        abstract: "The native-messaging host the browser starts; it relays to `swcred serve --browser`.",
        discussion: """
            The KeePassXC-Browser extension starts this through the manifest that `swcred browser \
            install` writes; people do not run it by hand. It reads the browser's messages on standard \
            input (each a 4-byte length in this machine's byte order, then UTF-8 JSON), writes each to \
            the browser socket as plain JSON, and writes each reply back to standard output framed the \
            same way. It ends with status 0 when the browser closes standard input.

            The browser socket is where keepassxc-proxy looks for KeePassXC: \
            $XDG_RUNTIME_DIR/app/org.keepassxc.KeePassXC/org.keepassxc.KeePassXC.BrowserServer (without \
            XDG_RUNTIME_DIR: $TMPDIR/runtime-$USER/…, else /tmp/runtime-$USER/…). Before it sends \
            anything, the host checks that the socket's directory is a real directory that you own and \
            nobody else can write, and that the process listening there runs as you; otherwise it \
            says why and exits with status 7, as when nothing listens there (start `swcred serve \
            --browser`).

            The messages are encrypted end to end between the extension and the vault (crypto_box); \
            the host never sees a password, and writes none to standard error.

            Examples:
              swcred browser install --browser firefox     # the browser then starts the host itself
              swcred browser host --socket /tmp/test/browser.sock < framed-requests
            """
    )

    @Option(
        name: .customLong("socket"),
        help: ArgumentHelp(
            "The browser socket to relay to (default: KeePassXC's path; also SWCRED_BROWSER_SOCKET).",
            valueName: "path"))
    var socket: String?

    /// What the browser passes: Firefox the manifest's path and the extension's id, Chrome the
    /// extension's origin and --parent-window. Not used.
    @Argument(parsing: .allUnrecognized, help: .hidden)
    var browserArguments: [String] = []

    func run() throws {
        let path = socketPath()
        let descriptor: Int32
        do {
            descriptor = try BrowserHostRelay.connect(socketPath: path)
        } catch {
            throw SharedWebCredentialsError(
                .vaultLocked, "swcred browser host cannot reach the vault: \(error); nothing was relayed")
        }
        defer { close(descriptor) }
        let ending: BrowserHostRelay.Ending
        do {
            ending = try BrowserHostRelay.run(socket: descriptor)
        } catch {
            throw SharedWebCredentialsError(.internalError, "swcred browser host stopped relaying: \(error)")
        }
        if ending == .listenerClosed {
            throw SharedWebCredentialsError(
                .vaultLocked, "swcred browser host: the service closed the browser socket \(path) (it stopped)")
        }
    }

    private func socketPath() -> String {
        if let socket { return socket }
        let environment = ProcessInfo.processInfo.environment
        if let path = environment["SWCRED_BROWSER_SOCKET"], !path.isEmpty { return path }
        let userName = getpwuid(getuid()).flatMap { String(validatingCString: $0.pointee.pw_name) } ?? "\(getuid())"
        return KeePassXCSocketLocation(environment: environment, userName: userName).socketPath
    }
}
