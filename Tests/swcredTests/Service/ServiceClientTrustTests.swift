import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Clients trust nothing at a path (issue 43): before `swcred unlock`, `lock`, `consent` or a
/// command through `--server` sends anything on a Unix socket, the socket's directory must be the
/// client's own and writable by nobody else, under directories nobody else can change, the path
/// a socket, and the process listening there the client's own uid, or the one `--server-uid`
/// (`SWCRED_SERVER_UID`) names. Otherwise it exits 7 naming the owner it found, and the socket
/// got nothing: for a planted directory not even a connection.
@Suite(
    "swcred as a client: a socket another user could have planted gets nothing", .serialized,
    .enabled(
        if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "needs python3 for the listener"))
struct ServiceClientTrustTests {
    /// The user who plants a socket; it needs no user entry.
    static let attackerUID: UInt32 = 61_010
    static let passphrase = "client trust passphrase 43"
    static let token = "swcred-token-client-trust-43"

    static let asRoot = ConditionTrait.enabled(
        if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
        "needs root and setpriv to act as another uid")

    /// The environment every client run gets: the passphrase and the token a planted socket
    /// would steal, and `XDG_RUNTIME_DIR`, which makes the default socket `RUNTIME/swcred/swcred.sock`.
    static func environment(runtime: String? = nil, _ extra: [String: String] = [:]) -> [String: String] {
        var environment = ["SWCRED_PASSPHRASE": passphrase, "SWCRED_TOKEN": token]
        if let runtime { environment["XDG_RUNTIME_DIR"] = runtime }
        return environment.merging(extra) { _, new in new }
    }

    /// Runs `arguments` and expects exit 7 with `problem` in the message, which says that nothing
    /// was sent and holds neither secret.
    static func expectRefused(
        _ arguments: [String], _ problem: String, environment: [String: String] = environment(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let result = try SwcredProcess.run(arguments, environment: environment)
        #expect(result.status == 7, "\(arguments): \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.contains(problem), "\(arguments): \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.contains("nothing was sent"), "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(
            !result.stderr.contains(passphrase) && !result.stderr.contains(token), sourceLocation: sourceLocation)
    }

    @Test("a socket directory another uid made first gets no connection from unlock, request, lock or consent", asRoot)
    func plantedDirectory() throws {
        let runtime = try TemporaryDirectory(prefix: "swcred-trust")
        chmod(runtime.url.path, 0o1777)  // as /tmp is: anyone may make a directory there first
        let socket = runtime.path("swcred/swcred.sock")
        let listener = try RecordingListener(socketPath: socket, uid: Self.attackerUID)
        let owner = "is owned by uid \(Self.attackerUID)"
        let notYou = "not by you (uid \(getuid()))"
        let environment = Self.environment(runtime: runtime.url.path)
        try Self.expectRefused(["unlock"], owner, environment: environment)  // the default socket
        try Self.expectRefused(["unlock", "--socket", socket], notYou, environment: environment)
        try Self.expectRefused(["request", "--domain", "shop.example", "--server", socket], owner)
        try Self.expectRefused(
            ["request", "--domain", "shop.example"], owner, environment: Self.environment(["SWCRED_SERVER": socket]))
        try Self.expectRefused(["lock"], owner, environment: environment)
        try Self.expectRefused(
            ["generate", "--domain", "shop.example", "--server", socket],
            "--server-uid \(Self.attackerUID) if you trust")

        // consent asks on a terminal, and opens the owner's vault before it talks to the service.
        let home = try TemporaryDirectory(prefix: "swcred-trust-vault")
        let vault = ["SWCRED_VAULT": home.path("vault.sqlite"), "SWCRED_PASSPHRASE": Self.passphrase]
        let made = try SwcredProcess.run(["init", "--kdf", "interactive"], environment: vault)
        #expect(made.status == 0, "\(made.stderr)")
        let terminal = try TerminalSession(
            executable: SwcredProcess.executableURL.path, arguments: ["consent", "--once"],
            environment: vault.merging(["XDG_RUNTIME_DIR": runtime.url.path]) { _, new in new })
        #expect(try terminal.exitStatus() == 7)
        let screen = try terminal.screen()
        #expect(screen.contains(owner), "\(screen)")
        #expect(try listener.record() == .init(connections: 0, received: ""))

        // Positive control: named, the same user's socket is trusted and gets the request.
        let trusted = try SwcredProcess.run(
            ["lock", "--socket", socket, "--server-uid", "\(Self.attackerUID)"], environment: Self.environment())
        #expect(trusted.status != 0 && !trusted.stderr.contains("nothing was sent"), "\(trusted.stderr)")
        #expect(try listener.record().received.hasPrefix("POST /v1/lock HTTP/1.1\r\n"))
    }

    @Test("a socket directory writable by group or others, or under one without the sticky bit, gets nothing")
    func writableDirectories() throws {
        let base = try TemporaryDirectory(prefix: "swcred-trust")
        let directory = base.path("run")
        let socket = directory + "/swcred.sock"
        mkdir(directory, 0o700)
        let listener = try RecordingListener(socketPath: socket, uid: nil)
        for mode: mode_t in [0o770, 0o703] {
            chmod(directory, mode)
            try Self.expectRefused(
                ["lock", "--socket", socket],
                "\(directory) is writable by group or others (mode 0\(String(mode, radix: 8)))")
        }
        chmod(directory, 0o700)
        chmod(base.url.path, 0o777)
        try Self.expectRefused(
            ["unlock", "--socket", socket],
            "\(base.url.path), above the socket, is writable by group or others without the sticky bit")
        #expect(try listener.record() == .init(connections: 0, received: ""))

        chmod(base.url.path, 0o1777)
        let sticky = try SwcredProcess.run(["lock", "--socket", socket], environment: Self.environment())
        #expect(!sticky.stderr.contains("nothing was sent"), "a sticky directory above is fine: \(sticky.stderr)")
        #expect(try listener.record().received.hasPrefix("POST /v1/lock HTTP/1.1\r\n"))
    }

    @Test("a directory above the socket that another uid owns gets nothing, unless --server-uid names it", asRoot)
    func ancestorOfAnotherUID() throws {
        let base = try TemporaryDirectory(prefix: "swcred-trust")
        let directory = base.path("run")
        let socket = directory + "/swcred.sock"
        mkdir(directory, 0o700)
        let listener = try RecordingListener(socketPath: socket, uid: nil)
        chown(base.url.path, Self.attackerUID, Self.attackerUID)
        chmod(base.url.path, 0o755)
        try Self.expectRefused(
            ["lock", "--socket", socket], "\(base.url.path), above the socket, is owned by uid \(Self.attackerUID)")
        #expect(try listener.record() == .init(connections: 0, received: ""))
        let named = try SwcredProcess.run(
            ["lock", "--socket", socket], environment: Self.environment(["SWCRED_SERVER_UID": "\(Self.attackerUID)"]))
        #expect(!named.stderr.contains("nothing was sent"), "\(named.stderr)")
        #expect(try listener.record().received.hasPrefix("POST /v1/lock HTTP/1.1\r\n"))
    }

    @Test(
        "in your own directory, a listener of another uid gets a probe connection and no byte; --server-uid trusts it",
        asRoot)
    func peerOfAnotherUID() throws {
        let base = try TemporaryDirectory(prefix: "swcred-trust")
        let directory = base.path("run")
        let socket = directory + "/swcred.sock"
        // The other uid could write the directory while it bound its socket; now it is private again.
        chmod(base.url.path, 0o755)
        mkdir(directory, 0o700)
        chmod(directory, 0o777)
        let listener = try RecordingListener(socketPath: socket, uid: Self.attackerUID)
        chmod(directory, 0o700)
        let peer = "the process listening on \(socket) runs as uid \(Self.attackerUID), not as you (uid \(getuid()))"
        try Self.expectRefused(["unlock", "--socket", socket], peer)
        try Self.expectRefused(["request", "--domain", "shop.example", "--server", socket], peer)
        try Self.expectRefused(
            ["lock", "--socket", socket, "--server-uid", "61011"], "or the uid you named (uid 61011)")
        #expect(try listener.record().received == "", "the probe carries no byte")

        let unlocked = try SwcredProcess.run(
            ["unlock", "--socket", socket, "--server-uid", "\(Self.attackerUID)"], environment: Self.environment())
        #expect(!unlocked.stderr.contains("nothing was sent"), "\(unlocked.stderr)")
        let sent = try listener.record().received
        #expect(sent.hasPrefix("POST /v1/unlock HTTP/1.1\r\n") && sent.contains(Self.passphrase), "\(sent)")
        let requested = try SwcredProcess.run(
            ["request", "--domain", "shop.example", "--server", socket],
            environment: Self.environment(["SWCRED_SERVER_UID": "\(Self.attackerUID)"]))
        #expect(!requested.stderr.contains("nothing was sent"), "\(requested.stderr)")
        let request = try listener.record().received
        #expect(
            request.hasPrefix("POST /v1/credentials/request HTTP/1.1\r\n")
                && request.contains("Bearer \(Self.token)"), "\(request)")
    }

    @Test("a path that is not a socket, or a symbolic link to one or to its directory, gets nothing")
    func notASocket() throws {
        let base = try TemporaryDirectory(prefix: "swcred-trust")
        let directory = base.path("run")
        let socket = directory + "/swcred.sock"
        mkdir(directory, 0o700)
        let listener = try RecordingListener(socketPath: socket, uid: nil)
        let file = try base.writePrivateFile("run/file.sock", "")
        try Self.expectRefused(["lock", "--socket", file], "\(file) is not a socket")
        let link = directory + "/link.sock"
        symlink(socket, link)
        try Self.expectRefused(["lock", "--socket", link], "\(link) is a symbolic link")
        symlink(directory, base.path("linked"))
        try Self.expectRefused(
            ["lock", "--socket", base.path("linked/swcred.sock")], "\(base.path("linked")) is a symbolic link")
        #expect(try listener.record() == .init(connections: 0, received: ""))
    }

    @Test("an owner the system knows is named with their user name: root's /tmp, or as root a folder of nobody's")
    func ownerNamedByUserName() throws {
        guard getuid() == 0 else {
            try Self.expectRefused(
                ["lock", "--socket", "/tmp/swcred-trust-\(getpid()).sock"], "/tmp is owned by uid 0 (root), not by")
            return
        }
        let base = try TemporaryDirectory(prefix: "swcred-trust")
        let directory = base.path("run")
        mkdir(directory, 0o700)
        #expect(chown(directory, 65534, 65534) == 0)
        try Self.expectRefused(
            ["lock", "--socket", directory + "/swcred.sock"], "\(directory) is owned by uid 65534 (nobody), not by")
    }

    @Test("a symbolic link above the socket's directory is followed: an open directory behind it gets nothing")
    func linkedAncestorIsResolved() throws {
        let base = try TemporaryDirectory(prefix: "swcred-trust")
        let open = base.path("open")
        mkdir(open, 0o700)
        mkdir(open + "/inner", 0o700)
        mkdir(open + "/inner/run", 0o700)
        let listener = try RecordingListener(socketPath: open + "/inner/run/swcred.sock", uid: nil)
        symlink(open + "/inner", base.path("link"))
        chmod(open, 0o777)
        // Named through the link, every directory on the named path is the user's own and closed;
        // the open one is only on the path the link resolves to.
        try Self.expectRefused(
            ["lock", "--socket", base.path("link/run/swcred.sock")],
            "\(open), above the socket, is writable by group or others without the sticky bit")
        #expect(try listener.record() == .init(connections: 0, received: ""))
    }

    @Test(
        "/ and // name no socket file: refused as bad input before any check of the directories",
        arguments: ["/", "//"])
    func rootIsNoSocket(path: String) throws {
        let result = try SwcredProcess.run(["lock", "--socket", path], environment: Self.environment())
        #expect(result.status == 2, "\(result.stderr)")
        #expect(
            result.stderr.contains("swcred: error: \(path) cannot be a service's socket: name the socket file"),
            "\(result.stderr)")
    }

    @Test("your own socket gets the request, at /v1/... (not //v1/...)")
    func requestPath() throws {
        let base = try TemporaryDirectory(prefix: "swcred-trust")
        let socket = base.path("run/swcred.sock")
        let listener = try RecordingListener(socketPath: socket, uid: nil)
        chmod(base.path("run"), 0o700)
        _ = try SwcredProcess.run(["lock", "--socket", socket], environment: Self.environment())
        #expect(try listener.record().received.hasPrefix("POST /v1/lock HTTP/1.1\r\n"))
        _ = try SwcredProcess.run(
            ["request", "--domain", "shop.example", "--server", socket], environment: Self.environment())
        #expect(try listener.record().received.hasPrefix("POST /v1/credentials/request HTTP/1.1\r\n"))
    }

    @Test(
        "a client that closed its standard input (as a daemon does) checks and reaches the service: its probe gets descriptor 0"
    )
    func probeOnDescriptorZero() throws {
        let base = try TemporaryDirectory(prefix: "swcred-trust")
        let socket = base.path("run/swcred.sock")
        let listener = try RecordingListener(socketPath: socket, uid: nil)
        chmod(base.path("run"), 0o700)
        let mark = base.path("probe-on-0")
        let result = try SwcredProcess.run(
            ["lock", "--socket", socket],
            environment: Self.environment([
                "LD_PRELOAD": try Self.stdinClosingShim(in: base), "SWCRED_TEST_ZERO_MARK": mark,
            ]))
        #expect(FileManager.default.fileExists(atPath: mark), "the probe got descriptor 0: \(result.stderr)")
        #expect(!result.stderr.contains("cannot make a socket"), "\(result.stderr)")
        #expect(try listener.record().received.hasPrefix("POST /v1/lock HTTP/1.1\r\n"), "\(result.stderr)")
    }

    /// Builds a library for `LD_PRELOAD` that puts the client's non-blocking Unix socket on
    /// descriptor 0 in place of standard input (a pipe or a device, never a descriptor the runtime
    /// made), in one step (`dup3`) so that no other thread takes 0 meanwhile, and marks
    /// `SWCRED_TEST_ZERO_MARK` when it does: as if the client had closed its standard input, as a
    /// daemon does. Swift's runtime takes descriptor 0 at start-up when a process starts without
    /// one, so only a process that closes its standard input later makes its probe there.
    private static func stdinClosingShim(in directory: TemporaryDirectory) throws -> String {
        try PreloadLibrary.build(
            "stdin-closing",
            source: """
                #define _GNU_SOURCE
                #include <dlfcn.h>
                #include <fcntl.h>
                #include <stdlib.h>
                #include <sys/socket.h>
                #include <sys/stat.h>
                #include <unistd.h>
                int socket(int domain, int type, int protocol) {
                    int (*next)(int, int, int) = dlsym(RTLD_NEXT, "socket");
                    int descriptor = next(domain, type, protocol);
                    struct stat info;
                    if (descriptor > 0 && domain == AF_UNIX && (type & SOCK_NONBLOCK) && fstat(0, &info) == 0
                        && (S_ISFIFO(info.st_mode) || S_ISCHR(info.st_mode))
                        && dup3(descriptor, 0, O_CLOEXEC) == 0) {
                        close(descriptor);
                        descriptor = 0;
                        const char *mark = getenv("SWCRED_TEST_ZERO_MARK");
                        if (mark) close(open(mark, O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
                    }
                    return descriptor;
                }
                """, in: directory.url.path)
    }

    @Test("--server-uid and SWCRED_SERVER_UID take a uid, and --server-uid goes with a service")
    func serverUIDInput() throws {
        for text in ["mallory", "-1", "+5", "4294967295", "1e3"] {
            let result = try SwcredProcess.run(["lock", "--server-uid=\(text)"])
            #expect(result.status == 2, "\(text): \(result.stderr)")
            #expect(result.stderr.contains("--server-uid \"\(text)\" is not a uid"), "\(result.stderr)")
        }
        let fromEnvironment = try SwcredProcess.run(["lock"], environment: ["SWCRED_SERVER_UID": "x"])
        #expect(fromEnvironment.stderr.contains("SWCRED_SERVER_UID \"x\" is not a uid"), "\(fromEnvironment.stderr)")
        let direct = try SwcredProcess.run(["request", "--domain", "shop.example", "--server-uid", "0"])
        #expect(direct.status == 2 && direct.stderr.contains("--server-uid goes with a service"), "\(direct.stderr)")
    }
}
