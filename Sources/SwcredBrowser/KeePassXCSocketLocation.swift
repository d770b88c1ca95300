/// Where KeePassXC 2.7.4 listens for its proxy, and so where `keepassxc-proxy` (Debian's
/// `keepassxc` 2.7.4) connects: `BrowserShared::localServerPath()` in
/// `src/browser/BrowserShared.cpp`, on Linux outside Snap and Flatpak.
///
/// - The folder is Qt 5's `QStandardPaths::RuntimeLocation`: `$XDG_RUNTIME_DIR`, or when that is
///   unset or empty `QDir::tempPath() + "/runtime-" + user name` (`$TMPDIR`, else `/tmp`), which
///   Qt creates 0700. Qt returns no folder at all when the one it found is not a directory, is
///   another user's or is not exactly 0700; KeePassXC then uses the path below with an empty
///   prefix, at the file system's root, which fails for anyone but root.
/// - The socket is `<folder>/app/org.keepassxc.KeePassXC/org.keepassxc.KeePassXC.BrowserServer`
///   (a subfolder sandboxes can mount), and `<folder>/org.keepassxc.KeePassXC.BrowserServer` is
///   the legacy path: KeePassXC, and the proxy too, since it calls the same function, removes
///   whatever is there and puts a symbolic link to the socket in its place.
/// - The proxy speaks unframed JSON on the socket: it writes each message from the browser as
///   its bytes alone, and forwards whatever one read returns as one message to the browser. Two
///   replies written back to back can reach the browser as one unparseable message, so a
///   listener writes one message per write and lets one go before the next.
/// - Both ends set the socket's send buffer to 1 MiB (`NATIVEMSG_MAX_LENGTH`).
public struct KeePassXCSocketLocation: Equatable, Sendable {
    /// The name of the socket file.
    public static let socketName = "org.keepassxc.KeePassXC.BrowserServer"

    /// The runtime folder the paths are in.
    public let runtimeFolder: String
    /// Whether `runtimeFolder` is Qt's fallback because `XDG_RUNTIME_DIR` is not set.
    public let isFallback: Bool

    /// The socket the proxy connects to.
    public var socketPath: String { runtimeFolder + "/app/org.keepassxc.KeePassXC/" + Self.socketName }
    /// The legacy path, a symbolic link to ``socketPath`` where KeePassXC or its proxy ran.
    public var legacyPath: String { runtimeFolder + "/" + Self.socketName }

    /// The location for a process with `environment` run by the user named `userName`.
    public init(environment: [String: String], userName: String) {
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
            runtimeFolder = Self.cleaned(runtime)
            isFallback = false
        } else {
            // QDir::tempPath(): $TMPDIR cleaned, else /tmp.
            let temporary = environment["TMPDIR"].flatMap { $0.isEmpty ? nil : Self.cleaned($0) } ?? "/tmp"
            runtimeFolder = temporary + "/runtime-" + userName
            isFallback = true
        }
    }

    /// A path without repeated or trailing slashes, as `QDir::cleanPath` leaves it for the
    /// absolute paths that occur here.
    static func cleaned(_ path: String) -> String {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true).filter { $0 != "." }
        let joined = parts.joined(separator: "/")
        return path.hasPrefix("/") ? "/" + joined : joined
    }
}
