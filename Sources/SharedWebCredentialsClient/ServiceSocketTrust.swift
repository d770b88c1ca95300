import Foundation
import Glibc
import SharedWebCredentials
import SwcredPlatform

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
/// The checks are ``SocketTrust``'s (SwcredPlatform), which the browser socket's ends make too;
/// this type words their findings for the service's clients. Nobody else can change a directory
/// that passed, so the requests that follow reach the same socket: ``verifiedSocketPath(_:)`` returns its path with symbolic links resolved, and the
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
        // A path of slashes only has neither a name nor a directory; `/` is its own name.
        guard name != "/", !directory.isEmpty else {
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
        try checkSocketDirectory(resolved, socket: path)
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
    private func checkSocketDirectory(_ directory: String, socket: String) throws {
        do {
            try SocketTrust.checkDirectory(directory, trusts: trusts)
        } catch {
            throw refusal(error, socket: socket)
        }
    }

    /// Every directory above the socket's, from `/` down: root's, the client's or the named
    /// uid's, and writable by group or others only if sticky.
    private func checkAncestors(of directory: String, socket: String) throws {
        do {
            try SocketTrust.checkAncestors(of: directory, trusts: trusts, stopAtMissing: false)
        } catch {
            throw refusal(error, socket: socket)
        }
    }

    /// The client's wording of a shared check's finding: what was found, and what to do.
    private func refusal(_ finding: SocketTrustError, socket: String) -> SharedWebCredentialsError {
        switch finding {
        case .symbolicLink(let directory):
            return refusal("\(directory) is a symbolic link", "name the directory it points to, if you trust it")
        case .notADirectory(let directory):
            return refusal("\(directory) is not a directory", "name the service's socket")
        case .notOwned(let directory, let owner):
            return refusal(
                "\(directory) is owned by \(Self.describe(owner)), not by \(expectedOwners): another user may have planted it",
                "remove it, set XDG_RUNTIME_DIR, or pass --server-uid \(owner) if you trust that user's service")
        case .writableByOthers(let directory, let mode):
            return refusal(
                "\(directory) is writable by group or others (mode \(Self.octal(mode))): another user could replace the socket",
                "make it private (chmod 700 \(directory)) and start the service again")
        case .ancestorNotADirectory(let directory):
            return refusal("\(directory), above the socket, is not a directory", "name the service's socket")
        case .ancestorNotOwned(let directory, let owner, _):
            return refusal(
                "\(directory), above the socket, is owned by \(Self.describe(owner)), not by root or \(expectedOwners): that user could move the socket's directory",
                "put the socket elsewhere, or pass --server-uid \(owner) if you trust that user")
        case .ancestorWritableByOthers(let directory, _, let mode):
            return refusal(
                "\(directory), above the socket, is writable by group or others without the sticky bit (mode \(Self.octal(mode)))",
                "put the socket elsewhere, or make the directory private")
        case .peerCredentialsUnavailable(let code):
            return refusal(
                "cannot tell which user listens on \(socket) (SO_PEERCRED: \(String(cString: strerror(code))))",
                "check that it is the service's socket")
        case .systemCallFailed(_, let path, let code):
            let reason = String(cString: strerror(code))
            if code == ENOENT || code == ENOTDIR {
                return SharedWebCredentialsError.noService(at: socket, "\(path): \(reason)")
            }
            return refusal("cannot check \(path): \(reason)", "check the socket's path and its permissions")
        }
    }

    /// Connects a probe that sends nothing and requires its peer to run as a trusted uid.
    private func checkPeer(_ socketPath: String, socket shown: String) throws {
        guard let address = SocketTrust.address(socketPath) else {
            throw SharedWebCredentialsError(
                .invalidInput, "\(socketPath) is too long for a Unix socket: name a shorter path to the service")
        }
        // Non-blocking: a listener that never accepts cannot stall the client.
        let flags = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        let descriptor = Glibc.socket(AF_UNIX, flags, 0)
        guard descriptor >= 0 else {
            throw SharedWebCredentialsError(
                .internalError, "cannot make a socket to check the service: \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        guard SocketTrust.connect(descriptor, to: address) == 0 else {
            throw SharedWebCredentialsError.noService(at: shown, String(cString: strerror(errno)))
        }
        try checkPeer(of: descriptor, listeningOn: socketPath)
    }

    /// Requires the peer of the connected `descriptor` to run as a trusted uid; when
    /// `SO_PEERCRED` fails, the peer is refused.
    func checkPeer(of descriptor: Int32, listeningOn socketPath: String) throws {
        let peer: SocketPeer
        do {
            peer = try SocketTrust.peer(of: descriptor)
        } catch {
            throw refusal(error, socket: socketPath)
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
