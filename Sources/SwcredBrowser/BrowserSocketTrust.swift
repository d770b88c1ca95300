import Glibc

/// The checks both ends of the browser socket make, with the rules of the service's own socket
/// (`SocketPreparation` and `PeerCredentials` in SwcredService, which this module cannot import:
/// it depends on nothing of the service), written again here with Glibc:
///
/// - the socket's directory is a real directory (not a symbolic link), owned by this process's
///   uid and writable by nobody else; the listener creates it (and missing parents) 0700;
/// - the peer's uid, from `SO_PEERCRED`, is this process's own; a peer whose credentials cannot be
///   read is refused, never taken for a trusted one.
public enum BrowserSocketTrust {
    /// Creates `directory` (and missing parents) 0700 when missing, then checks it with
    /// ``checkDirectory(_:uid:)``; group and other read and search bits of a directory that passes
    /// are removed, as the service does for its own.
    public static func makePrivateDirectory(_ directory: String, uid: uid_t = getuid()) throws(BrowserSocketError) {
        if mkdir(directory, 0o700) != 0 && errno != EEXIST {
            let failure = errno
            let parent = parentDirectory(of: directory)
            if failure == ENOENT, !parent.isEmpty, parent != directory {
                try makePrivateDirectory(parent, uid: uid)
                if mkdir(directory, 0o700) == 0 || errno == EEXIST { return try tighten(directory, uid: uid) }
            }
            throw .systemCallFailed(call: "mkdir", path: directory, errno: failure)
        }
        try tighten(directory, uid: uid)
    }

    private static func tighten(_ directory: String, uid: uid_t) throws(BrowserSocketError) {
        let mode = try checkDirectory(directory, uid: uid)
        if mode & 0o077 != 0 {
            guard chmod(directory, 0o700) == 0 else {
                throw .systemCallFailed(call: "chmod", path: directory, errno: errno)
            }
        }
    }

    /// Checks that `directory` is a directory (a symbolic link is refused, whatever it points at),
    /// owned by `uid` and not writable by group or others; returns its permission bits.
    @discardableResult
    public static func checkDirectory(_ directory: String, uid: uid_t = getuid()) throws(BrowserSocketError) -> mode_t {
        var info = stat()
        guard lstat(directory, &info) == 0 else {
            throw .systemCallFailed(call: "lstat", path: directory, errno: errno)
        }
        switch info.st_mode & S_IFMT {
        case S_IFDIR: break
        case S_IFLNK: throw .directoryIsSymbolicLink(directory)
        default: throw .notADirectory(directory)
        }
        guard info.st_uid == uid else { throw .directoryNotOwned(directory, owner: info.st_uid) }
        guard info.st_mode & (S_IWGRP | S_IWOTH) == 0 else {
            throw .directoryWritableByOthers(directory, mode: info.st_mode & 0o7777)
        }
        return info.st_mode & 0o7777
    }

    /// Checks every directory above `directory`, from `/` down, as the service's clients do
    /// (`ServiceSocketTrust`): each is root's or `uid`'s, and writable by group or others only
    /// with the sticky bit (as `/tmp` is). Whoever can write one of them could move the socket's
    /// directory away and put one of their own in its place. Symbolic links among them are
    /// followed (`/var/run` is one). The check stops at the first that does not exist.
    public static func checkAncestors(of directory: String, uid: uid_t = getuid()) throws(BrowserSocketError) {
        var ancestors = directory == "/" ? [] : ["/"]
        var prefix = ""
        for component in directory.split(separator: "/").dropLast() {
            prefix += "/" + component
            ancestors.append(prefix)
        }
        for ancestor in ancestors {
            var info = stat()
            guard stat(ancestor, &info) == 0 else {
                // A missing one, and every one below it, is yet to be made (0700, ours).
                if errno == ENOENT { return }
                throw .systemCallFailed(call: "stat", path: ancestor, errno: errno)
            }
            guard info.st_mode & S_IFMT == S_IFDIR else { throw .notADirectory(ancestor) }
            guard info.st_uid == 0 || info.st_uid == uid else {
                throw .ancestorNotTrusted(ancestor, owner: info.st_uid, mode: info.st_mode & 0o7777)
            }
            guard info.st_mode & (S_IWGRP | S_IWOTH) == 0 || info.st_mode & S_ISVTX != 0 else {
                throw .ancestorNotTrusted(ancestor, owner: info.st_uid, mode: info.st_mode & 0o7777)
            }
        }
    }

    /// The uid of the process at the other end of the connected Unix socket `descriptor`.
    public static func peerUID(of descriptor: Int32) throws(BrowserSocketError) -> uid_t {
        var credentials = PeerCredentialsLayout()
        var length = socklen_t(MemoryLayout<PeerCredentialsLayout>.size)
        let status = getsockopt(descriptor, SOL_SOCKET, soPeerCred, &credentials, &length)
        guard status == 0 else { throw .peerCredentialsUnavailable(errno: errno) }
        guard length == socklen_t(MemoryLayout<PeerCredentialsLayout>.size) else {
            throw .peerCredentialsUnavailable(errno: EINVAL)
        }
        return credentials.uid
    }

    /// Refuses a peer whose uid is not `uid`.
    public static func checkPeer(of descriptor: Int32, uid: uid_t = getuid()) throws(BrowserSocketError) {
        let peer = try peerUID(of: descriptor)
        guard peer == uid else { throw .peerNotOwner(peerUID: peer, uid: uid) }
    }

    /// The folder part of `path` ("/" for a file at the root).
    static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let parent = String(path[..<slash])
        return parent.isEmpty ? "/" : parent
    }

    /// A Unix socket address for `path`, or nil when it does not fit `sun_path`.
    static func address(_ path: String) -> sockaddr_un? {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in bytes.enumerated() { buffer[index] = byte }
        }
        return address
    }

    /// A new stream socket connected to `path`; throws with the connect's errno.
    static func connectedSocket(_ path: String) throws(BrowserSocketError) -> Int32 {
        guard var address = address(path) else { throw .pathTooLong(path) }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .systemCallFailed(call: "socket", path: path, errno: errno) }
        let status = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard status == 0 else {
            let failure = errno
            close(descriptor)
            throw .systemCallFailed(call: "connect", path: path, errno: failure)
        }
        return descriptor
    }

    /// Whether something accepts connections on the Unix socket at `path`.
    static func answers(_ path: String) -> Bool {
        guard let descriptor = try? connectedSocket(path) else { return false }
        close(descriptor)
        return true
    }
}

/// `struct ucred` of `<sys/socket.h>`, which Glibc's Swift module leaves out (it needs
/// `_GNU_SOURCE`).
private struct PeerCredentialsLayout {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
}

/// `SO_PEERCRED` (17 on x86, ARM and the other architectures of asm-generic), hidden from Swift
/// for the same reason.
private let soPeerCred: Int32 = 17

/// Why the browser socket could not be set up, trusted or used; each names the path or peer.
public enum BrowserSocketError: Error, Equatable, Sendable, CustomStringConvertible {
    case directoryIsSymbolicLink(String)
    case notADirectory(String)
    case directoryNotOwned(String, owner: uid_t)
    case directoryWritableByOthers(String, mode: mode_t)
    /// A directory above the socket's belongs to another user, or others may write it and it is
    /// not sticky.
    case ancestorNotTrusted(String, owner: uid_t, mode: mode_t)
    /// Something accepts connections at the path: KeePassXC, most likely.
    case alreadyServed(String)
    /// The path holds a file that is not a socket.
    case notASocket(String)
    case pathTooLong(String)
    case peerCredentialsUnavailable(errno: Int32)
    case peerNotOwner(peerUID: uid_t, uid: uid_t)
    /// Nothing listens at the path (the client side).
    case noListener(String)
    case systemCallFailed(call: String, path: String, errno: Int32)

    public var description: String {
        switch self {
        case .directoryIsSymbolicLink(let path):
            return "\(path) is a symbolic link, not a directory: the browser socket's directory must be a real one"
        case .notADirectory(let path):
            return "\(path) is not a directory"
        case .directoryNotOwned(let path, let owner):
            return "the browser socket's directory \(path) belongs to uid \(owner), not to you (uid \(getuid()))"
        case .directoryWritableByOthers(let path, let mode):
            return
                "the browser socket's directory \(path) is writable by others (mode \(String(mode, radix: 8))): make it 0700"
        case .ancestorNotTrusted(let path, let owner, let mode):
            return
                "\(path), above the browser socket, is owned by uid \(owner) with mode \(String(mode, radix: 8)): it must be root's or yours (uid \(getuid())) and writable by others only with the sticky bit, or another user could replace the socket's directory"
        case .alreadyServed(let path):
            return
                "something already listens on \(path): KeePassXC seems to be running with browser integration on; quit it (or turn its browser integration off) to let swcred serve the browser"
        case .notASocket(let path):
            return "\(path) exists and is not a socket; remove it first"
        case .pathTooLong(let path):
            return "the socket path \(path) is too long for a Unix socket (at most 107 bytes)"
        case .peerCredentialsUnavailable(let code):
            return "the peer's credentials (SO_PEERCRED) cannot be read: \(String(cString: strerror(code)))"
        case .peerNotOwner(let peer, let uid):
            return "the process at the other end of the browser socket runs as uid \(peer), not as you (uid \(uid))"
        case .noListener(let path):
            return
                "nothing listens on \(path): start `swcred serve --browser` first (or KeePassXC with browser integration)"
        case .systemCallFailed(let call, let path, let code):
            return "\(call) \(path) failed: \(String(cString: strerror(code)))"
        }
    }
}
