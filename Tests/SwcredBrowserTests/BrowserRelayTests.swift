import Foundation
import TestSupport
import Testing

@testable import SwcredBrowser

#if canImport(Glibc)
    import Glibc
#endif

/// The built `swcred`, beside the test bundle.
enum BuiltSwcred {
    static var path: String? {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent(),
            Interop.root.appendingPathComponent(".build/debug"),
        ]
        return candidates.map { $0.appendingPathComponent("swcred").path }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    static func require() throws -> String {
        guard let path else { throw WireFailure("the swcred binary is not built: run `swift build` first") }
        return path
    }
}

/// Debian's proxy (package keepassxc, 2.7.4), which Scripts/bootstrap installs.
let keepassxcProxy = "/usr/bin/keepassxc-proxy"

/// Messages relayed through a native-messaging host, started the way a browser starts it: the
/// same conversation through Debian's keepassxc-proxy and through `swcred browser host`.
@Suite("Native-messaging hosts relay to the listener", .serialized)
struct BrowserRelayTests {
    /// The first conversation through `transport`, with the vault holding one login.
    private func converse(_ fixture: ListenerFixture, through transport: any WireTransport) async throws {
        await fixture.vault.add(
            .init(
                uuid: "8f3c6a2b9d1e4f5a8b7c6d5e4f3a2b1c", host: "shop.example", login: "ada", password: "correct horse",
                otpauth: "otpauth://totp/shop:ada?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"))
        let client = WireExtension(transport)
        let (hash, logins) = try await client.firstConversation(url: "https://shop.example/login")
        #expect(hash == "5f2d0c6e1a")
        #expect(client.associationID == "Firefox on this machine")
        #expect(logins.map { $0["login"] as? String } == ["ada"])
        #expect(logins.first?["password"] as? String == "correct horse")
        // A notice arrives as a message of its own, between replies.
        fixture.listener.broadcast(.databaseLocked)
        #expect(try await client.receiveObject()["action"] as? String == "database-locked")
        let totp = try await client.send("get-totp", ["uuid": "8f3c6a2b9d1e4f5a8b7c6d5e4f3a2b1c"])
        #expect(
            totp.message?["totp"] as? String == "081804",
            "\(totp.reply) RFC 6238's SHA-1 vector at 1111111109 (07081804)")
    }

    @Test(
        "Debian's keepassxc-proxy, started as a browser starts it, relays the conversation",
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: keepassxcProxy), "Scripts/bootstrap installs keepassxc"))
    func keepassxcProxyRelays() async throws {
        let fixture = try ListenerFixture()
        // Firefox's arguments: the manifest's path and the extension's id.
        let proxy = try NativeHostTransport(
            executable: keepassxcProxy,
            arguments: [
                "/usr/lib/mozilla/native-messaging-hosts/org.keepassxc.keepassxc_browser.json",
                "keepassxc-browser@keepassxc.org",
            ],
            environment: [
                "XDG_RUNTIME_DIR": fixture.runtime.path, "PATH": "/usr/bin:/bin", "HOME": fixture.runtime.path,
            ])
        try await converse(fixture, through: proxy)
        try await largeReply(fixture, count: 100, through: proxy)
        let (status, _) = try await proxy.finish()
        #expect(status == 0)
    }

    /// A get-logins reply of `count` logins arrives as one message: about 23 KB for 100, 450 KB for
    /// 2,000.
    ///
    /// keepassxc-proxy forwards whatever one read of the socket returns as one message, and the
    /// kernel queues a Unix stream write in pieces of about 32 KB, so a longer reply can reach the
    /// browser cut in two through the proxy (as from KeePassXC itself: seen here once in four runs
    /// with 2,000 logins). The proxy's test stays under that; `swcred browser host` splits by
    /// JSON object and carries the long one.
    private func largeReply(_ fixture: ListenerFixture, count: Int, through transport: any WireTransport) async throws {
        for index in 0..<count {
            await fixture.vault.add(
                .init(
                    uuid: String(format: "%032x", index + 1), host: "big.example", login: "user\(index)",
                    password: String(repeating: "p", count: 64)))
        }
        let client = WireExtension(transport)
        _ = try await client.firstConversation(url: "https://big.example/")
        let logins = try await client.send("get-logins", ["url": "https://big.example/", "keys": client.keysField])
        #expect((logins.message?["entries"] as? [[String: Any]])?.count == count)
    }

    @Test("swcred browser host relays the same conversation, and exits 0 when the browser closes its input")
    func swcredHostRelays() async throws {
        let fixture = try ListenerFixture()
        let host = try NativeHostTransport(
            executable: try BuiltSwcred.require(),
            arguments: ["browser", "host", "chrome-extension://oboonakemofpalcgghocfoadofidjkkk/"],
            environment: [
                "XDG_RUNTIME_DIR": fixture.runtime.path, "PATH": "/usr/bin:/bin", "HOME": fixture.runtime.path,
            ])
        try await converse(fixture, through: host)
        try await largeReply(fixture, count: 2000, through: host)
        let (status, stderr) = try await host.finish()
        #expect(status == 0, "\(stderr)")
        #expect(stderr.isEmpty)
    }

    @Test("swcred browser host relays the same conversation when each read, write, send and recv is interrupted once")
    func swcredHostRetriesInterruptedCalls() async throws {
        let fixture = try ListenerFixture()
        let interrupting = try PreloadLibrary.build(
            "interrupting", source: PreloadLibrary.interruptingSource, in: fixture.runtime.path)
        let host = try NativeHostTransport(
            executable: try BuiltSwcred.require(),
            arguments: ["browser", "host", "chrome-extension://oboonakemofpalcgghocfoadofidjkkk/"],
            environment: [
                "XDG_RUNTIME_DIR": fixture.runtime.path, "PATH": "/usr/bin:/bin", "HOME": fixture.runtime.path,
                "LD_PRELOAD": interrupting,
            ])
        try await converse(fixture, through: host)
        try await largeReply(fixture, count: 2000, through: host)
        let (status, stderr) = try await host.finish()
        #expect(status == 0, "\(stderr)")
        #expect(stderr.isEmpty)
    }

    @Test("swcred browser host --socket and SWCRED_BROWSER_SOCKET name the socket")
    func hostSocketOption() async throws {
        let fixture = try ListenerFixture()
        let swcred = try BuiltSwcred.require()
        for (arguments, environment) in [
            (["browser", "host", "--socket", fixture.socketPath], ["PATH": "/usr/bin:/bin"]),
            (["browser", "host"], ["PATH": "/usr/bin:/bin", "SWCRED_BROWSER_SOCKET": fixture.socketPath]),
        ] {
            let host = try NativeHostTransport(executable: swcred, arguments: arguments, environment: environment)
            try host.send(keyExchange())
            #expect(object(try await host.receive())?["success"] as? String == "true")
            #expect(try await host.finish().status == 0)
        }
    }

    @Test("swcred browser host with nothing listening says to start the service, and exits 7")
    func hostWithoutListener() async throws {
        let runtime = try RuntimeFolder()
        let host = try NativeHostTransport(
            executable: try BuiltSwcred.require(), arguments: ["browser", "host"],
            environment: ["XDG_RUNTIME_DIR": runtime.path, "PATH": "/usr/bin:/bin"])
        let (status, stderr) = try await host.finish()
        #expect(status == 7)
        #expect(try await host.receive() == nil, "nothing on standard output, which the browser reads as messages")
        #expect(stderr.contains("nothing listens on \(runtime.location.socketPath)"), "\(stderr)")
        #expect(stderr.contains("start `swcred serve --browser`"), "\(stderr)")
        // A stale socket file, with nobody behind it, is the same.
        try BrowserSocketTrust.makePrivateDirectory(BrowserSocketTrust.parentDirectory(of: runtime.location.socketPath))
        let stale = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = try #require(BrowserSocketTrust.address(runtime.location.socketPath))
        _ = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(stale, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        close(stale)
        let again = try NativeHostTransport(
            executable: try BuiltSwcred.require(), arguments: ["browser", "host"],
            environment: ["XDG_RUNTIME_DIR": runtime.path, "PATH": "/usr/bin:/bin"])
        let second = try await again.finish()
        #expect(second.status == 7)
        #expect(second.stderr.contains("start `swcred serve --browser`"), "\(second.stderr)")
    }

    @Test("swcred browser host refuses a socket directory others can write, and sends nothing")
    func hostRefusesWritableDirectory() async throws {
        let fixture = try ListenerFixture()
        let directory = BrowserSocketTrust.parentDirectory(of: fixture.socketPath)
        chmod(directory, 0o777)
        defer { chmod(directory, 0o700) }
        let host = try NativeHostTransport(
            executable: try BuiltSwcred.require(), arguments: ["browser", "host", "--socket", fixture.socketPath],
            environment: ["PATH": "/usr/bin:/bin"])
        let (status, stderr) = try await host.finish()
        #expect(status == 7)
        #expect(stderr.contains("\(directory) is writable by others (mode 777)"), "\(stderr)")
        #expect(fixture.listener.connectionCount == 0)
    }

    @Test("swcred browser host refuses a socket under a folder others can write, and sends nothing")
    func hostRefusesWritableAncestor() async throws {
        let runtime = try RuntimeFolder()
        let open = runtime.path + "/open"
        mkdir(open, 0o700)
        let socketPath = open + "/private/browser.sock"
        let listener = BrowserSocketListener(
            socketPath: socketPath, makeEngine: { _, _ in BrowserProtocolEngine(vault: MemoryVault()) })
        try listener.start()
        defer { listener.stop() }
        chmod(open, 0o777)
        let host = try NativeHostTransport(
            executable: try BuiltSwcred.require(), arguments: ["browser", "host", "--socket", socketPath],
            environment: ["PATH": "/usr/bin:/bin"])
        let (status, stderr) = try await host.finish()
        #expect(status == 7)
        #expect(
            stderr.contains("\(open), above the browser socket, is owned by uid \(getuid()) with mode 777"), "\(stderr)"
        )
        #expect(listener.connectionCount == 0)
    }

    @Test(
        "swcred browser host refuses a listener of another uid",
        .enabled(if: getuid() == 0, "needs root to listen as another uid"))
    func hostRefusesForeignListener() async throws {
        let runtime = try RuntimeFolder()
        let path = runtime.path + "/browser.sock"
        // Binds as root in our directory, then listens as uid 61002: SO_PEERCRED reports the
        // credentials of the listen() call.
        let script = """
            import os, socket, sys, time
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.bind(sys.argv[1])
            os.setgroups([]); os.setgid(61002); os.setuid(61002)
            s.listen(4)
            print("ready", flush=True)
            conn, _ = s.accept()
            data = conn.recv(65536)
            print(len(data), flush=True)
            """
        let listener = Process()
        listener.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        listener.arguments = ["-c", script, path]
        let output = Pipe()
        listener.standardOutput = output
        try listener.run()
        defer { if listener.isRunning { listener.terminate() } }
        try await offPool {
            var ready = Data()
            while !String(decoding: ready, as: UTF8.self).contains("ready") {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                ready += chunk
            }
        }
        let host = try NativeHostTransport(
            executable: try BuiltSwcred.require(), arguments: ["browser", "host", "--socket", path],
            environment: ["PATH": "/usr/bin:/bin"])
        let (status, stderr) = try await host.finish()
        #expect(status == 7)
        #expect(stderr.contains("runs as uid 61002, not as you (uid 0)"), "\(stderr)")
        let received = try await offPool { output.fileHandleForReading.readDataToEndOfFile() }
        #expect(String(decoding: received, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "0")
    }

    @Test("swcred browser host refuses a frame over 1 MiB from the browser, naming it, before reading it")
    func hostRefusesOversizeFrame() async throws {
        let fixture = try ListenerFixture()
        let host = try NativeHostTransport(
            executable: try BuiltSwcred.require(), arguments: ["browser", "host", "--socket", fixture.socketPath],
            environment: ["PATH": "/usr/bin:/bin"])
        try host.sendRaw(header(1024 * 1024 + 1))
        let (status, stderr) = try await host.finish()
        #expect(status == 1)
        #expect(stderr.contains("announces 1048577 bytes, more than the 1048576 bytes a host accepts"), "\(stderr)")
    }

    @Test("swcred browser host exits 7 when the service stops under it")
    func hostListenerStops() async throws {
        let fixture = try ListenerFixture()
        let host = try NativeHostTransport(
            executable: try BuiltSwcred.require(), arguments: ["browser", "host", "--socket", fixture.socketPath],
            environment: ["PATH": "/usr/bin:/bin"])
        try host.send(keyExchange())
        #expect(object(try await host.receive())?["success"] as? String == "true")
        fixture.listener.stop()
        // The host ends by itself, its standard input still open.
        let process = host.process
        try await offPool { process.waitUntilExit() }
        let (status, stderr) = try await host.finish()
        #expect(status == 7)
        #expect(stderr.contains("the service closed the browser socket"), "\(stderr)")
    }

    @Test("swcred browser host --help teaches where it connects and what it checks")
    func hostHelp() async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try BuiltSwcred.require())
        process.arguments = ["browser", "host", "--help"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        for phrase in [
            "org.keepassxc.KeePassXC.BrowserServer", "--socket", "swcred serve --browser", "SWCRED_BROWSER_SOCKET",
            "swcred browser install",
        ] {
            #expect(text.contains(phrase), "\(phrase)")
        }
    }
}

extension BrowserRelayTests {
    /// Issue 49, item 7: with a bound of 16 connections and no deadline, 16 idle connections of
    /// one process left the real browser's host nothing.
    @Test("a process that opens the socket 16 times and sends nothing does not shut out swcred browser host")
    func idleProcessDoesNotShutOutTheHost() async throws {
        let fixture = try ListenerFixture()
        let hog = Process()
        hog.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        hog.arguments = [
            "-c",
            """
            import socket, sys
            held = []
            for _ in range(16):
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(sys.argv[1])
                held.append(s)
            print("ready", flush=True)
            sys.stdin.read()
            """,
            fixture.socketPath,
        ]
        let input = Pipe()
        let output = Pipe()
        hog.standardInput = input
        hog.standardOutput = output
        try hog.run()
        defer {
            try? input.fileHandleForWriting.close()
            hog.waitUntilExit()
        }
        let ready = try await offPool {
            var ready = Data()
            while !String(decoding: ready, as: UTF8.self).contains("ready") {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                ready += chunk
            }
            return ready
        }
        #expect(String(decoding: ready, as: UTF8.self).contains("ready"), "the process holds its 16 connections")
        #expect(fixture.log.waitFor("process \(hog.processIdentifier) already holds 4"))
        let host = try NativeHostTransport(
            executable: try BuiltSwcred.require(), arguments: ["browser", "host", "--socket", fixture.socketPath],
            environment: ["PATH": "/usr/bin:/bin"])
        try host.send(keyExchange())
        #expect(object(try await host.receive())?["success"] as? String == "true")
        let (status, stderr) = try await host.finish()
        #expect(status == 0, "\(stderr)")
    }
}
