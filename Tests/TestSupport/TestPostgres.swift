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
            dropAbandonedDatabases(String(line))
            return String(line)
        }
    }

    /// The prefix of every test database's name; the creating process's id follows it.
    private static let databasePrefix = "swcred_test_"

    /// Drops the test databases of processes that have ended: the shared cluster outlives test
    /// runs, and without this every run would leave its databases (about 8 MB each) behind. A
    /// database of a running process, or one in use, is left alone.
    private static func dropAbandonedDatabases(_ admin: String) {
        guard
            let names = try? psql(
                admin, "SELECT datname FROM pg_database WHERE starts_with(datname, '\(databasePrefix)')")
        else { return }
        for name in names.split(separator: "\n").map(String.init) {
            let process = name.dropFirst(databasePrefix.count).prefix { $0 != "_" }
            if let id = pid_t(process), kill(id, 0) == 0 || errno != ESRCH { continue }
            _ = try? psql(admin, "DROP DATABASE IF EXISTS \(name)")
        }
    }

    /// A new, empty database on the cluster, owned by the cluster's role; its URL.
    public static func freshDatabase() throws -> String {
        try freshDatabase(on: try clusterURL())
    }

    /// A new, empty database on the cluster whose administrative database is `admin`; its URL.
    public static func freshDatabase(on admin: String) throws -> String {
        let name =
            "\(databasePrefix)\(getpid())_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
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

    /// A cluster of a test's own, in a directory of its own, for the tests that stop the server
    /// under load (which the shared cluster's other users must never see). ``stop()`` removes it.
    public final class PrivateCluster: Sendable {
        private let directory: TemporaryDirectory
        /// The URL of its administrative database.
        public let url: String

        /// Creates and starts the cluster.
        public init() throws {
            // Short: the server's socket path must fit in sun_path's 108 bytes.
            directory = try TemporaryDirectory(prefix: "swpg")
            // Run as root, the script runs the server as `postgres`, which must pass through.
            try FileManager.default.setAttributes([.posixPermissions: 0o711], ofItemAtPath: directory.url.path)
            url = try Self.script("start", directory: directory)
        }

        /// Stops the server at once (open connections are ended), keeping its data.
        public func halt() throws { _ = try Self.script("halt", directory: directory) }

        /// Starts the halted server again, with the same databases.
        public func start() throws { _ = try Self.script("start", directory: directory) }

        /// Stops the server and removes the cluster.
        public func stop() { _ = try? Self.script("stop", directory: directory) }

        /// Makes the index `index` of the database at `database` lie, as whoever can write the
        /// server's files can: with the server halted, the heap addresses of the two entries whose
        /// text key columns are `first` and `second` are swapped in the index's file, so a lookup
        /// of either finds the other's row. The server is started again.
        ///
        /// A btree leaf entry is its heap address (6 bytes), 2 bytes of flags and length, then its
        /// key columns, each short text as a 1-byte length header and its bytes, unpadded; the
        /// cluster has no data checksums (`initdb`'s default).
        public func swapIndexEntries(in database: String, index: String, _ first: [String], _ second: [String]) throws {
            try swapIndexEntries(
                in: database, index: index, first.map { Array($0.utf8) }, second.map { Array($0.utf8) })
        }

        /// ``swapIndexEntries(in:index:_:_:)`` for key columns of any short text or bytea value.
        public func swapIndexEntries(
            in database: String, index: String, _ first: [[UInt8]], _ second: [[UInt8]]
        )
            throws
        {
            let relative = try TestPostgres.psql(database, "SELECT pg_relation_filepath('\(index)')")
                .trimmingCharacters(in: .whitespacesAndNewlines)
            try halt()
            let file = URL(fileURLWithPath: directory.path("cluster/data/\(relative)"))
            var bytes = [UInt8](try Data(contentsOf: file))
            let one = try Self.entryStart(first, in: bytes)
            let other = try Self.entryStart(second, in: bytes)
            for offset in 0..<6 { bytes.swapAt(one + offset, other + offset) }
            try Data(bytes).write(to: file)
            try start()
        }

        /// Where the one index entry with these key columns starts.
        private static func entryStart(_ columns: [[UInt8]], in bytes: [UInt8]) throws -> Int {
            let key = columns.flatMap { column -> [UInt8] in
                [UInt8(truncatingIfNeeded: (column.count + 1) << 1 | 1)] + column
            }
            let starts = (8...(bytes.count - key.count)).filter { bytes[$0..<($0 + key.count)].elementsEqual(key) }
            guard starts.count == 1 else {
                throw Unavailable(description: "the index holds \(starts.count) entries for \(columns), not 1")
            }
            return starts[0] - 8
        }

        private static func script(_ verb: String, directory: TemporaryDirectory) throws -> String {
            let result = try run(
                "/usr/bin/env",
                [
                    "SWCRED_POSTGRES_DIR=\(directory.path("cluster"))",
                    packageRoot.appendingPathComponent("Scripts/postgres").path, verb,
                ])
            guard result.status == 0 else {
                throw Unavailable(description: "Scripts/postgres \(verb) failed (\(result.status)): \(result.stderr)")
            }
            return String(result.stdout.split(separator: "\n").last ?? "")
        }
    }

    /// Runs `executable` through ``CleanSpawn`` rather than Foundation's Process: the server that
    /// `Scripts/postgres start` leaves running held Process's exit descriptor open, so the first
    /// test to start the cluster waited for ever; and with every signal at its default, the
    /// server stops on `pg_ctl stop`. Its output goes to files.
    private static func run(
        _ executable: String, _ arguments: [String]
    ) throws -> (
        status: Int32, stdout: String, stderr: String
    ) {
        let directory = try TemporaryDirectory(prefix: "swcred-postgres-run")
        let outPath = directory.path("stdout")
        let errPath = directory.path("stderr")
        let exitStatus: Int32
        do {
            exitStatus = try CleanSpawn.run(
                [executable] + arguments, streams: [.null, .output(outPath), .output(errPath)])
        } catch {
            throw Unavailable(description: error.description)
        }
        let output = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        let errors = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        return (exitStatus, output, errors)
    }
}
