import Dispatch
import Foundation
import Glibc
import SwcredPlatform

/// The Unix socket `keepassxc-proxy` (and `swcred browser host`) connects to, served with one
/// ``BrowserProtocolEngine`` per connection.
///
/// Plain POSIX: a thread accepts, a thread per connection reads, and each connection has a serial
/// queue for its writes, so that replies and notices never interleave. The wire is KeePassXC's:
/// unframed JSON objects both ways. Incoming bytes are split into whole objects
/// (``BrowserJSONStreamSplitter``; an object over 1 MiB drops the connection). Outgoing, the
/// proxy forwards whatever one read returns as one message to the browser, so each message is
/// one write, and the next is written only once the peer has read the one before (the socket's
/// unread count, `SIOCOUTQ`, is back to 0): two messages never reach the browser as one.
///
/// Safety, with the service's own socket's rules (``BrowserSocketTrust``): the socket's directory
/// is created 0700 and must be ours and writable by nobody else, never a symbolic link; the
/// socket is 0600; each peer's uid (`SO_PEERCRED`) must be this process's. A live listener at the
/// path (KeePassXC, most likely) is never taken over; a stale socket file is replaced.
///
/// No process of the owner's can shut the browser out (issue 49): a connection that has not
/// finished its key exchange (`change-public-keys`) within ``keyExchangeTimeout`` is closed, and
/// one peer process (`SO_PEERCRED`'s pid) holds at most ``maximumConnectionsPerProcess``, fewer
/// than ``maximumConnections``, so one process never takes every place.
public final class BrowserSocketListener: @unchecked Sendable {
    /// Makes the engine for a new connection; `connectionID` numbers connections from 1, and
    /// `peerPID` is the connecting process's (`SO_PEERCRED`), for the engine to describe it to the
    /// owner (``BrowserPeerProcess``).
    public typealias EngineFactory = @Sendable (_ connectionID: UInt64, _ peerPID: Int32) -> BrowserProtocolEngine

    /// The default bound on simultaneous connections; one more is closed at once.
    public static let defaultMaximumConnections = 16
    /// The default bound on one peer process's simultaneous connections: a browser's host holds
    /// one per extension that talks to it.
    public static let defaultMaximumConnectionsPerProcess = 4
    /// How long, by default, a connection may take to finish its key exchange; the extension's
    /// first message is its key exchange, sent at once.
    public static let defaultKeyExchangeTimeout: Double = 10
    /// How long a write waits by default for the peer to read the message before it; past that
    /// the peer is stuck and the connection is dropped.
    public static let defaultDrainTimeout: Double = 10

    /// The socket's path.
    public let socketPath: String
    /// The legacy path where a symbolic link to ``socketPath`` is made when nothing is there.
    public let legacyLinkPath: String?
    /// The most connections served at once.
    public let maximumConnections: Int
    /// The most connections one peer process (by pid) holds at once.
    public let maximumConnectionsPerProcess: Int
    /// How long, in seconds, a connection may stay open without a finished key exchange.
    public let keyExchangeTimeout: Double
    /// The longest message accepted from a peer.
    public let maximumMessageLength: Int
    /// How long, in seconds, a write waits for the peer to read the message before it.
    public let drainTimeout: Double

    private let makeEngine: EngineFactory
    private let log: @Sendable (String) -> Void
    private let uid: uid_t

    private let lock = NSLock()
    private var listenDescriptor: Int32 = -1
    private var socketInode: ino_t = 0
    private var madeLegacyLink = false
    private var connections: [UInt64: Connection] = [:]
    private var nextConnectionID: UInt64 = 1
    private var running = false
    private var stopping = false
    private let acceptFinished = DispatchSemaphore(value: 0)

    private final class Connection: @unchecked Sendable {
        let id: UInt64
        let descriptor: Int32
        /// The peer process's pid, from `SO_PEERCRED` when it connected.
        let peerPID: Int32
        let writes: DispatchQueue
        /// Set on the write queue once a write failed; later writes are skipped.
        var broken = false

        init(id: UInt64, descriptor: Int32, peerPID: Int32) {
            self.id = id
            self.descriptor = descriptor
            self.peerPID = peerPID
            writes = DispatchQueue(label: "swcred.browser.connection.\(id)")
        }
    }

    /// A listener at `location`'s socket path, with its legacy link.
    public convenience init(
        location: KeePassXCSocketLocation, maximumConnections: Int = defaultMaximumConnections,
        log: @escaping @Sendable (String) -> Void = { _ in }, makeEngine: @escaping EngineFactory
    ) {
        self.init(
            socketPath: location.socketPath, legacyLinkPath: location.legacyPath,
            maximumConnections: maximumConnections, log: log, makeEngine: makeEngine)
    }

    /// A listener at `socketPath`; `legacyLinkPath`, when given, gets a symbolic link to it if
    /// nothing is there. `log` hears what happened to connections (refused peers, drops, the
    /// engine's refusals by connection number), never a message's content.
    public init(
        socketPath: String, legacyLinkPath: String? = nil, maximumConnections: Int = defaultMaximumConnections,
        maximumConnectionsPerProcess: Int = defaultMaximumConnectionsPerProcess,
        maximumMessageLength: Int = NativeMessageFraming.maximumIncomingLength,
        drainTimeout: Double = defaultDrainTimeout, keyExchangeTimeout: Double = defaultKeyExchangeTimeout,
        log: @escaping @Sendable (String) -> Void = { _ in }, makeEngine: @escaping EngineFactory
    ) {
        precondition(maximumConnections > 0 && keyExchangeTimeout > 0)
        precondition(maximumConnectionsPerProcess > 0 && maximumConnectionsPerProcess <= maximumConnections)
        self.maximumConnectionsPerProcess = maximumConnectionsPerProcess
        self.keyExchangeTimeout = keyExchangeTimeout
        self.drainTimeout = drainTimeout
        self.socketPath = socketPath
        self.legacyLinkPath = legacyLinkPath
        self.maximumConnections = maximumConnections
        self.maximumMessageLength = maximumMessageLength
        self.log = log
        self.makeEngine = makeEngine
        uid = getuid()
    }

    /// How many connections are open.
    public var connectionCount: Int {
        lock.withLock { connections.count }
    }

    /// Prepares the directory, binds the socket and starts accepting.
    ///
    /// - Throws: ``BrowserSocketError/alreadyServed(_:)`` when something listens at the path
    ///   (KeePassXC); ``BrowserSocketError/notASocket(_:)`` when a file that is no socket is
    ///   there; the directory errors of ``BrowserSocketTrust``; ``BrowserSocketError/pathTooLong(_:)``;
    ///   ``BrowserSocketError/systemCallFailed(call:path:errno:)``.
    public func start() throws(BrowserSocketError) {
        lock.lock()
        defer { lock.unlock() }
        precondition(!running && !stopping, "a BrowserSocketListener starts once")
        guard var address = BrowserSocketTrust.address(socketPath) else { throw .pathTooLong(socketPath) }
        let directory = BrowserSocketTrust.parentDirectory(of: socketPath)
        // Before anything is made under them, and again once the missing ones are made.
        try BrowserSocketTrust.checkAncestors(of: directory, uid: uid)
        try BrowserSocketTrust.makePrivateDirectory(directory, uid: uid)
        try BrowserSocketTrust.checkAncestors(of: directory, uid: uid)
        // The folders above up to the runtime folder (the legacy link's) must be ours too: whoever
        // can write one can move the socket's directory away and put their own in its place.
        if let legacyLinkPath {
            let runtime = BrowserSocketTrust.parentDirectory(of: legacyLinkPath)
            var folder = BrowserSocketTrust.parentDirectory(of: directory)
            while folder.hasPrefix(runtime) && folder.count >= runtime.count {
                try BrowserSocketTrust.checkDirectory(folder, uid: uid)
                if folder == runtime { break }
                folder = BrowserSocketTrust.parentDirectory(of: folder)
            }
        }
        var info = stat()
        if lstat(socketPath, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFSOCK else { throw .notASocket(socketPath) }
            if BrowserSocketTrust.answers(socketPath) { throw .alreadyServed(socketPath) }
            guard unlink(socketPath) == 0 || errno == ENOENT else {
                throw .systemCallFailed(call: "unlink", path: socketPath, errno: errno)
            }
            log("replaced the stale socket \(socketPath), where nothing listened")
        }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .systemCallFailed(call: "socket", path: socketPath, errno: errno) }
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else {
            let failure = errno
            close(descriptor)
            if failure == EADDRINUSE { throw .alreadyServed(socketPath) }
            throw .systemCallFailed(call: "bind", path: socketPath, errno: failure)
        }
        guard chmod(socketPath, 0o600) == 0, lstat(socketPath, &info) == 0 else {
            let failure = errno
            close(descriptor)
            unlink(socketPath)
            throw .systemCallFailed(call: "chmod", path: socketPath, errno: failure)
        }
        socketInode = info.st_ino
        guard listen(descriptor, Int32(maximumConnections)) == 0 else {
            let failure = errno
            close(descriptor)
            unlink(socketPath)
            throw .systemCallFailed(call: "listen", path: socketPath, errno: failure)
        }
        listenDescriptor = descriptor
        if let legacyLinkPath {
            if lstat(legacyLinkPath, &info) != 0 && errno == ENOENT {
                madeLegacyLink = symlink(socketPath, legacyLinkPath) == 0
            } else {
                log("left \(legacyLinkPath) as it is: something is already there")
            }
        }
        running = true
        let thread = Thread { [self] in
            acceptLoop(descriptor)
            acceptFinished.signal()
        }
        thread.name = "swcred browser accept"
        thread.start()
    }

    /// Sends the notice (``BrowserAction/databaseLocked`` or ``BrowserAction/databaseUnlocked``)
    /// to every connection, after whatever each is already sending.
    public func broadcast(_ notice: BrowserAction) {
        let message = BrowserProtocolEngine.notice(notice)
        lock.withLock {
            for connection in connections.values {
                enqueue(message, on: connection)
            }
        }
    }

    /// Stops accepting, closes every connection and removes the socket (and the legacy link this
    /// listener made). Idempotent.
    public func stop() {
        let wasRunning: Bool = lock.withLock {
            guard running, !stopping else { return false }
            stopping = true
            shutdown(listenDescriptor, Int32(SHUT_RDWR))
            for connection in connections.values {
                shutdown(connection.descriptor, Int32(SHUT_RDWR))
            }
            return true
        }
        guard wasRunning else { return }
        acceptFinished.wait()
        lock.withLock {
            close(listenDescriptor)
            listenDescriptor = -1
            var info = stat()
            if lstat(socketPath, &info) == 0, info.st_ino == socketInode, info.st_mode & S_IFMT == S_IFSOCK {
                unlink(socketPath)
            }
            if madeLegacyLink, let legacyLinkPath,
                (try? FileManager.default.destinationOfSymbolicLink(atPath: legacyLinkPath)) == socketPath
            {
                unlink(legacyLinkPath)
            }
            running = false
        }
    }

    deinit {
        if listenDescriptor >= 0 { close(listenDescriptor) }
    }

    // MARK: - Accepting

    private func acceptLoop(_ listener: Int32) {
        while true {
            // accept4 needs _GNU_SOURCE, which Glibc's Swift module lacks: close-on-exec next.
            let descriptor = accept(listener, nil, nil)
            if descriptor < 0 {
                let failure = errno
                if lock.withLock({ stopping }) { return }
                switch failure {
                case EINTR, ECONNABORTED: continue
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    log("accept on \(socketPath) failed: \(String(cString: strerror(failure))); retrying")
                    usleep(50_000)
                    continue
                default:
                    log("accept on \(socketPath) failed: \(String(cString: strerror(failure))); no more connections")
                    return
                }
            }
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            admit(descriptor)
        }
    }

    private func admit(_ descriptor: Int32) {
        let peerPID: Int32
        do {
            peerPID = try BrowserSocketTrust.checkPeer(of: descriptor, uid: uid).pid
        } catch {
            log("refused a connection on \(socketPath): \(error)")
            close(descriptor)
            return
        }
        let admitted: Result<Connection, AdmissionRefusal> = lock.withLock {
            guard !stopping else { return .failure(.stopping) }
            guard connections.count < maximumConnections else { return .failure(.full) }
            let held = connections.values.count { $0.peerPID == peerPID }
            guard held < maximumConnectionsPerProcess else { return .failure(.processFull) }
            let connection = Connection(id: nextConnectionID, descriptor: descriptor, peerPID: peerPID)
            nextConnectionID += 1
            connections[connection.id] = connection
            return .success(connection)
        }
        let connection: Connection
        switch admitted {
        case .success(let admitted): connection = admitted
        case .failure(let refusal):
            switch refusal {
            case .stopping: break
            case .full: log("refused a connection on \(socketPath): \(maximumConnections) are already open")
            case .processFull:
                log(
                    "refused a connection on \(socketPath): process \(peerPID) already holds \(maximumConnectionsPerProcess)"
                )
            }
            close(descriptor)
            return
        }
        // As KeePassXC and its proxy do: room for a whole message in the socket's buffer.
        var size = Int32(NativeMessageFraming.maximumOutgoingLength)
        setsockopt(descriptor, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        let engine = makeEngine(connection.id, connection.peerPID)
        let thread = Thread { [self] in serve(connection, engine: engine) }
        thread.name = "swcred browser connection \(connection.id)"
        thread.start()
    }

    /// Why a connection was not admitted.
    private enum AdmissionRefusal: Error {
        case stopping
        case full
        /// Its process already holds ``maximumConnectionsPerProcess``.
        case processFull
    }

    // MARK: - One connection

    private func serve(_ connection: Connection, engine: BrowserProtocolEngine) {
        let keyExchangeDeadline = DispatchTime.now().uptimeNanoseconds + UInt64(keyExchangeTimeout * 1e9)
        var exchanged = false
        var splitter = BrowserJSONStreamSplitter(maximumLength: maximumMessageLength)
        let capacity = 64 * 1024
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 1)
        defer {
            splitter.wipe()
            buffer.initializeMemory(as: UInt8.self, repeating: 0)
            buffer.deallocate()
            lock.withLock {
                connections.removeValue(forKey: connection.id)
                // After every write already queued: the descriptor is closed last, by its queue.
                connection.writes.async { close(connection.descriptor) }
            }
        }
        while true {
            if !exchanged {
                let now = DispatchTime.now().uptimeNanoseconds
                guard now < keyExchangeDeadline else {
                    log(
                        "closed connection \(connection.id) on \(socketPath): no key exchange within \(keyExchangeTimeout) s"
                    )
                    return
                }
                Self.setReceiveTimeout(connection.descriptor, nanoseconds: keyExchangeDeadline - now)
            }
            let count = recv(connection.descriptor, buffer.baseAddress, capacity, 0)
            if count < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) { continue }
            guard count > 0 else { return }
            let messages: [[UInt8]]
            do {
                messages = try splitter.feed(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            } catch {
                log("dropped connection \(connection.id) on \(socketPath): \(error)")
                return
            }
            for message in messages {
                let (outcome, hasSession) = Self.handle(message, engine: engine, descriptor: connection.descriptor)
                if let refusal = outcome.refusal { log("connection \(connection.id): \(refusal)") }
                if let reply = outcome.reply {
                    lock.withLock { enqueue(reply, on: connection) }
                }
                if hasSession && !exchanged {
                    exchanged = true
                    Self.setReceiveTimeout(connection.descriptor, nanoseconds: 0)
                }
            }
        }
    }

    /// Makes a `recv` on `descriptor` give up after `nanoseconds` (0: wait for ever).
    private static func setReceiveTimeout(_ descriptor: Int32, nanoseconds: UInt64) {
        // A timeout that rounds to 0 would mean no timeout at all: at least 1 µs.
        let microseconds = nanoseconds == 0 ? 0 : max(nanoseconds / 1000, 1)
        var timeout = timeval(tv_sec: Int(microseconds / 1_000_000), tv_usec: Int(microseconds % 1_000_000))
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Runs the engine's async `handle` from this connection's own thread. While it runs (an
    /// association waits for the owner), the peer is watched: when it hangs up, the request is
    /// cancelled, so that the owner is not asked about a browser that is gone. Returns the
    /// outcome and whether the engine now holds a key exchange's session.
    private static func handle(
        _ message: [UInt8], engine: BrowserProtocolEngine, descriptor: Int32
    ) -> (BrowserEngineOutcome, hasSession: Bool) {
        final class Box: @unchecked Sendable {
            var outcome: BrowserEngineOutcome?
            var hasSession = false
        }
        let box = Box()
        let done = DispatchSemaphore(value: 0)
        let task = Task {
            box.outcome = await engine.handle(message)
            box.hasSession = await engine.hasSession
            done.signal()
        }
        while done.wait(timeout: .now() + .milliseconds(200)) == .timedOut {
            if !task.isCancelled, peerHungUp(descriptor) { task.cancel() }
        }
        return (box.outcome!, box.hasSession)
    }

    /// Whether the peer closed its end (POLLHUP, or POLLRDHUP: it will send nothing more).
    private static func peerHungUp(_ descriptor: Int32) -> Bool {
        let readHangUp = Int16(0x2000)  // POLLRDHUP
        var watched = pollfd(fd: descriptor, events: readHangUp, revents: 0)
        guard poll(&watched, 1, 0) > 0 else { return false }
        return watched.revents & (Int16(POLLHUP) | readHangUp | Int16(POLLERR)) != 0
    }

    /// Queues `message` for `connection`; call with `lock` held, so that a connection's close is
    /// always queued after its writes.
    private func enqueue(_ message: [UInt8], on connection: Connection) {
        connection.writes.async { [self] in
            guard !connection.broken else { return }
            if !write(message, to: connection.descriptor) {
                connection.broken = true
                shutdown(connection.descriptor, Int32(SHUT_RDWR))
            }
        }
    }

    /// Writes one message once the peer has read everything before it; false when the peer is
    /// gone or stuck.
    private func write(_ message: [UInt8], to descriptor: Int32) -> Bool {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(drainTimeout * 1e9)
        while true {
            var unread: Int32 = 0
            guard ioctl(descriptor, siocOutQ, &unread) == 0 else { return false }
            if unread == 0 { break }
            if DispatchTime.now().uptimeNanoseconds > deadline {
                log("dropped a connection on \(socketPath): the peer has not read a message for \(drainTimeout) s")
                return false
            }
            usleep(200)
        }
        var written = 0
        while written < message.count {
            let count = message.withUnsafeBytes { raw in
                send(descriptor, raw.baseAddress! + written, raw.count - written, Int32(MSG_NOSIGNAL))
            }
            if count < 0 {
                if errno == EINTR { continue }
                return false
            }
            written += count
        }
        return true
    }
}

/// `SIOCOUTQ` (`TIOCOUTQ`, 0x5411 in asm-generic): for a Unix stream socket, the bytes written and
/// not yet read by the peer.
private let siocOutQ: UInt = 0x5411
