import Glibc
import SwcredPlatform

/// The checks both ends of the browser socket make: the service clients' (``SocketTrust`` in
/// SwcredPlatform, which both doors share) with the browser socket's wording:
///
/// - the socket's directory is a real directory (not a symbolic link), owned by this process's
///   uid and writable by nobody else; the listener creates missing ones exactly 0700 and changes
///   none it did not make;
/// - the peer's uid, from `SO_PEERCRED`, is this process's own; a peer whose credentials cannot be
///   read is refused, never taken for a trusted one.
public enum BrowserSocketTrust {
    /// Creates `directory` (and missing parents) exactly 0700 when missing, whatever the umask
    /// (the service runs with 0177), then checks it with ``checkDirectory(_:uid:)``. A directory
    /// that is already there is checked and never changed: `$XDG_RUNTIME_DIR/app` is Flatpak's,
    /// not swcred's, and KeePassXC makes the socket's own. One its owner cannot enter and write
    /// (0700 at least) is refused by name.
    public static func makePrivateDirectory(_ directory: String, uid: uid_t = getuid()) throws(BrowserSocketError) {
        if mkdir(directory, 0o700) == 0 {
            return try madePrivate(directory, uid: uid)
        }
        let failure = errno
        if failure == ENOENT {
            let parent = parentDirectory(of: directory)
            guard !parent.isEmpty, parent != directory else {
                throw .systemCallFailed(call: "mkdir", path: directory, errno: failure)
            }
            try makePrivateDirectory(parent, uid: uid)
            if mkdir(directory, 0o700) == 0 { return try madePrivate(directory, uid: uid) }
            guard errno == EEXIST else { throw .systemCallFailed(call: "mkdir", path: directory, errno: errno) }
        } else if failure != EEXIST {
            throw .systemCallFailed(call: "mkdir", path: directory, errno: failure)
        }
        let mode = try checkDirectory(directory, uid: uid)
        guard mode & S_IRWXU == S_IRWXU else { throw .directoryNotUsable(directory, mode: mode) }
    }

    /// Sets the directory this process just made to exactly 0700 (the umask takes bits away),
    /// then checks it.
    private static func madePrivate(_ directory: String, uid: uid_t) throws(BrowserSocketError) {
        guard chmod(directory, 0o700) == 0 else {
            throw .systemCallFailed(call: "chmod", path: directory, errno: errno)
        }
        try checkDirectory(directory, uid: uid)
    }

    /// Checks that `directory` is a directory (a symbolic link is refused, whatever it points at),
    /// owned by `uid` and not writable by group or others; returns its permission bits.
    @discardableResult
    public static func checkDirectory(_ directory: String, uid: uid_t = getuid()) throws(BrowserSocketError) -> mode_t {
        do {
            return try SocketTrust.checkDirectory(directory) { $0 == uid }
        } catch {
            throw BrowserSocketError(error)
        }
    }

    /// Checks every directory above `directory`, from `/` down, as the service's clients do
    /// (``SocketTrust/checkAncestors(of:trusts:stopAtMissing:)``): each is root's or `uid`'s, and
    /// writable by group or others only with the sticky bit. The check stops at the first that
    /// does not exist: it and every one below it are yet to be made (0700, ours).
    public static func checkAncestors(of directory: String, uid: uid_t = getuid()) throws(BrowserSocketError) {
        do {
            try SocketTrust.checkAncestors(of: directory, trusts: { $0 == uid }, stopAtMissing: true)
        } catch {
            throw BrowserSocketError(error)
        }
    }

    /// Refuses a peer whose uid is not `uid`; returns the peer's credentials.
    @discardableResult
    public static func checkPeer(of descriptor: Int32, uid: uid_t = getuid()) throws(BrowserSocketError) -> SocketPeer {
        let peer: SocketPeer
        do {
            peer = try SocketTrust.peer(of: descriptor)
        } catch {
            throw BrowserSocketError(error)
        }
        guard peer.uid == uid else { throw .peerNotOwner(peerUID: peer.uid, uid: uid) }
        return peer
    }

    /// The folder part of `path` ("/" for a file at the root).
    static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let parent = String(path[..<slash])
        return parent.isEmpty ? "/" : parent
    }

    /// A Unix socket address for `path`, or nil when it does not fit `sun_path`.
    static func address(_ path: String) -> sockaddr_un? {
        SocketTrust.address(path)
    }

    /// A new stream socket connected to `path`; throws with the connect's errno.
    static func connectedSocket(_ path: String) throws(BrowserSocketError) -> Int32 {
        guard let address = address(path) else { throw .pathTooLong(path) }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .systemCallFailed(call: "socket", path: path, errno: errno) }
        guard SocketTrust.connect(descriptor, to: address) == 0 else {
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

/// Why the browser socket could not be set up, trusted or used; each names the path or peer.
public enum BrowserSocketError: Error, Equatable, Sendable, CustomStringConvertible {
    case directoryIsSymbolicLink(String)
    case notADirectory(String)
    case directoryNotOwned(String, owner: uid_t)
    case directoryWritableByOthers(String, mode: mode_t)
    /// A directory on the way to the socket that its owner cannot enter or write (not made by
    /// swcred, so left as it is).
    case directoryNotUsable(String, mode: mode_t)
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
        case .directoryNotUsable(let path, let mode):
            return
                "\(path) has mode \(String(mode, radix: 8)): you cannot enter or write it, so the browser socket cannot be made under it; swcred changes no folder it did not make: make it 0700 (chmod 700 \(path))"
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

    /// The browser socket's wording of a shared check's finding.
    init(_ finding: SocketTrustError) {
        switch finding {
        case .symbolicLink(let path): self = .directoryIsSymbolicLink(path)
        case .notADirectory(let path), .ancestorNotADirectory(let path): self = .notADirectory(path)
        case .notOwned(let path, let owner): self = .directoryNotOwned(path, owner: owner)
        case .writableByOthers(let path, let mode): self = .directoryWritableByOthers(path, mode: mode)
        case .ancestorNotOwned(let path, let owner, let mode), .ancestorWritableByOthers(let path, let owner, let mode):
            self = .ancestorNotTrusted(path, owner: owner, mode: mode)
        case .peerCredentialsUnavailable(let code): self = .peerCredentialsUnavailable(errno: code)
        case .systemCallFailed(let call, let path, let code):
            self = .systemCallFailed(call: call, path: path, errno: code)
        }
    }
}
