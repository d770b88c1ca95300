import CSpawnSupport
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A real PostgreSQL for the tests, never a mock: the cluster `Scripts/postgres start` runs (once
/// per test process; the script is idempotent and serialises concurrent callers), or the one
/// `SWCRED_TEST_POSTGRES_URL` names. Each test gets a database of its own, made by ``freshDatabase()``.
///
/// Without PostgreSQL 15 (Scripts/bootstrap installs it) the tests that need it fail with the
/// command to run; they never skip.
public enum TestPostgres {
    /// The failure to start or reach the cluster.
    public struct Unavailable: Error, CustomStringConvertible {
        public let description: String
    }

    private static let cluster = Mutex<String?>(nil)

    /// The checkout's root (for Scripts/postgres).
    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    /// The URL of the cluster's administrative database, starting the cluster the first time.
    public static func clusterURL() throws -> String {
        try cluster.withLock { url in
            if let url { return url }
            if let given = ProcessInfo.processInfo.environment["SWCRED_TEST_POSTGRES_URL"], !given.isEmpty {
                url = given
                return given
            }
            let result = try run(
                packageRoot.appendingPathComponent("Scripts/postgres").path, ["start"])
            guard result.status == 0, let line = result.stdout.split(separator: "\n").last else {
                throw Unavailable(
                    description:
                        "Scripts/postgres start failed (\(result.status)): \(result.stderr). Run Scripts/bootstrap to install PostgreSQL 15."
                )
            }
            url = String(line)
            return String(line)
        }
    }

    /// A new, empty database on the cluster, owned by the cluster's role; its URL.
    public static func freshDatabase() throws -> String {
        let admin = try clusterURL()
        let name = "swcred_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try psql(admin, "CREATE DATABASE \(name)")
        guard var components = URLComponents(string: admin) else {
            throw Unavailable(description: "cannot parse \(admin)")
        }
        components.path = "/" + name
        return components.string!
    }

    /// Runs `sql` with `psql` on the database of `url`, as its owner would from a shell (the
    /// attacker of the tamper tests); returns what it printed (unaligned, tuples only).
    @discardableResult
    public static func psql(_ url: String, _ sql: String) throws -> String {
        let result = try run("/usr/bin/psql", ["-X", "-v", "ON_ERROR_STOP=1", "-Atq", "-d", url, "-c", sql])
        guard result.status == 0 else {
            throw Unavailable(description: "psql failed (\(result.status)) on \(sql): \(result.stderr)")
        }
        return result.stdout
    }

    /// Runs `executable` with posix_spawn and waitpid rather than Foundation's Process, for the
    /// reason ``TerminalSession`` gives: Process learns of a child's exit through a descriptor the
    /// child inherits, and the server that `Scripts/postgres start` leaves running held it open, so
    /// the first test to start the cluster waited for ever. The child gets the three standard
    /// descriptors only (its output goes to files), no blocked signals and every signal's default
    /// action, so that the server it starts stops on `pg_ctl stop`.
    private static func run(
        _ executable: String, _ arguments: [String]
    ) throws -> (
        status: Int32, stdout: String, stderr: String
    ) {
        let directory = try TemporaryDirectory(prefix: "swcred-postgres-run")
        let outPath = directory.path("stdout")
        let errPath = directory.path("stderr")
        let words = [executable] + arguments
        var argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let closing = cspawn_add_close_from(&actions, 3)
        guard closing == 0 else {
            throw Unavailable(
                description: "cannot set up \(executable)'s descriptors: \(String(cString: strerror(closing)))")
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        var allSignals = sigset_t()
        sigemptyset(&noSignals)
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid = pid_t()
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, &argv, environ)
        guard spawned == 0 else {
            throw Unavailable(description: "cannot start \(executable): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        let output = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        let errors = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        return (exitStatus, output, errors)
    }
}
