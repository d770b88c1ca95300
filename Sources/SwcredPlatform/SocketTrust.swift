import Glibc

/// The checks both doors make before they trust a Unix socket or its peer: the vault service's
/// clients (`ServiceSocketTrust` in SharedWebCredentialsClient) and the browser socket's two ends
/// (`BrowserSocketTrust` in SwcredBrowser). One copy, so that a fix to one door is a fix to both;
/// each door words the findings for its own users.
///
/// - The socket's directory is a real directory (not a symbolic link), owned by a trusted uid and
///   writable by nobody else.
/// - Every directory above it is root's or a trusted uid's, and writable by group or others only
///   with the sticky bit (as `/tmp` is): whoever can write one could move the socket's directory
///   away and put one of their own in its place.
/// - The peer's credentials come from `SO_PEERCRED`; a peer whose credentials cannot be read is
///   refused, never taken for a trusted one.
public enum SocketTrust {
    /// Checks that `directory` is a directory (a symbolic link is refused, whatever it points at),
    /// owned by a uid `trusts` accepts and not writable by group or others; returns its permission
    /// bits.
    @discardableResult
    public static func checkDirectory(
        _ directory: String, trusts: (uid_t) -> Bool
    ) throws(SocketTrustError) -> mode_t {
        var info = stat()
        guard lstat(directory, &info) == 0 else {
            throw .systemCallFailed(call: "lstat", path: directory, errno: errno)
        }
        switch info.st_mode & S_IFMT {
        case S_IFDIR: break
        case S_IFLNK: throw .symbolicLink(directory)
        default: throw .notADirectory(directory)
        }
        guard trusts(info.st_uid) else { throw .notOwned(directory, owner: info.st_uid) }
        guard info.st_mode & (S_IWGRP | S_IWOTH) == 0 else {
            throw .writableByOthers(directory, mode: info.st_mode & 0o7777)
        }
        return info.st_mode & 0o7777
    }

    /// The directories above `directory`, from `/` down (none for `/` itself).
    public static func ancestors(of directory: String) -> [String] {
        var ancestors = directory == "/" ? [] : ["/"]
        var prefix = ""
        for component in directory.split(separator: "/").dropLast() {
            prefix += "/" + component
            ancestors.append(prefix)
        }
        return ancestors
    }

    /// Checks every directory above `directory`, from `/` down: each is root's or a uid `trusts`
    /// accepts, and writable by group or others only with the sticky bit. Symbolic links among
    /// them are followed (`/var/run` is one). With `stopAtMissing`, the check ends at the first
    /// that does not exist (a listener makes the missing ones, 0700); otherwise a missing one is
    /// a ``SocketTrustError/systemCallFailed(call:path:errno:)`` with `ENOENT`.
    public static func checkAncestors(
        of directory: String, trusts: (uid_t) -> Bool, stopAtMissing: Bool
    ) throws(SocketTrustError) {
        for ancestor in ancestors(of: directory) {
            var info = stat()
            guard stat(ancestor, &info) == 0 else {
                if errno == ENOENT && stopAtMissing { return }
                throw .systemCallFailed(call: "stat", path: ancestor, errno: errno)
            }
            let mode = info.st_mode & 0o7777
            guard info.st_mode & S_IFMT == S_IFDIR else { throw .ancestorNotADirectory(ancestor) }
            guard info.st_uid == 0 || trusts(info.st_uid) else {
                throw .ancestorNotOwned(ancestor, owner: info.st_uid, mode: mode)
            }
            guard info.st_mode & (S_IWGRP | S_IWOTH) == 0 || info.st_mode & S_ISVTX != 0 else {
                throw .ancestorWritableByOthers(ancestor, owner: info.st_uid, mode: mode)
            }
        }
    }

    /// The process at the other end of the connected Unix socket `descriptor`.
    public static func peer(of descriptor: Int32) throws(SocketTrustError) -> SocketPeer {
        var peer = SocketPeer()
        var length = socklen_t(MemoryLayout<SocketPeer>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SocketPeer.option, &peer, &length) == 0 else {
            throw .peerCredentialsUnavailable(errno: errno)
        }
        guard length == socklen_t(MemoryLayout<SocketPeer>.size) else {
            throw .peerCredentialsUnavailable(errno: EINVAL)
        }
        return peer
    }

    /// A Unix socket address for `path`, or nil when it is empty or does not fit `sun_path`
    /// (107 bytes and the terminating zero).
    public static func address(_ path: String) -> sockaddr_un? {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in bytes.enumerated() { buffer[index] = byte }
        }
        return address
    }

    /// Connects `descriptor` to `address`; the `connect` result (0, or -1 with errno set).
    public static func connect(_ descriptor: Int32, to address: sockaddr_un) -> Int32 {
        var address = address
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
    }
}

/// `struct ucred` of `<sys/socket.h>` (pid_t, uid_t, gid_t), which Glibc's Swift module leaves
/// out because it needs `_GNU_SOURCE`; laid out as the kernel fills it in. No uid until then
/// (`(uid_t)-1`, never root's 0).
public struct SocketPeer: Equatable, Sendable {
    /// The peer process's pid when it connected (or called `listen`).
    public var pid: Int32 = 0
    public var uid: uid_t = .max
    public var gid: gid_t = .max

    public init() {}

    /// `SO_PEERCRED` (17 on x86, ARM and the other architectures of asm-generic), hidden from
    /// Swift for the same reason.
    public static let option: Int32 = 17
}

/// What a socket check found; each door turns it into its own message.
public enum SocketTrustError: Error, Equatable, Sendable {
    /// The socket's directory is a symbolic link.
    case symbolicLink(String)
    /// The socket's directory is not a directory.
    case notADirectory(String)
    /// The socket's directory belongs to a uid not trusted.
    case notOwned(String, owner: uid_t)
    /// Group or others may write the socket's directory.
    case writableByOthers(String, mode: mode_t)
    /// A directory above the socket's is not a directory.
    case ancestorNotADirectory(String)
    /// A directory above the socket's belongs to neither root nor a trusted uid.
    case ancestorNotOwned(String, owner: uid_t, mode: mode_t)
    /// Group or others may write a directory above the socket's, and it is not sticky.
    case ancestorWritableByOthers(String, owner: uid_t, mode: mode_t)
    /// `SO_PEERCRED` failed, or returned something else than a `struct ucred`.
    case peerCredentialsUnavailable(errno: Int32)
    case systemCallFailed(call: String, path: String, errno: Int32)
}
