import CSQLiteHardening
import Foundation
import GRDB
import SharedWebCredentialsData
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A vault in one SQLite file, through GRDB: the embedded default engine.
///
/// One writer connection (a `DatabaseQueue`: WAL, `synchronous=FULL`, a busy timeout so that
/// processes wait for each other) and, once the schema is checked and fully migrated, a pool of
/// read-only connections that serve reads side by side with it and with each other. Every
/// connection is hardened before it serves anything: defensive mode, the vault's pragmas, and
/// (once migrated) `trusted_schema=OFF`; readers check the schema themselves when they open.
package final class SQLiteStorage: VaultStorage {
    /// The vault file's path.
    package let path: String
    /// The connection that writes (and reads, until the readers are opened).
    package let writer: DatabaseQueue
    private let busyTimeout: TimeInterval
    /// The durability the writer's `synchronous` level gives now (FULL when it opens); changed
    /// only inside the writer's serialised access (``inWriteTransaction(_:durability:_:)``).
    private let writerDurability = Mutex<CommitDurability>(.synced)
    private let readerPool = Mutex<SQLiteReaders?>(nil)

    package var location: String { path }

    private init(path: String, writer: DatabaseQueue, busyTimeout: TimeInterval) {
        self.path = path
        self.writer = writer
        self.busyTimeout = busyTimeout
    }

    /// Closes the readers before the writer goes: the last connection to close checkpoints the
    /// WAL into the file and removes it, which a read-only connection cannot do.
    deinit {
        try? readerPool.withLock { $0 }?.close()
    }

    /// Creates the vault file at `path` (mode 0600, refusing an existing file) and opens it.
    /// The file is removed again if `body`, which sets the new vault up, throws.
    package static func create<T>(
        path: String, busyTimeout: TimeInterval, _ body: (SQLiteStorage) throws -> T
    ) throws -> T {
        let created = try VaultFiles.createVaultFile(path: path)
        do {
            let storage = SQLiteStorage(
                path: path, writer: try openWriter(path: path, busyTimeout: busyTimeout), busyTimeout: busyTimeout)
            try created.requireSameFile(path: path)
            return try body(storage)
        } catch {
            removeFiles(path: path)
            throw error
        }
    }

    /// Opens the existing vault file at `path`, after checking that it is a regular file that no
    /// other user can write.
    package static func open(path: String, busyTimeout: TimeInterval) throws -> SQLiteStorage {
        try requireExisting(path: path)
        try VaultFiles.requireNotWritableByOthers(vault: path)
        return SQLiteStorage(
            path: path, writer: try openWriter(path: path, busyTimeout: busyTimeout), busyTimeout: busyTimeout)
    }

    /// Opens the writer connection with the vault's settings.
    private static func openWriter(path: String, busyTimeout: TimeInterval) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.busyMode = .timeout(busyTimeout)
        configuration.foreignKeysEnabled = true
        configuration.label = "swcred.vault"
        configuration.prepareDatabase { db in try prepare(db, path: path) }
        return try mappingErrors(path: path) {
            try DatabaseQueue(path: path, configuration: configuration)
        }
    }

    // MARK: Transactions

    package func read<T>(_ body: (any StoreReader) throws -> T) throws -> T {
        try Self.mappingErrors(path: path) {
            if let readers = readerPool.withLock({ $0 }) {
                return try readers.read { db in try Self.inReadTransaction(db, path: path, body) }
            }
            return try writer.unsafeRead { db in try Self.inReadTransaction(db, path: path, body) }
        }
    }

    package func write<T>(durability: CommitDurability, _ body: (any StoreWriter) throws -> T) throws -> T {
        try Self.mappingErrors(path: path) {
            try writer.writeWithoutTransaction { db in try inWriteTransaction(db, durability: durability, body) }
        }
    }

    package func read<T: Sendable>(_ body: @escaping @Sendable (any StoreReader) throws -> T) async throws -> T {
        try await threads.run { try self.read(body) }
    }

    package func write<T: Sendable>(
        durability: CommitDurability, _ body: @escaping @Sendable (any StoreWriter) throws -> T
    ) async throws -> T {
        try await threads.run { try self.write(durability: durability, body) }
    }

    package var threads: EngineThreads { .sqlite }

    /// Runs `body`: one vault file has one service, so there is no other instance to leave the
    /// duty to (two services on one file would each do it, which is safe: the writes serialise).
    package func alone<T: Sendable>(_ duty: ExclusiveDuty, _ body: @Sendable () async throws -> T) async throws -> T? {
        try await body()
    }

    /// A plain deferred transaction, not GRDB's `read`: on a queue, that also turns
    /// `PRAGMA query_only` on and off, and SQLite expires every prepared statement of the
    /// connection when a flag pragma changes (the readers are read-only connections anyway).
    private static func inReadTransaction<T>(
        _ db: Database, path: String, _ body: (any StoreReader) throws -> T
    ) throws -> T {
        try inTransaction(db, path: path, begin: "BEGIN DEFERRED TRANSACTION") {
            try body(SQLiteStoreConnection(db: db, readMemo: ReadTransactionMemo()))
        }
    }

    /// An immediate transaction (the write lock is taken at BEGIN, so two processes never
    /// deadlock upgrading a read), committed with the `synchronous` level `durability` asks for:
    /// FULL when `.synced`, NORMAL when `.ordered`.
    ///
    /// The level is switched only when it differs from the last transaction's: in the service
    /// nearly every commit is an audit entry's (`.ordered`), and switching to NORMAL and back
    /// around each was a tenth of a request's instructions (SQLite prepares a `synchronous`
    /// pragma again every time it runs).
    private func inWriteTransaction<T>(
        _ db: Database, durability: CommitDurability, _ body: (any StoreWriter) throws -> T
    ) throws -> T {
        if writerDurability.withLock({ $0 }) != durability {
            try db.execute(sql: durability == .ordered ? "PRAGMA synchronous = NORMAL" : "PRAGMA synchronous = FULL")
            writerDurability.withLock { $0 = durability }
        }
        return try Self.inTransaction(db, path: path, begin: "BEGIN IMMEDIATE TRANSACTION") {
            try body(SQLiteStoreConnection(db: db))
        }
    }

    /// Runs `body` between `begin` and `COMMIT`, or rolls back when it or the commit throws.
    /// Before `body`, the transaction checks that the schema it sees is still the vault's
    /// (``SQLiteSchema/requireUnchanged(_:path:)``): another process may have changed it since the
    /// connection opened.
    ///
    /// GRDB's `inTransaction` without its cost: it compiles `BEGIN` and `COMMIT` anew every time
    /// (a tenth of a request's instructions); here they are the connection's cached statements,
    /// still executed through GRDB, which follows the transaction's state.
    private static func inTransaction<T>(
        _ db: Database, path: String, begin: String, _ body: () throws -> T
    ) throws -> T {
        try db.cachedStatement(sql: begin).execute()
        do {
            try SQLiteSchema.requireUnchanged(db, path: path)
            let result = try body()
            try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
            return result
        } catch {
            // SQLite may have rolled back already (a full disk, an I/O error); else it is done here.
            if db.isInsideTransaction { try? db.cachedStatement(sql: "ROLLBACK TRANSACTION").execute() }
            throw error
        }
    }

    // MARK: Schema

    package func migrate() throws {
        try Self.mappingErrors(path: path) {
            var migrator = DatabaseMigrator()
            for migration in EmbeddedMigrations.all {
                let sql = migration.sql
                migrator.registerMigration(migration.identifier) { db in try db.execute(sql: sql) }
            }
            try migrator.migrate(writer)
            try writer.writeWithoutTransaction { db in try Self.distrustSchema(db, path: path) }
        }
        openReaders()
    }

    package func verifySchema() throws -> SchemaState {
        let state = try Self.mappingErrors(path: path) {
            try writer.read { db in try SQLiteSchema.verify(db, path: path) }
        }
        if state == .current {
            try Self.mappingErrors(path: path) {
                try writer.writeWithoutTransaction { db in try Self.distrustSchema(db, path: path) }
            }
        }
        return state
    }

    /// Opens the read-only connections that serve reads side by side with the writer (WAL:
    /// readers do not wait for the writer, nor for each other). Called once the writer has
    /// checked, migrated and distrusted the schema.
    ///
    /// Each connection is opened lazily, when a read needs one, and gets exactly the writer's
    /// hardening before it serves any read: defensive mode, the same pragmas, the schema check
    /// (``SQLiteSchema``), then `trusted_schema=OFF`. A reader refuses to open, and the read fails,
    /// unless the schema is exactly what every embedded migration makes: it cannot migrate a file
    /// itself, and only a fully migrated schema can be parsed with `trusted_schema=OFF`. As for
    /// the writer, the check is made when the connection opens, not before every read.
    ///
    /// Read-only connections of their own (``SQLiteReaders``), next to the writer's queue, rather
    /// than GRDB's read-write `DatabasePool`, which sets `synchronous=NORMAL` on its writer and
    /// writes a table into the file whenever the WAL file is empty, on every open, before the
    /// schema is checked and even if the unlock then fails. Readers have the writer's busy
    /// timeout: a WAL reader waits only in rare cases (a crashed process's WAL being recovered,
    /// the last connection of another process closing).
    ///
    /// Readers do not map the file into memory (`mmap_size=0`; the writer does). A WAL reader
    /// whose snapshot another connection's commit made stale drops its whole mapping when its
    /// next transaction begins, and maps and faults the pages in again. In the service, where
    /// every request commits an audit entry, that was every read: an `munmap` of the whole file,
    /// which interrupts the other cores to flush their TLBs, then page faults. Reading the few
    /// pages a lookup needs with `pread` made a request through the service about 10% faster;
    /// `status --verify` of 100,000 credentials, which reads them all, did not change
    /// measurably (Benchmarks/README.md, "Requests side by side").
    private func openReaders() {
        readerPool.withLock { readers in
            guard readers == nil else { return }
            readers = SQLiteReaders { [path, busyTimeout] number in
                try Self.openReader(path: path, busyTimeout: busyTimeout, number: number)
            }
        }
    }

    /// The read-only connections, once the schema is checked and migrated (for the tests).
    var readers: SQLiteReaders? { readerPool.withLock { $0 } }

    /// One read-only connection, hardened as the writer is before it serves any read; `number`
    /// tells it from the others in its label.
    static func openReader(path: String, busyTimeout: TimeInterval, number: Int) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(busyTimeout)
        configuration.foreignKeysEnabled = true
        configuration.label = "swcred.vault.reader.\(number)"
        configuration.prepareDatabase { db in
            try prepare(db, path: path)
            try db.execute(sql: "PRAGMA mmap_size = 0")  // see "Readers do not map the file" above
            guard try SQLiteSchema.verify(db, path: path) == .current else {
                throw SharedWebCredentialsError(
                    .internalError,
                    "The schema of \(path) is not fully migrated, so swcred does not read it side by side; open the vault again to migrate it."
                )
            }
            try distrustSchema(db, path: path)
        }
        return try mappingErrors(path: path) {
            try DatabaseQueue(path: path, configuration: configuration)
        }
    }

    /// What every connection to the vault file gets when it opens, writer and readers alike:
    /// defensive mode first, then WAL, `synchronous=FULL` and the cache, memory-map and
    /// secure-delete settings.
    ///
    /// WAL is set here rather than with GRDB's `journalMode = .wal`, which would switch to
    /// synchronous=NORMAL and write to the file on every open (even a failed unlock).
    private static func prepare(_ db: Database, path: String) throws {
        try harden(db, path: path)
        let mode = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
        guard mode == "wal" else {
            throw SharedWebCredentialsError(.internalError, "SQLite could not switch \(path) to WAL mode.")
        }
        try db.execute(sql: "PRAGMA synchronous = FULL")
        // 32 MiB of page cache: a bulk import then rarely spills pages mid-transaction.
        try db.execute(sql: "PRAGMA cache_size = -32768")
        // Read pages through a memory map rather than a read() per page.
        try db.execute(sql: "PRAGMA mmap_size = 1073741824")
        // Zero freed pages, so a replaced wrapped key or sealed record does not linger in the file.
        try db.execute(sql: "PRAGMA secure_delete = ON")
    }

    /// Whether SQLITE_DBCONFIG_DEFENSIVE is on for the connection `db` (for the tests).
    package static func isDefensive(_ db: Database) -> Bool {
        swcred_sqlite_is_defensive(UnsafeMutableRawPointer(db.sqliteConnection)) == 1
    }

    /// Whether triggers and views are both off for the connection `db` (for the tests).
    package static func runsNoStoredCode(_ db: Database) -> Bool {
        swcred_sqlite_runs_no_stored_code(UnsafeMutableRawPointer(db.sqliteConnection)) == 1
    }

    /// Turns on SQLITE_DBCONFIG_DEFENSIVE (no writes to the schema or shadow tables, no dangerous
    /// pragmas) and turns triggers and views off: the database runs no code swcred did not put
    /// there, even one planted in the file while the connection is open (the vault's schema has
    /// neither). The schema itself is compared with what the migrations make (``SQLiteSchema``)
    /// before anything else is read and whenever it changes, and ``distrustSchema(_:path:)`` follows.
    private static func harden(_ db: Database, path: String) throws {
        let connection = UnsafeMutableRawPointer(db.sqliteConnection)
        guard swcred_sqlite_enable_defensive(connection) == 0 else {
            throw SharedWebCredentialsError(
                .internalError,
                "SQLite could not turn on defensive mode for \(path); this SQLite is too old (3.26 or later is needed)."
            )
        }
        guard swcred_sqlite_disable_triggers_and_views(connection) == 0 else {
            throw SharedWebCredentialsError(
                .internalError,
                "SQLite could not turn triggers and views off for \(path); this SQLite is too old (3.30 or later is needed)."
            )
        }
    }

    /// Sets `trusted_schema=OFF` on one connection and checks it took effect: no SQL function
    /// with side effects and no virtual table runs from a view, trigger or constraint stored in
    /// the file. Called once the schema is checked and fully migrated: migration 0002's CHECK
    /// called json_valid(), which SQLite 3.40 does not mark innocuous, so a format-1 file cannot
    /// even be parsed, or migrated, with it off.
    private static func distrustSchema(_ db: Database, path: String) throws {
        try db.execute(sql: "PRAGMA trusted_schema = OFF")
        guard try Bool.fetchOne(db, sql: "PRAGMA trusted_schema") == false else {
            throw SharedWebCredentialsError(
                .internalError,
                "SQLite ignored trusted_schema=OFF for \(path); this SQLite is too old (3.31 or later is needed).")
        }
    }

    /// Removes a vault file and its WAL and shared-memory companions (after a failed creation).
    static func removeFiles(path: String) {
        for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
    }

    /// Throws `.vaultNotFound` unless a file exists at `path`.
    static func requireExisting(path: String) throws {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw SharedWebCredentialsError(
                .vaultNotFound, "No vault at \(path): create one with `swcred init`, or pass --vault PATH.")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw SharedWebCredentialsError(
                .vaultNotFound, "\(path) is not a regular file; pass the vault file with --vault.")
        }
    }

    /// Runs `body`, turning SQLite errors into ``SharedWebCredentialsError``.
    static func mappingErrors<T>(path: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError {
            throw translate(error, path: path)
        }
    }

    /// ``mappingErrors(path:_:)`` for async work.
    static func mappingErrors<T>(path: String, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as DatabaseError {
            throw translate(error, path: path)
        }
    }

    /// The error for storage that cannot be written (exit 13), with its cause and what to do.
    private static func storageFailure(path: String, cause: String) -> SharedWebCredentialsError {
        SharedWebCredentialsError(
            .storageFailure,
            "The vault storage cannot be written (read-only, permission denied or disk full); nothing was changed. For \(path), \(cause), then try again."
        )
    }

    /// The library error for an SQLite error.
    static func translate(_ error: DatabaseError, path: String) -> SharedWebCredentialsError {
        if error.resultCode == .SQLITE_CANTOPEN, let shortage = StorageCondition.descriptorShortage(path: path) {
            let whose = shortage == ENFILE ? "the system" : "this process"
            return SharedWebCredentialsError(
                .storageFailure,
                "The vault \(path) could not be opened: \(whose) has too few file descriptors left (too many open files): raise the limit (`ulimit -n`) or close what holds them, then try again. Nothing was changed."
            )
        }
        switch error.resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            return SharedWebCredentialsError(
                .vaultBusy, "The vault \(path) stayed locked by another process past the timeout; try again.")
        case .SQLITE_NOTADB, .SQLITE_CORRUPT:
            return SharedWebCredentialsError(
                .integrityFailure,
                "\(path) is not a readable swcred vault (SQLite reports it damaged or not a database).")
        case .SQLITE_READONLY, .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_AUTH:
            let cause =
                if StorageCondition.isReadOnlyFileSystem(path: path) || error.resultCode == .SQLITE_READONLY {
                    "it is read-only (the file, its directory or its file system): make it writable (permissions, mount options)"
                } else {
                    "permission was denied: check the permissions of the file and its directory"
                }
            return storageFailure(path: path, cause: cause)
        case .SQLITE_FULL, .SQLITE_IOERR:
            // SQLite reports a full disk as SQLITE_IOERR when it happens while growing the -shm file.
            if error.resultCode == .SQLITE_FULL || StorageCondition.isNearlyFull(path: path) {
                return storageFailure(path: path, cause: "the disk holding it is full: free some space")
            }
            return SharedWebCredentialsError(
                .internalError,
                "Reading or writing the vault \(path) failed with an I/O error (SQLite code \(error.extendedResultCode.rawValue)): check the disk and the kernel log, then try again. Nothing was committed."
            )
        default:
            return SharedWebCredentialsError(
                .internalError,
                "SQLite failed on the vault \(path) (code \(error.resultCode.rawValue)); please report this.")
        }
    }
}
