import Foundation
import Testing

@testable import SwcredBrowser

#if canImport(Glibc)
    import Glibc
#endif

/// What a listener logged, for the tests to read.
final class LogRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func record(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
    /// Waits up to 5 s for a line containing `text`.
    func waitFor(_ text: String) -> Bool {
        for _ in 0..<500 {
            if all.contains(where: { $0.contains(text) }) { return true }
            usleep(10_000)
        }
        return false
    }
}

/// A private runtime folder for one test, removed at the end: `/tmp/swb-XXXXXX` (short, so that
/// KeePassXC's socket path fits a Unix socket address).
final class RuntimeFolder {
    let path: String
    init() throws {
        var template = Array("/tmp/swb-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw WireFailure("mkdtemp: \(errno)") }
        path = String(cString: made)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }

    var location: KeePassXCSocketLocation {
        KeePassXCSocketLocation(environment: ["XDG_RUNTIME_DIR": path], userName: "nobody")
    }
}

/// A listener over a ``MemoryVault`` at a fresh runtime folder's KeePassXC path.
final class ListenerFixture {
    let runtime: RuntimeFolder
    let vault = MemoryVault()
    let log = LogRecorder()
    let listener: BrowserSocketListener
    var socketPath: String { runtime.location.socketPath }

    init(
        maximumConnections: Int = 16, maximumConnectionsPerProcess: Int = 4, drainTimeout: Double = 10,
        keyExchangeTimeout: Double = 10, start: Bool = true
    ) throws {
        runtime = try RuntimeFolder()
        let vault = vault
        let log = log
        let location = runtime.location
        listener = BrowserSocketListener(
            socketPath: location.socketPath, legacyLinkPath: location.legacyPath,
            maximumConnections: maximumConnections, maximumConnectionsPerProcess: maximumConnectionsPerProcess,
            drainTimeout: drainTimeout, keyExchangeTimeout: keyExchangeTimeout, log: { log.record($0) },
            makeEngine: { _, peerPID in BrowserProtocolEngine(vault: vault, peerPID: peerPID) })
        if start { try listener.start() }
    }

    deinit { listener.stop() }

    func connect() throws -> SocketTransport { try SocketTransport(path: socketPath) }

    /// Waits until the listener has admitted `count` connections.
    func waitForConnections(_ count: Int) -> Bool {
        for _ in 0..<500 {
            if listener.connectionCount == count { return true }
            usleep(10_000)
        }
        return false
    }
}

/// A change-public-keys request for a fresh key, with `clientID`.
func keyExchange(clientID: String = "client-1") -> [UInt8] {
    json([
        "action": "change-public-keys", "publicKey": ClientKeys().publicKeyBase64,
        "nonce": BrowserNonce.random().base64, "clientID": clientID,
    ])
}

private func mode(of path: String) -> mode_t {
    var info = stat()
    _ = lstat(path, &info)
    return info.st_mode
}

@Suite("The browser socket listener", .serialized)
struct BrowserSocketListenerTests {
    @Test("the extension's first conversation over the socket: keys, hash, associate, test-associate, get-logins")
    func conversation() async throws {
        let fixture = try ListenerFixture()
        await fixture.vault.add(.init(uuid: "u1", host: "shop.example", login: "ada", password: "correct horse"))
        let client = WireExtension(try fixture.connect())
        let (hash, logins) = try await client.firstConversation(url: "https://shop.example/login")
        #expect(hash == "5f2d0c6e1a")
        #expect(client.associationID == "Firefox on this machine")
        #expect(logins.count == 1)
        #expect(logins.first?["login"] as? String == "ada")
        #expect(logins.first?["password"] as? String == "correct horse")
        #expect(await fixture.vault.calls.contains("logins"))
    }

    @Test("the socket is 0600 in a 0700 directory of ours, and the legacy path links to it")
    func permissions() async throws {
        let fixture = try ListenerFixture()
        let location = fixture.runtime.location
        #expect(mode(of: location.socketPath) & S_IFMT == S_IFSOCK)
        #expect(mode(of: location.socketPath) & 0o777 == 0o600)
        #expect(mode(of: BrowserSocketTrust.parentDirectory(of: location.socketPath)) & 0o777 == 0o700)
        #expect(mode(of: fixture.runtime.path + "/app") & 0o777 == 0o700)
        #expect(
            (try? FileManager.default.destinationOfSymbolicLink(atPath: location.legacyPath)) == location.socketPath)
    }

    @Test("two messages in one write get two replies, each in a read of its own")
    func twoMessagesInOneWrite() async throws {
        let fixture = try ListenerFixture()
        let transport = try fixture.connect()
        try transport.sendRaw(keyExchange(clientID: "one") + Array(" \n".utf8) + keyExchange(clientID: "two"))
        let first = try #require(object(try await transport.receive()))
        let second = try #require(object(try await transport.receive()))
        #expect(first["success"] as? String == "true")
        #expect(second["success"] as? String == "true")
        #expect(transport.coalescedReads == 0, "a read returned two messages, which the proxy would pass on as one")
    }

    @Test("one message across several writes gets one reply")
    func oneMessageAcrossWrites() async throws {
        let fixture = try ListenerFixture()
        let transport = try fixture.connect()
        let message = keyExchange()
        let thirds = [message[..<10], message[10..<(message.count / 2)], message[(message.count / 2)...]]
        for part in thirds {
            try transport.sendRaw(Array(part))
            usleep(50_000)
        }
        let reply = try #require(object(try await transport.receive()))
        #expect(reply["success"] as? String == "true")
    }

    @Test("braces and escaped quotes inside strings do not end a message")
    func bracesAndEscapesInStrings() async throws {
        let fixture = try ListenerFixture()
        let transport = try fixture.connect()
        let clientID = #"a}"{b\"}}\\"#
        let message = keyExchange(clientID: clientID)
        #expect(String(decoding: message, as: UTF8.self).contains(#"\""#), "the test's JSON has escaped quotes")
        // Byte by byte in two writes, split inside the string.
        let cut = message.count - 8
        try transport.sendRaw(Array(message[..<cut]))
        usleep(50_000)
        try transport.sendRaw(Array(message[cut...]))
        let reply = try #require(object(try await transport.receive()))
        #expect(reply["success"] as? String == "true")
        // The listener kept the connection: a second message still gets its reply.
        try transport.send(keyExchange())
        #expect(object(try await transport.receive())?["success"] as? String == "true")
    }

    @Test("a message over 1 MiB drops the connection, with nothing answered, and others go on")
    func overSizeRefused() async throws {
        let fixture = try ListenerFixture()
        let transport = try fixture.connect()
        let head = Array(#"{"action":"change-public-keys","clientID":""#.utf8)
        let oversize = head + [UInt8](repeating: UInt8(ascii: "x"), count: 1024 * 1024) + Array(#""}"#.utf8)
        try? transport.sendRaw(oversize)
        #expect(await transport.closedWithoutReply())
        #expect(fixture.log.waitFor("longer than the 1048576 bytes accepted"))
        #expect(await fixture.vault.calls.isEmpty)
        // Exactly at the limit is a message (the engine answers it, here as a malformed one).
        let filler = 1024 * 1024 - head.count - 2
        let exact = head + [UInt8](repeating: UInt8(ascii: "x"), count: filler) + Array(#""}"#.utf8)
        #expect(exact.count == 1024 * 1024)
        let next = try fixture.connect()
        try next.sendRaw(exact)
        let answer = try #require(object(try await next.receive()))
        #expect(answer["errorCode"] != nil, "refused by the engine, not by the size limit: \(answer)")
        try next.send(keyExchange())
        #expect(object(try await next.receive())?["success"] as? String == "true")
    }

    @Test("the engine's refusals are logged by connection, without the message's content")
    func refusalsLogged() async throws {
        let fixture = try ListenerFixture()
        let transport = try fixture.connect()
        try transport.send(
            json([
                "action": "get-logins", "clientID": "c", "message": "U0VDUkVUUEFZTE9BRA==",
                "nonce": BrowserNonce.random().base64,
            ]))
        #expect(object(try await transport.receive())?["errorCode"] != nil)
        #expect(fixture.log.waitFor("connection 1: refused get-logins before any change-public-keys"))
        #expect(!fixture.log.all.contains { $0.contains("U0VDUkVUUEFZTE9BRA") })
    }

    @Test("bytes outside any JSON object drop the connection")
    func garbageRefused() async throws {
        let fixture = try ListenerFixture()
        for garbage in ["hello", "}", "[1]", "\u{0}"] {
            let transport = try fixture.connect()
            try transport.sendRaw(Array(garbage.utf8))
            #expect(await transport.closedWithoutReply(), "\(garbage.debugDescription)")
        }
        #expect(fixture.log.waitFor("outside any JSON object"))
    }

    @Test("a notice reaches every connection, each in a read of its own")
    func noticesReachEveryConnection() async throws {
        let fixture = try ListenerFixture()
        let transports = try (0..<3).map { _ in try fixture.connect() }
        #expect(fixture.waitForConnections(3))
        fixture.listener.broadcast(.databaseLocked)
        fixture.listener.broadcast(.databaseUnlocked)
        for transport in transports {
            #expect(object(try await transport.receive())?["action"] as? String == "database-locked")
            #expect(object(try await transport.receive())?["action"] as? String == "database-unlocked")
            #expect(transport.coalescedReads == 0)
        }
    }

    @Test("connections past the bound are closed at once; the open ones go on")
    func connectionBound() async throws {
        let fixture = try ListenerFixture(maximumConnections: 2, maximumConnectionsPerProcess: 2)
        let open = try (0..<2).map { _ in try fixture.connect() }
        #expect(fixture.waitForConnections(2))
        let third = try fixture.connect()
        #expect(await third.closedWithoutReply())
        #expect(fixture.log.waitFor("2 are already open"))
        try open[1].send(keyExchange())
        #expect(object(try await open[1].receive())?["success"] as? String == "true")
    }

    @Test("stop closes every connection and removes the socket and the legacy link")
    func stopClosesEverything() async throws {
        let fixture = try ListenerFixture()
        let transport = try fixture.connect()
        #expect(fixture.waitForConnections(1))
        fixture.listener.stop()
        #expect(await transport.closedWithoutReply())
        #expect(!FileManager.default.fileExists(atPath: fixture.socketPath))
        var info = stat()
        #expect(lstat(fixture.runtime.location.legacyPath, &info) != 0)
        fixture.listener.stop()
    }

    @Test("a live listener at the path (KeePassXC) is not taken over")
    func runningListenerRefused() async throws {
        let fixture = try ListenerFixture()
        let second = BrowserSocketListener(
            location: fixture.runtime.location, makeEngine: { _, _ in BrowserProtocolEngine(vault: MemoryVault()) })
        #expect(throws: BrowserSocketError.alreadyServed(fixture.socketPath)) { try second.start() }
        let message = BrowserSocketError.alreadyServed(fixture.socketPath).description
        #expect(message.contains(fixture.socketPath) && message.contains("KeePassXC seems to be running"))
        // The first one still answers.
        let transport = try fixture.connect()
        try transport.send(keyExchange())
        #expect(object(try await transport.receive())?["success"] as? String == "true")
    }

    @Test("a stale socket file where nobody listens is replaced")
    func staleSocketReplaced() async throws {
        let fixture = try ListenerFixture(start: false)
        let path = fixture.socketPath
        try BrowserSocketTrust.makePrivateDirectory(BrowserSocketTrust.parentDirectory(of: path))
        let stale = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = try #require(BrowserSocketTrust.address(path))
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(stale, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        #expect(bound == 0)
        close(stale)
        #expect(mode(of: path) & S_IFMT == S_IFSOCK, "a socket file is left behind")
        try fixture.listener.start()
        #expect(fixture.log.waitFor("replaced the stale socket"))
        let transport = try fixture.connect()
        try transport.send(keyExchange())
        #expect(object(try await transport.receive())?["success"] as? String == "true")
    }

    @Test("a file that is not a socket at the path is left alone and named")
    func nonSocketRefused() async throws {
        let fixture = try ListenerFixture(start: false)
        try BrowserSocketTrust.makePrivateDirectory(BrowserSocketTrust.parentDirectory(of: fixture.socketPath))
        FileManager.default.createFile(atPath: fixture.socketPath, contents: Data("keep".utf8))
        #expect(throws: BrowserSocketError.notASocket(fixture.socketPath)) { try fixture.listener.start() }
        #expect(FileManager.default.contents(atPath: fixture.socketPath) == Data("keep".utf8))
    }

    @Test("something else at the legacy path is left as it is")
    func legacyPathLeftAlone() async throws {
        let fixture = try ListenerFixture(start: false)
        let legacy = fixture.runtime.location.legacyPath
        FileManager.default.createFile(atPath: legacy, contents: Data("other".utf8))
        try fixture.listener.start()
        #expect(FileManager.default.contents(atPath: legacy) == Data("other".utf8))
        #expect(fixture.log.waitFor("left \(legacy) as it is"))
        fixture.listener.stop()
        #expect(FileManager.default.contents(atPath: legacy) == Data("other".utf8))
    }

    @Test("a planted socket directory is refused: a symbolic link, a file, group- or other-writable")
    func plantedDirectoryRefused() async throws {
        let runtime = try RuntimeFolder()
        let location = runtime.location
        let directory = BrowserSocketTrust.parentDirectory(of: location.socketPath)
        try FileManager.default.createDirectory(atPath: runtime.path + "/app", withIntermediateDirectories: true)
        func start() throws {
            try BrowserSocketListener(
                location: location, makeEngine: { _, _ in BrowserProtocolEngine(vault: MemoryVault()) }
            )
            .start()
        }
        // A symbolic link to a directory of ours.
        try FileManager.default.createDirectory(atPath: runtime.path + "/elsewhere", withIntermediateDirectories: true)
        #expect(symlink(runtime.path + "/elsewhere", directory) == 0)
        #expect(throws: BrowserSocketError.directoryIsSymbolicLink(directory)) { try start() }
        unlink(directory)
        // A file.
        FileManager.default.createFile(atPath: directory, contents: Data())
        #expect(throws: BrowserSocketError.notADirectory(directory)) { try start() }
        unlink(directory)
        // Writable by the group, then by others.
        for bits: mode_t in [0o770, 0o707, 0o777] {
            mkdir(directory, 0o700)
            chmod(directory, bits)
            #expect(throws: BrowserSocketError.directoryWritableByOthers(directory, mode: bits)) { try start() }
            rmdir(directory)
        }
        // A folder above it writable by others; up to the runtime folder, even a sticky one.
        chmod(runtime.path + "/app", 0o777)
        #expect(throws: BrowserSocketError.ancestorNotTrusted(runtime.path + "/app", owner: getuid(), mode: 0o777)) {
            try start()
        }
        chmod(runtime.path + "/app", 0o1777)
        #expect(throws: BrowserSocketError.directoryWritableByOthers(runtime.path + "/app", mode: 0o1777)) {
            try start()
        }
        chmod(runtime.path + "/app", 0o700)
        // One its owner cannot enter or write (as a 0177 umask made it): named, and left as it is.
        mkdir(directory, 0o600)
        chmod(directory, 0o600)
        #expect(throws: BrowserSocketError.directoryNotUsable(directory, mode: 0o600)) { try start() }
        #expect(mode(of: directory) & 0o777 == 0o600)
        #expect(
            BrowserSocketError.directoryNotUsable(directory, mode: 0o600).description.contains(
                "make it 0700 (chmod 700 \(directory))"))
        rmdir(directory)
        // Readable by others but not writable: served, and its mode, which swcred did not set, kept.
        mkdir(directory, 0o755)
        chmod(directory, 0o755)
        let listener = BrowserSocketListener(
            location: location, makeEngine: { _, _ in BrowserProtocolEngine(vault: MemoryVault()) })
        try listener.start()
        defer { listener.stop() }
        #expect(mode(of: directory) & 0o777 == 0o755)
    }

    @Test("a peer that does not read its replies is dropped, after the one it did not read")
    func stuckPeerDropped() async throws {
        let fixture = try ListenerFixture(drainTimeout: 0.3)
        let transport = try fixture.connect()
        try transport.sendRaw(keyExchange(clientID: "one") + keyExchange(clientID: "two"))
        #expect(fixture.log.waitFor("the peer has not read a message for 0.3 s"))
        #expect(object(try await transport.receive())?["success"] as? String == "true")
        #expect(await transport.closedWithoutReply(), "the second reply was never written")
    }

    @Test("a folder above the socket's that others can write without the sticky bit is refused; a sticky one is fine")
    func ancestorsChecked() async throws {
        let runtime = try RuntimeFolder()
        let open = runtime.path + "/open"
        mkdir(open, 0o700)
        chmod(open, 0o777)
        let socketPath = open + "/private/browser.sock"
        let listener = BrowserSocketListener(
            socketPath: socketPath, makeEngine: { _, _ in BrowserProtocolEngine(vault: MemoryVault()) })
        #expect(throws: BrowserSocketError.ancestorNotTrusted(open, owner: getuid(), mode: 0o777)) {
            try listener.start()
        }
        #expect(
            BrowserSocketError.ancestorNotTrusted(open, owner: 0, mode: 0o777).description.contains(
                "\(open), above the browser socket, is owned by uid 0 with mode 777"))
        var info = stat()
        #expect(lstat(open + "/private", &info) != 0, "nothing was made under it")
        chmod(open, 0o1777)
        try listener.start()
        listener.stop()
    }

    @Test(
        "a folder above the socket's owned by another uid is refused",
        .enabled(if: getuid() == 0, "needs root to chown"))
    func foreignAncestorRefused() async throws {
        let runtime = try RuntimeFolder()
        let theirs = runtime.path + "/theirs"
        mkdir(theirs, 0o755)
        chmod(theirs, 0o755)
        #expect(chown(theirs, 61_002, 61_002) == 0)
        let listener = BrowserSocketListener(
            socketPath: theirs + "/private/browser.sock",
            makeEngine: { _, _ in BrowserProtocolEngine(vault: MemoryVault()) })
        #expect(throws: BrowserSocketError.ancestorNotTrusted(theirs, owner: 61_002, mode: 0o755)) {
            try listener.start()
        }
    }

    @Test(
        "a socket directory owned by another uid is refused", .enabled(if: getuid() == 0, "needs root to chown"))
    func foreignDirectoryRefused() async throws {
        let runtime = try RuntimeFolder()
        let location = runtime.location
        let directory = BrowserSocketTrust.parentDirectory(of: location.socketPath)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        chmod(directory, 0o700)
        #expect(chown(directory, 61_002, 61_002) == 0)
        let listener = BrowserSocketListener(
            location: location, makeEngine: { _, _ in BrowserProtocolEngine(vault: MemoryVault()) })
        #expect(throws: BrowserSocketError.directoryNotOwned(directory, owner: 61_002)) { try listener.start() }
        #expect(
            BrowserSocketError.directoryNotOwned(directory, owner: 61_002).description.contains(
                "belongs to uid 61002, not to you"))
        var info = stat()
        #expect(lstat(location.socketPath, &info) != 0, "no socket was made in it")
    }

    @Test(
        "a peer of another uid is refused before anything is read",
        .enabled(
            if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
            "needs root and setpriv to connect as another uid"))
    func otherUIDRefused() async throws {
        let fixture = try ListenerFixture()
        // Let the stranger reach the socket at all (the 0700 directory would stop it first).
        chmod(fixture.runtime.path, 0o711)
        chmod(fixture.runtime.path + "/app", 0o711)
        chmod(BrowserSocketTrust.parentDirectory(of: fixture.socketPath), 0o711)
        chmod(fixture.socketPath, 0o666)
        let script = """
            import socket, sys
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(10)
            s.connect(sys.argv[1])
            try:
                s.sendall(sys.argv[2].encode())
            except OSError:
                pass
            try:
                data = s.recv(65536)
            except OSError as e:
                data = b""
            print(len(data))
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = [
            "--reuid", "61002", "--regid", "61002", "--clear-groups", "/usr/bin/python3", "-c", script,
            fixture.socketPath, String(decoding: keyExchange(), as: UTF8.self),
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = try await offPool {
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return data
        }
        #expect(process.terminationStatus == 0)
        #expect(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "0")
        #expect(fixture.log.waitFor("runs as uid 61002, not as you (uid 0)"))
        #expect(await fixture.vault.calls.isEmpty)
    }
}

/// Issue 49, item 7: one process of the owner's cannot shut the browser out.
extension BrowserSocketListenerTests {
    @Test("a connection without a key exchange is closed at its deadline, even one that sent part of a message")
    func keyExchangeDeadline() async throws {
        let fixture = try ListenerFixture(keyExchangeTimeout: 0.5)
        let exchanged = try fixture.connect()
        try exchanged.send(keyExchange(clientID: "one"))
        #expect(object(try await exchanged.receive())?["success"] as? String == "true")
        let silent = try fixture.connect()
        let dripping = try fixture.connect()
        try dripping.sendRaw(Array("{\"action\":".utf8))
        #expect(await silent.closedWithoutReply())
        #expect(await dripping.closedWithoutReply())
        #expect(fixture.log.waitFor("no key exchange within 0.5 s"))
        // The exchanged connection has no deadline: served after the others' passed.
        usleep(600_000)
        try exchanged.send(keyExchange(clientID: "two"))
        #expect(object(try await exchanged.receive())?["success"] as? String == "true")
        #expect(fixture.waitForConnections(1))
    }

    @Test("one process holds at most 4 connections; its fifth is closed at once and the four go on")
    func connectionsPerProcess() async throws {
        let fixture = try ListenerFixture()
        let open = try (0..<4).map { _ in try fixture.connect() }
        #expect(fixture.waitForConnections(4))
        let fifth = try fixture.connect()
        #expect(await fifth.closedWithoutReply())
        #expect(fixture.log.waitFor("process \(getpid()) already holds 4"))
        try open[3].send(keyExchange())
        #expect(object(try await open[3].receive())?["success"] as? String == "true")
    }
}
