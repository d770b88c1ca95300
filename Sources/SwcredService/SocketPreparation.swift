import Foundation
import Glibc
import SwcredPlatform

/// Makes the socket's place safe before the server binds it: a 0700 directory that the service's
/// user owns, no live service already answering there, and an exclusive lock held for the
/// service's life, so that a second `swcred serve` never steals a live socket (Hummingbird
/// removes any existing socket file before it binds).
enum SocketPreparation {
    /// Prepares `path` and returns the descriptor of its lock file, to keep open while serving.
    static func prepare(socketPath path: String) throws -> Int32 {
        let directory = (path as NSString).deletingLastPathComponent
        try makePrivateDirectory(directory)
        let lockPath = path + ".lock"
        let lock = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard lock >= 0 else {
            throw ServiceStartError(
                .unusableSocketPath, "cannot open the lock file \(lockPath): \(String(cString: strerror(errno)))")
        }
        guard flock(lock, LOCK_EX | LOCK_NB) == 0 else {
            close(lock)
            throw ServiceStartError(
                .busy,
                "another swcred serve is running on \(path): stop it first (swcred lock does not stop it), or pass another --socket"
            )
        }
        var info = stat()
        if lstat(path, &info) == 0 {
            guard (info.st_mode & S_IFMT) == S_IFSOCK else {
                close(lock)
                throw ServiceStartError(
                    .unusableSocketPath, "\(path) exists and is not a socket: remove it or pass another --socket")
            }
            if answers(path) {
                close(lock)
                throw ServiceStartError(
                    .busy, "a live service already answers on \(path): stop it first, or pass another --socket")
            }
            // A stale socket left by a crash: Hummingbird replaces it when it binds.
        }
        return lock
    }

    /// Creates `directory` 0700 if missing; refuses one that another user owns or others can enter.
    static func makePrivateDirectory(_ directory: String) throws {
        if mkdir(directory, 0o700) != 0 && errno != EEXIST {
            let parent = (directory as NSString).deletingLastPathComponent
            if errno == ENOENT, !parent.isEmpty, parent != directory {
                try makePrivateDirectory(parent)
                if mkdir(directory, 0o700) == 0 || errno == EEXIST { return try check(directory) }
            }
            throw ServiceStartError(
                .unusableSocketPath,
                "cannot create the socket directory \(directory): \(String(cString: strerror(errno)))")
        }
        try check(directory)
    }

    private static func check(_ directory: String) throws {
        var info = stat()
        guard lstat(directory, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw ServiceStartError(.unusableSocketPath, "\(directory) is not a directory: pass another --socket")
        }
        guard info.st_uid == getuid() else {
            throw ServiceStartError(
                .unusableSocketPath,
                "the socket directory \(directory) belongs to uid \(info.st_uid), not to you: pass another --socket")
        }
        if info.st_mode & 0o077 != 0 {
            guard chmod(directory, 0o700) == 0 else {
                throw ServiceStartError(
                    .unusableSocketPath, "cannot make \(directory) private (0700): \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Whether something accepts connections on the Unix socket at `path`.
    static func answers(_ path: String) -> Bool {
        guard let address = SocketTrust.address(path) else { return false }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return SocketTrust.connect(descriptor, to: address) == 0
    }
}

/// Why the service could not start; the message says what to do.
public struct ServiceStartError: Error, CustomStringConvertible {
    /// The kinds of start-up failure, which exit with different codes (README's table).
    public enum Reason: Sendable {
        /// Another service holds the socket (exit 11, busy).
        case busy
        /// The socket's path cannot be used: its directory is not a directory, belongs to another
        /// user or cannot be made, or the path holds something else (exit 2, bad options).
        case unusableSocketPath
        /// The `--listen` address cannot be bound: in use, or not this machine's (exit 2, bad
        /// options).
        case unusableListenAddress
    }

    public let reason: Reason
    public let description: String

    init(_ reason: Reason, _ description: String) {
        self.reason = reason
        self.description = description
    }
}
