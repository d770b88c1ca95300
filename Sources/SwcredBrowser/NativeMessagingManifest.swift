import Foundation

/// The browsers whose per-user native-messaging folders `swcred browser install` writes to, with
/// the folders KeePassXC 2.7.4 uses on Linux (`src/browser/NativeMessageInstaller.cpp`): Firefox
/// under the home folder, the Chromium family under `$XDG_CONFIG_HOME` (else `~/.config`).
public enum NativeMessagingBrowser: String, Sendable, CaseIterable {
    case firefox
    case chromium
    case chrome
    case brave
    case vivaldi
    case edge

    /// Whether the browser takes Firefox's manifest (`allowed_extensions`) rather than Chrome's
    /// (`allowed_origins`).
    public var isFirefox: Bool { self == .firefox }

    /// The browser's own folder, whose presence says it has been run by this user.
    public func profileFolder(home: String, configHome: String) -> String {
        switch self {
        case .firefox: return home + "/.mozilla"
        case .chromium: return configHome + "/chromium"
        case .chrome: return configHome + "/google-chrome"
        case .brave: return configHome + "/BraveSoftware/Brave-Browser"
        case .vivaldi: return configHome + "/vivaldi"
        case .edge: return configHome + "/microsoft-edge"
        }
    }

    /// The folder the browser reads native-messaging manifests from.
    public func manifestFolder(home: String, configHome: String) -> String {
        switch self {
        case .firefox: return home + "/.mozilla/native-messaging-hosts"
        default: return profileFolder(home: home, configHome: configHome) + "/NativeMessagingHosts"
        }
    }

    /// The manifest's full path.
    public func manifestPath(home: String, configHome: String) -> String {
        manifestFolder(home: home, configHome: configHome) + "/" + NativeMessagingManifest.hostName + ".json"
    }
}

/// The native-messaging host manifest under the name KeePassXC-Browser connects to.
public enum NativeMessagingManifest {
    /// The host name the extension passes to `connectNative` (and the manifest's file name).
    public static let hostName = "org.keepassxc.keepassxc_browser"
    /// Firefox's `allowed_extensions`: the extension's add-on id, as KeePassXC 2.7.4 writes it.
    public static let firefoxExtensions = ["keepassxc-browser@keepassxc.org"]
    /// Chromium's `allowed_origins`: the extension's ids in the Chrome Web Store and in Microsoft
    /// Edge's add-ons store, as KeePassXC 2.7.4 writes them.
    public static let chromiumOrigins = [
        "chrome-extension://pdffhmdngciaglkoonimfcmckehcpafo/",
        "chrome-extension://oboonakemofpalcgghocfoadofidjkkk/",
    ]

    /// The manifest for `browser` whose host is the executable at `hostPath` (absolute: Chrome
    /// and Firefox require it on Linux).
    public static func contents(for browser: NativeMessagingBrowser, hostPath: String) -> [UInt8] {
        var manifest: [String: Any] = [
            "name": hostName, "description": "swcred: KeePassXC-Browser bridge to the shared web credentials vault",
            "path": hostPath, "type": "stdio",
        ]
        if browser.isFirefox {
            manifest["allowed_extensions"] = firefoxExtensions
        } else {
            manifest["allowed_origins"] = chromiumOrigins
        }
        let data = try! JSONSerialization.data(
            withJSONObject: manifest, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        return [UInt8](data) + [UInt8(ascii: "\n")]
    }

    /// The program an existing manifest starts (its `path`), or `nil` when the file is no
    /// manifest (not a JSON object with a string `path`).
    public static func program(inManifest bytes: [UInt8]) -> String? {
        guard let object = try? BrowserJSONObject(parsing: bytes), let path = try? object.optionalString("path") else {
            return nil
        }
        return path
    }
}
