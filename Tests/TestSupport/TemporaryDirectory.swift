import Foundation

/// A fresh directory under the system temporary directory, removed when the value is released.
public final class TemporaryDirectory: Sendable {
    /// The directory's location.
    public let url: URL

    /// Creates a new, empty, private (0700) directory.
    public init(prefix: String = "swcred-test") throws {
        let base = URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
        url = base.appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(
            at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    /// A new private directory `/tmp/swr-XXXXXX` to serve as a user's `XDG_RUNTIME_DIR`: short, so
    /// that KeePassXC's socket path under it (71 more bytes) fits a Unix socket address.
    public static func runtime() throws -> TemporaryDirectory {
        var template = Array("/tmp/swr-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
        return TemporaryDirectory(url: URL(fileURLWithPath: String(cString: made), isDirectory: true))
    }

    private init(url: URL) {
        self.url = url
    }

    /// A path inside the directory.
    public func path(_ name: String) -> String {
        url.appendingPathComponent(name).path
    }

    /// Writes `contents` to a new file `name` readable by its owner only (0600), as swcred
    /// requires of passphrase and key files, and returns its path.
    @discardableResult
    public func writePrivateFile(_ name: String, _ contents: String) throws -> String {
        let file = path(name)
        guard
            FileManager.default.createFile(
                atPath: file, contents: Data(contents.utf8), attributes: [.posixPermissions: 0o600])
        else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file]) }
        return file
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}
