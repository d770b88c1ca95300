import Foundation
import Glibc
import SharedWebCredentialsCore

/// The program on the other end of the browser socket, as `/proc` shows it when an association is
/// asked for: what the owner can check before approving, since the extension shows no
/// fingerprint before it is associated and any process of the owner's uid can ask as a browser.
///
/// Every text is made safe to show (``DisplayText/escaped(_:)``) and cut to
/// ``maximumTextLength``. What `/proc` does not give (the process exited, or it is another uid's,
/// as `init` is) is `nil`, never guessed: not from `comm`, which a process sets for itself.
public struct BrowserPeerProcess: Sendable, Equatable {
    /// One process above the peer: its pid and its executable.
    public struct Ancestor: Sendable, Equatable {
        /// The process id.
        public let pid: Int32
        /// The path `/proc/PID/exe` links to; `nil` when it cannot be read.
        public let executable: String?

        /// An ancestor as given.
        public init(pid: Int32, executable: String?) {
            self.pid = pid
            self.executable = executable
        }
    }

    /// The most ancestors walked; the chain from a browser's native-messaging host up to the
    /// browser is two or three processes.
    public static let maximumAncestors = 8
    /// The most characters kept of an executable's path or a command line.
    public static let maximumTextLength = 512

    /// The peer's process id (`SO_PEERCRED`).
    public let pid: Int32
    /// The path `/proc/PID/exe` links to; `nil` when it cannot be read.
    public let executable: String?
    /// The arguments of `/proc/PID/cmdline`, separated by spaces, an argument with a space, a
    /// quote or nothing in it in single quotes; `nil` when it cannot be read.
    public let commandLine: String?
    /// The parent, its parent, and so on (`/proc/PID/stat`'s ppid), up to pid 1 or
    /// ``maximumAncestors``; it ends early where a parent's `stat` cannot be read.
    public let ancestors: [Ancestor]

    /// A description as given.
    public init(pid: Int32, executable: String?, commandLine: String?, ancestors: [Ancestor]) {
        self.pid = pid
        self.executable = executable
        self.commandLine = commandLine
        self.ancestors = ancestors
    }

    /// Reads process `pid` and its parents from `/proc`.
    public init(readingPID pid: Int32) {
        var ancestors: [Ancestor] = []
        var current = Self.parentPID(of: pid)
        while let parent = current, parent > 0, ancestors.count < Self.maximumAncestors {
            ancestors.append(Ancestor(pid: parent, executable: Self.executable(of: parent)))
            current = parent == 1 ? nil : Self.parentPID(of: parent)
        }
        self.init(
            pid: pid, executable: Self.executable(of: pid), commandLine: Self.commandLine(of: pid),
            ancestors: ancestors)
    }

    /// One line for the owner: the chain from the oldest ancestor down to the peer, such as
    /// `/usr/lib/firefox-esr/firefox-esr (pid 123) → /usr/bin/swcred (pid 456)`.
    public var chain: String {
        (ancestors.reversed().map { ($0.executable, $0.pid) } + [(executable, pid)])
            .map { "\($0.0 ?? "(executable not readable)") (pid \($0.1))" }
            .joined(separator: " → ")
    }

    // MARK: - /proc

    private static func executable(of pid: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/\(pid)/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return safe(String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }

    private static func commandLine(of pid: Int32) -> String? {
        guard let bytes = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline"), !bytes.isEmpty else {
            return nil
        }
        let arguments = bytes.split(separator: 0, omittingEmptySubsequences: false).dropLast(bytes.last == 0 ? 1 : 0)
        return safe(arguments.map { quoted(String(decoding: $0, as: UTF8.self)) }.joined(separator: " "))
    }

    /// The ppid of `/proc/PID/stat`: the fourth field, the second after the `)` that ends the
    /// command name (which may itself hold spaces and parentheses).
    private static func parentPID(of pid: Int32) -> Int32? {
        guard let bytes = FileManager.default.contents(atPath: "/proc/\(pid)/stat"),
            let close = bytes.lastIndex(of: UInt8(ascii: ")"))
        else { return nil }
        let fields = bytes[(close + 1)...].split(separator: UInt8(ascii: " "))
        guard fields.count > 1 else { return nil }
        return Int32(String(decoding: fields[1], as: UTF8.self))
    }

    private static func quoted(_ argument: String) -> String {
        guard argument.isEmpty || argument.contains(where: { $0 == " " || $0 == "'" || $0 == "\"" }) else {
            return argument
        }
        return "'" + argument.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    private static func safe(_ text: String) -> String {
        let escaped = DisplayText.escaped(text)
        guard escaped.count > maximumTextLength else { return escaped }
        return escaped.prefix(maximumTextLength - 1) + "…"
    }
}
