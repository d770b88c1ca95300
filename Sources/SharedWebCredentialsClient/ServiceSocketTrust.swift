import Foundation
import Glibc
import SharedWebCredentials

/// What a client checks before it sends anything to a service's Unix socket (DESIGN.md: "Clients
/// trust nothing at a path either"). Without `XDG_RUNTIME_DIR` the default socket is under
/// `/tmp`, where another user may have made `/tmp/swcred-UID` first and listen there for a
/// passphrase or a token. So, in this order:
///
/// 1. the socket's directory is not a symbolic link, belongs to the client's own uid (or the uid
///    the user named) and is writable by nobody else: a planted directory gets no connection;
/// 2. every directory above it (symbolic links resolved) belongs to root, the client or the named
///    uid, and is writable by group or others only with the sticky bit (as `/tmp` is);
/// 3. the path is a socket, not a symbolic link;
/// 4. the process listening there runs as the client's own uid or the named one: `SO_PEERCRED`
///    of a probe connection that sends nothing. When the kernel cannot say, the socket is refused.
///
/// Nobody else can change a directory that passed, so the requests that follow reach the same
/// socket: ``verifiedSocketPath(_:)`` returns its path with symbolic links resolved, and the
/// client connects there.
///
/// A refusal is `vaultLocked` (exit 7), not `internalError` (1): to the caller a socket it must
/// not trust is no usable service, as when none answers at the path (7) or the service refuses
/// the caller's uid (`peer-refused`, 7). The message names the path, the owner found and what to
/// do, and says that nothing was sent.
struct ServiceSocketTrust {
    /// The client's effective uid.
    let ownUID: uid_t
    /// Another uid whose service the user trusts (`--server-uid`, `SWCRED_SERVER_UID`,
    /// `trustedServiceUID`), or nil.
    let trustedUID: uid_t?

    init(trustedUID: uid_t?) {
        ownUID = geteuid()
        self.trustedUID = trustedUID
    }

    /// Checks the socket at `path` (absolute, or relative to the working directory) and returns
    /// the path to connect to, with its directory's symbolic links resolved. Throws
    /// `vaultLocked` for a socket it must not trust or where nothing answers.
    func verifiedSocketPath(_ path: String) throws -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        let name = (absolute as NSString).lastPathComponent
        let directory = (absolute as NSString).deletingLastPathComponent
        guard !name.isEmpty, name != "/", !directory.isEmpty else {
            throw SharedWebCredentialsError(.invalidInput, "\(path) cannot be a service's socket: name the socket file")
        }
        let given = try status(of: directory, socket: path)
        guard given.st_mode & S_IFMT != S_IFLNK else {
            throw refusal("\(directory) is a symbolic link", "name the directory it points to, if you trust it")
        }
        guard let resolvedPointer = realpath(directory, nil) else {
            throw SharedWebCredentialsError.noService(at: path, "\(directory): \(String(cString: strerror(errno)))")
        }
        let resolved = String(cString: resolvedPointer)
        free(resolvedPointer)
        try checkSocketDirectory(resolved, try status(of: resolved, socket: path))
        try checkAncestors(of: resolved, socket: path)
        let socketPath = (resolved == "/" ? "" : resolved) + "/" + name
        let socket = try status(of: socketPath, socket: path)
        guard socket.st_mode & S_IFMT == S_IFSOCK else {
            let what = socket.st_mode & S_IFMT == S_IFLNK ? "a symbolic link" : "not a socket"
            throw refusal("\(socketPath) is \(what)", "remove it and start the service again, or name its real socket")
        }
        try checkPeer(socketPath, socket: path)
        return socketPath
    }

    /// The socket's own directory: the client's or the named uid's, writable by nobody else.
    private func checkSocketDirectory(_ directory: String, _ info: stat) throws {
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw refusal("\(directory) is not a directory", "name the service's socket")
        }
        guard trusts(info.st_uid) else {
            throw refusal(
                "\(directory) is owned by \(Self.describe(info.st_uid)), not by \(expectedOwners): another user may have planted it",
                "remove it, set XDG_RUNTIME_DIR, or pass --server-uid \(info.st_uid) if you trust that user's service")
        }
        guard info.st_mode & 0o022 == 0 else {
            throw refusal(
                "\(directory) is writable by group or others (mode \(Self.octal(info.st_mode))): another user could replace the socket",
                "make it private (chmod 700 \(directory)) and start the service again")
        }
    }

    /// Every directory above the socket's, from `/` down: root's, the client's or the named
    /// uid's, and writable by group or others only if sticky.
    private func checkAncestors(of directory: String, socket: String) throws {
        var ancestors = directory == "/" ? [] : ["/"]
        var prefix = ""
        for component in directory.split(separator: "/").dropLast() {
            prefix += "/" + component
            ancestors.append(prefix)
        }
        for ancestor in ancestors { try checkAncestor(ancestor, try status(of: ancestor, socket: socket)) }
    }

    private func checkAncestor(_ directory: String, _ info: stat) throws {
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw refusal("\(directory), above the socket, is not a directory", "name the service's socket")
        }
        guard info.st_uid == 0 || trusts(info.st_uid) else {
            throw refusal(
                "\(directory), above the socket, is owned by \(Self.describe(info.st_uid)), not by root or \(expectedOwners): that user could move the socket's directory",
                "put the socket elsewhere, or pass --server-uid \(info.st_uid) if you trust that user")
        }
        guard info.st_mode & 0o022 == 0 || info.st_mode & S_ISVTX != 0 else {
            throw refusal(
                "\(directory), above the socket, is writable by group or others without the sticky bit (mode \(Self.octal(info.st_mode)))",
                "put the socket elsewhere, or make the directory private")
        }
    }

    /// Connects a probe that sends nothing and requires its peer to run as a trusted uid.
    private func checkPeer(_ socketPath: String, socket shown: String) throws {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(socketPath.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw SharedWebCredentialsError(
                .invalidInput, "\(socketPath) is too long for a Unix socket: name a shorter path to the service")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in bytes.enumerated() { buffer[index] = byte }
        }
        // Non-blocking: a listener that never accepts cannot stall the client.
        let flags = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        let descriptor = Glibc.socket(AF_UNIX, flags, 0)
        guard descriptor >= 0 else {
            throw SharedWebCredentialsError(
                .internalError, "cannot make a socket to check the service: \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            throw SharedWebCredentialsError.noService(at: shown, String(cString: strerror(errno)))
        }
        try checkPeer(of: descriptor, listeningOn: socketPath)
    }

    /// Requires the peer of the connected `descriptor` to run as a trusted uid; when
    /// `SO_PEERCRED` fails, the peer is refused.
    func checkPeer(of descriptor: Int32, listeningOn socketPath: String) throws {
        var peer = PeerCredentials()
        var length = socklen_t(MemoryLayout<PeerCredentials>.size)
        guard getsockopt(descriptor, SOL_SOCKET, soPeerCred, &peer, &length) == 0,
            Int(length) == MemoryLayout<PeerCredentials>.size
        else {
            throw refusal(
                "cannot tell which user listens on \(socketPath) (SO_PEERCRED: \(String(cString: strerror(errno))))",
                "check that it is the service's socket")
        }
        guard trusts(peer.uid) else {
            throw refusal(
                "the process listening on \(socketPath) runs as \(Self.describe(peer.uid)), not as \(expectedOwners)",
                "stop it and start your own service, or pass --server-uid \(peer.uid) if you trust that user's service")
        }
    }

    /// The client's own uid or the named one; never `(uid_t)-1`, which is no user.
    private func trusts(_ uid: uid_t) -> Bool {
        uid != uid_t.max && (uid == ownUID || uid == trustedUID)
    }

    /// "you (uid 1000)", and the named uid when there is one.
    private var expectedOwners: String {
        let you = "you (uid \(ownUID))"
        guard let trustedUID, trustedUID != ownUID else { return you }
        return "\(you) or the uid you named (\(Self.describe(trustedUID)))"
    }

    /// `lstat` of `path`; a path that does not exist means no service answers at `socket`.
    private func status(of path: String, socket: String) throws -> stat {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            let reason = String(cString: strerror(errno))
            if errno == ENOENT || errno == ENOTDIR {
                throw SharedWebCredentialsError.noService(at: socket, "\(path): \(reason)")
            }
            throw refusal("cannot check \(path): \(reason)", "check the socket's path and its permissions")
        }
        return info
    }

    private func refusal(_ problem: String, _ remedy: String) -> SharedWebCredentialsError {
        SharedWebCredentialsError(.vaultLocked, "\(problem); nothing was sent. To go on, \(remedy).")
    }

    /// "uid 1001 (mallory)", or "uid 1001" when no user entry names it.
    static func describe(_ uid: uid_t) -> String {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, result != nil, let name = entry.pw_name
        else { return "uid \(uid)" }
        return "uid \(uid) (\(String(cString: name)))"
    }

    private static func octal(_ mode: mode_t) -> String {
        "0" + String(mode & 0o7777, radix: 8)
    }
}

/// `struct ucred` of `<sys/socket.h>` (pid_t, uid_t, gid_t), which Glibc's Swift module leaves
/// out because it needs `_GNU_SOURCE`. No uid until the kernel fills it in (not root's 0).
private struct PeerCredentials {
    var pid: Int32 = 0
    var uid: UInt32 = .max
    var gid: UInt32 = .max
}

/// `SO_PEERCRED` (17 on x86, ARM and the other architectures of asm-generic), hidden from Swift
/// for the same reason.
private let soPeerCred: Int32 = 17
