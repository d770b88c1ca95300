import Foundation
import Testing

@testable import TestSupport

/// A client named a service socket that a service left behind when it died: the file is there,
/// its directory passes every check, and nothing listens. The client says no service answers, at
/// the path as the user gave it, and exits 7. And a client out of file descriptors says so,
/// rather than trying a socket it could not make.
@Suite("swcred --server: a socket nobody listens on, or none to be made")
struct ServiceStaleSocketTests {
    @Test("a stale socket, named by a relative path: exit 7, no service at that path, connection refused")
    func staleSocket() throws {
        let directory = try TemporaryDirectory()
        try Self.makeStaleSocket(in: directory)
        let result = try SwcredProcess.run(
            ["request", "--domain", "shop.example", "--server", "run/swcred.sock"],
            environment: ["SWCRED_TOKEN": Self.token], currentDirectory: directory.path(""))
        #expect(result.status == 7, "\(result.stderr)")
        #expect(
            result.stderr.contains("no swcred service answers at run/swcred.sock (Connection refused)"),
            "\(result.stderr)")
    }

    @Test("a client that cannot make a socket (EMFILE, injected) says so and exits 1, trying nothing")
    func noSocketToMake() throws {
        let directory = try TemporaryDirectory()
        try Self.makeStaleSocket(in: directory)
        let failing = try PreloadLibrary.build(
            "failing-socket",
            source: """
                #define _GNU_SOURCE
                #include <dlfcn.h>
                #include <errno.h>
                #include <sys/socket.h>
                int socket(int domain, int type, int protocol) {
                    int (*next)(int, int, int) = dlsym(RTLD_NEXT, "socket");
                    if (domain == AF_UNIX) { errno = EMFILE; return -1; }
                    return next(domain, type, protocol);
                }
                """, in: directory.url.path)
        let result = try SwcredProcess.run(
            ["request", "--domain", "shop.example", "--server", directory.path("run/swcred.sock")],
            environment: ["SWCRED_TOKEN": Self.token, "LD_PRELOAD": failing])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(
            result.stderr.contains("cannot make a socket to check the service: Too many open files"),
            "\(result.stderr)")
    }

    /// The socket's directory (`run`, as the client's second `lstat` of it finds it gone) or the
    /// directory above it (`above`, at the client's first `stat` of it, which follows links).
    @Test(
        "a socket directory, or one above it, that vanishes while the client checks it: exit 7, no service at the socket, the directory named",
        arguments: [("lstat", "run", 1), ("stat", "above", 0)])
    func directoryVanishes(call: String, vanishing name: String, after looks: Int) throws {
        let directory = try TemporaryDirectory()
        let run = directory.path("above/run")
        try FileManager.default.createDirectory(
            atPath: run, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let gone = name == "run" ? run : directory.path("above")
        let vanishing = try Self.failingLook(call, of: gone, errno: ENOENT, after: looks, in: directory)
        let result = try SwcredProcess.run(
            ["request", "--domain", "shop.example", "--server", run + "/swcred.sock"],
            environment: ["SWCRED_TOKEN": Self.token].merging(vanishing) { $1 })
        #expect(result.status == 7, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "no swcred service answers at \(run)/swcred.sock (\(gone): No such file or directory)"),
            "\(result.stderr)")
    }

    @Test("a socket whose full path is too long for a socket address is refused, naming that full path")
    func socketPathTooLong() throws {
        let directory = try TemporaryDirectory()
        let deep = directory.path(String(repeating: "d", count: 40) + "/" + String(repeating: "e", count: 40) + "/run")
        try FileManager.default.createDirectory(
            atPath: deep, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        // Bound through a relative name from its own folder: the full path is past the 108 bytes
        // of a socket address.
        let bind = Process()
        bind.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        bind.arguments = ["-c", "import socket; socket.socket(socket.AF_UNIX).bind('swcred.sock')"]
        bind.currentDirectoryURL = URL(fileURLWithPath: deep)
        try bind.run()
        bind.waitUntilExit()
        #expect(bind.terminationStatus == 0)
        let full = deep + "/swcred.sock"
        #expect(full.utf8.count > 108)

        let result = try SwcredProcess.run(
            ["request", "--domain", "shop.example", "--server", "run/swcred.sock"],
            environment: ["SWCRED_TOKEN": Self.token],
            currentDirectory: (deep as NSString).deletingLastPathComponent)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(
            result.stderr.contains("\(full) is too long for a Unix socket: name a shorter path to the service"),
            "\(result.stderr)")
    }

    @Test("a socket directory the client may not look at (EACCES) is refused as uncheckable, naming it (exit 7)")
    func directoryUncheckable() throws {
        let directory = try TemporaryDirectory()
        let run = directory.path("guarded")
        try FileManager.default.createDirectory(
            atPath: run, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        let guarded = try Self.failingLook(of: run, errno: EACCES, after: 0, in: directory)
        let result = try SwcredProcess.run(
            ["request", "--domain", "shop.example", "--server", run + "/swcred.sock"],
            environment: ["SWCRED_TOKEN": Self.token].merging(guarded) { $1 })
        #expect(result.status == 7, "\(result.stderr)")
        #expect(result.stderr.contains("cannot check \(run): Permission denied"), "\(result.stderr)")
        #expect(!result.stderr.contains("no swcred service answers"), "\(result.stderr)")
    }

    /// The environment that makes the client's `call` (`lstat`, or `stat`, which follows links)
    /// of `path` fail with `errno`, after the first `after` looks succeed (a library for
    /// `LD_PRELOAD`, built in `directory`).
    private static func failingLook(
        _ call: String = "lstat", of path: String, errno code: Int32, after looks: Int,
        in directory: TemporaryDirectory
    ) throws -> [String: String] {
        let library = try PreloadLibrary.build(
            "failing-\(call)",
            source: """
                #define _GNU_SOURCE
                #include <dlfcn.h>
                #include <errno.h>
                #include <stdlib.h>
                #include <string.h>
                #include <sys/stat.h>
                static int looks;
                int \(call)(const char *path, struct stat *info) {
                    int (*next)(const char *, struct stat *) = dlsym(RTLD_NEXT, "\(call)");
                    const char *target = getenv("SWCRED_TEST_LSTAT_PATH");
                    if (target && strcmp(path, target) == 0
                        && looks++ >= atoi(getenv("SWCRED_TEST_LSTAT_AFTER"))) {
                        errno = atoi(getenv("SWCRED_TEST_LSTAT_ERRNO"));
                        return -1;
                    }
                    return next(path, info);
                }
                """, in: directory.url.path)
        return [
            "LD_PRELOAD": library, "SWCRED_TEST_LSTAT_PATH": path, "SWCRED_TEST_LSTAT_ERRNO": "\(code)",
            "SWCRED_TEST_LSTAT_AFTER": "\(looks)",
        ]
    }

    private static let token = "swcred_app_" + String(repeating: "A", count: 43)

    /// A socket file at `run/swcred.sock` in `directory` (0700), bound by a process that then
    /// exited: nothing listens on it.
    private static func makeStaleSocket(in directory: TemporaryDirectory) throws {
        let run = directory.path("run")
        try FileManager.default.createDirectory(
            atPath: run, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        let bind = Process()
        bind.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        bind.arguments = [
            "-c", "import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])", run + "/swcred.sock",
        ]
        try bind.run()
        bind.waitUntilExit()
        #expect(bind.terminationStatus == 0)
    }
}
