import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

/// A vault in a PostgreSQL database, through postgres-nio: the engine for several service
/// instances over one database. Chosen by a `postgresql://` store URL (``PostgresStoreURL``).
///
/// Transactions run on a connection taken from a small pool of idle connections (opened on
/// demand, kept up to ``maximumIdle``). Each transaction's body runs on one thread from start to
/// end, and each query blocks that thread on its future while postgres-nio's event loop does the
/// I/O: the calling thread for the synchronous methods (the CLI's), a thread of the engine's own
/// pool (``engineThreads``) for the `async` ones, so that neither a cooperative thread nor an event-loop thread ever
/// waits for the database.
///
/// Not postgres-nio's `PostgresClient`: it lends a connection only to an `async` closure and
/// needs its `run()` in a task of its own, while the stores' transactions are synchronous bodies
/// (the same for both engines) that the CLI runs on its own thread; and each pooled connection
/// here carries the statements prepared on it (``PostgresSession``), which `PostgresClient` offers
/// only for statement types fixed at compile time.
///
/// Writers serialise on a transaction-scoped advisory lock (``writerLock``) taken first in a
/// READ COMMITTED transaction, not with SERIALIZABLE: SQLite's single writer made every store
/// assume that no other write commits while its transaction runs, and a SERIALIZABLE failure
/// would have to re-run a body that may have side effects (group commit hands results to other
/// callers); the lock gives exactly SQLite's semantics across processes and instances, and every
/// statement after it sees every write committed before. Readers use REPEATABLE READ READ ONLY:
/// one snapshot for the whole read, as SQLite's WAL readers have.
package final class PostgresStorage: VaultStorage {
    /// Where the vault is (never with a password).
    package let url: PostgresStoreURL
    private let configuration: PostgresConnection.Configuration
    private let busyTimeout: TimeInterval
    private let idle = Mutex<[PostgresSession]>([])
    private let nextConnectionID = Mutex<Int>(0)
    private let logger = Logger(label: "swcred.postgresql", factory: { _ in SwiftLogNoOpLogHandler() })

    /// The threads the `async` transactions run on, shared by every PostgreSQL vault of the
    /// process and started the first time one is used. Sixteen: a thread waits for the database
    /// (or for the writers' lock) as long as its transaction lasts, and reads must not queue behind
    /// a writer that waits for another process.
    private static let engineThreads = EngineThreads(numberOfThreads: 16)

    /// The advisory lock every write transaction takes first ("swcred" and 1).
    static let writerLock: Int64 = 0x7377_6372_6564_0001
    /// How much longer than the busy timeout a statement's answer may take before the connection
    /// is given up (``PostgresStoreConnection/answerTimeout``).
    static let answerMargin: TimeInterval = 5
    /// How many idle connections are kept for the next transactions.
    static let maximumIdle = 8

    package var location: String { url.description }

    /// Connects to the database of `url` (one connection, at once, so that an unreachable server or
    /// a refused login fails here with `.storageFailure`) without reading anything.
    package init(url: PostgresStoreURL, password: String?, busyTimeout: TimeInterval) throws {
        self.url = url
        self.busyTimeout = busyTimeout
        var configuration: PostgresConnection.Configuration
        if let socketPath = url.socketPath {
            configuration = .init(
                unixSocketPath: socketPath, username: url.user, password: password, database: url.database)
        } else {
            let tls = try PostgresConnection.Configuration.TLS.require(
                NIOSSLContextMaker.client())
            configuration = .init(
                host: url.host ?? "", port: url.port, username: url.user, password: password, database: url.database,
                tls: tls)
        }
        // Every connection resolves names in the vault's schema only (pg_catalog first, as always),
        // whatever the role's or database's defaults say.
        configuration.options.additionalStartupParameters = [
            ("search_path", PostgresSchema.schema), ("application_name", "swcred"),
        ]
        configuration.options.connectTimeout = .seconds(Int64(max(1, busyTimeout)))
        self.configuration = configuration
        let connection = try connect()
        giveBack(PostgresSession(connection))
    }

    deinit {
        for session in idle.withLock({ $0 }) { Self.close(session) }
    }

    // MARK: Transactions

    package func read<T>(_ body: (any StoreReader) throws -> T) throws -> T {
        try inRead(body)
    }

    package func write<T>(durability: CommitDurability, _ body: (any StoreWriter) throws -> T) throws -> T {
        try inWrite(durability: durability, body)
    }

    package func writeBeside<T>(durability: CommitDurability, _ body: (any StoreWriter) throws -> T) throws -> T {
        try inWrite(durability: durability, takingWritersLock: false, body)
    }

    package func read<T: Sendable>(_ body: @escaping @Sendable (any StoreReader) throws -> T) async throws -> T {
        try await threads.run { try self.read(body) }
    }

    package func write<T: Sendable>(
        durability: CommitDurability, _ body: @escaping @Sendable (any StoreWriter) throws -> T
    ) async throws -> T {
        try await threads.run { try self.write(durability: durability, body) }
    }

    package var threads: EngineThreads { Self.engineThreads }

    /// Holds the session-level advisory lock of `duty` on a connection of its own while `body`
    /// runs (`pg_try_advisory_lock`: never waits), then releases it. A connection that cannot be
    /// told to release it is closed, which releases it too. If the connection dies while `body`
    /// runs, another instance may start the duty before `body` ends: the duty must stay safe
    /// when done twice.
    package func alone<T: Sendable>(_ duty: ExclusiveDuty, _ body: @Sendable () async throws -> T) async throws -> T? {
        let key = duty.rawValue
        let held = try await Self.engineThreads.run { () throws -> PostgresSession? in
            try self.mappingErrors {
                let session = try self.takeSession()
                let db = self.statements(on: session)
                do {
                    let locked = try db.value("SELECT pg_try_advisory_lock(?)", [.integer(key)])?.integer == 1
                    guard locked else {
                        self.giveBack(session)
                        return nil
                    }
                    return session
                } catch {
                    Self.close(session)
                    throw error
                }
            }
        }
        guard let held else { return nil }
        let release: @Sendable () async -> Void = {
            try? await Self.engineThreads.run {
                if (try? self.statements(on: held).value("SELECT pg_advisory_unlock(?)", [.integer(key)])) != nil {
                    self.giveBack(held)
                } else {
                    Self.close(held)
                }
            }
        }
        do {
            let result = try await body()
            await release()
            return result
        } catch {
            await release()
            throw error
        }
    }

    /// A read transaction. Its COMMIT is not waited for: a read-only transaction has nothing to
    /// commit, so its outcome cannot change what was read, and the connection goes back to the
    /// pool only once the server has answered it (a connection whose COMMIT failed is closed).
    private func inRead<T>(_ body: (PostgresStoreConnection) throws -> T) throws -> T {
        try inTransaction(begin: ["BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"], commit: true, awaitCommit: false)
        {
            db in
            var reader = db
            reader.readMemo = ReadTransactionMemo()
            return try body(reader)
        }
    }

    /// A write transaction: the writers' lock first unless `takingWritersLock` is false (waiting
    /// at most the busy timeout, then `.vaultBusy`; row locks are waited for as long); an
    /// `.ordered` commit does not wait for the WAL flush (`synchronous_commit=off`: a server crash
    /// may lose the last commits, never tear or reorder them).
    func inWrite<T>(
        durability: CommitDurability, takingWritersLock: Bool = true, _ body: (PostgresStoreConnection) throws -> T
    ) throws -> T {
        // One round trip after BEGIN: set_config(..., true) is SET LOCAL, and a select list is
        // evaluated in order, so the lock is waited for under the timeout just set.
        let synchronous = durability == .ordered ? ", set_config('synchronous_commit', 'off', true)" : ""
        let lock = takingWritersLock ? ", pg_advisory_xact_lock(\(Self.writerLock))" : ""
        let begin = [
            "BEGIN ISOLATION LEVEL READ COMMITTED",
            "SELECT set_config('lock_timeout', '\(Int(busyTimeout * 1000))', true)\(synchronous)\(lock)",
        ]
        return try inTransaction(begin: begin, commit: true, awaitCommit: true, body)
    }

    /// A transaction that is always rolled back (the schema check's scratch schema).
    /// Nothing is prepared in it: a statement prepared while `search_path` names the scratch
    /// schema would keep resolving its names there after the schema is rolled back.
    func withScratchTransaction<T>(_ body: (PostgresStoreConnection) throws -> T) throws -> T {
        try inTransaction(begin: ["BEGIN"], commit: false, awaitCommit: true) { db in
            try body(db.unprepared)
        }
    }

    /// Runs `begin`, `body` and COMMIT (or ROLLBACK) on one pooled connection. A connection whose
    /// ROLLBACK failed is closed rather than reused: it may be in any state.
    ///
    /// The `begin` statements are sent without waiting for their answers, so that the first
    /// statement of `body` follows them at once; their answers are checked before the result is
    /// returned, and a failure among them fails the transaction (its reads may have run outside
    /// it). Without `awaitCommit`, the result is returned as soon as COMMIT is sent.
    private func inTransaction<T>(
        begin: [String], commit: Bool, awaitCommit: Bool, _ body: (PostgresStoreConnection) throws -> T
    ) throws -> T {
        try mappingErrors {
            let session = try takeSession()
            let db = statements(on: session)
            let begun = begin.map { db.send($0) }
            do {
                let outcome = Result { try body(db) }
                // Before the body's own error: a lock not granted fails every statement after it.
                for answer in begun { try db.wait(for: answer) }
                let result = try outcome.get()
                let end = db.send(commit ? "COMMIT" : "ROLLBACK")
                if awaitCommit {
                    try db.wait(for: end)
                    giveBack(session)
                } else {
                    end.whenComplete { [self] outcome in
                        if case .success = outcome { giveBack(session) } else { Self.close(session) }
                    }
                }
                return result
            } catch {
                if !session.connection.isClosed, (try? db.run("ROLLBACK")) != nil {
                    giveBack(session)
                } else {
                    Self.close(session)
                }
                throw error
            }
        }
    }

    // MARK: Connections

    /// `session` as the stores see it.
    private func statements(on session: PostgresSession) -> PostgresStoreConnection {
        PostgresStoreConnection(
            session: session, logger: logger,
            answerTimeout: .milliseconds(Int64((busyTimeout + Self.answerMargin) * 1000)))
    }

    private func takeSession() throws -> PostgresSession {
        while let session = idle.withLock({ $0.popLast() }) {
            if !session.connection.isClosed { return session }
        }
        return PostgresSession(try connect())
    }

    private func giveBack(_ session: PostgresSession) {
        let kept = idle.withLock { idle -> Bool in
            guard idle.count < Self.maximumIdle, !session.connection.isClosed else { return false }
            idle.append(session)
            return true
        }
        if !kept { Self.close(session) }
    }

    /// Closes `session`'s connection in the background, keeping it alive until it is closed
    /// (postgres-nio requires a connection to be closed before it is released).
    private static func close(_ session: PostgresSession) {
        let connection = session.connection
        connection.close().whenComplete { _ in withExtendedLifetime(connection) {} }
    }

    private func connect() throws -> PostgresConnection {
        try mappingErrors {
            try PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.next(), configuration: configuration,
                id: nextConnectionID.withLock { id in
                    id += 1
                    return id
                }, logger: logger
            ).wait()
        }
    }

    // MARK: Schema

    package func migrate() throws {
        try PostgresSchema.migrate(self)
    }

    package func verifySchema() throws -> SchemaState {
        try PostgresSchema.verify(self)
    }

    // MARK: Errors

    /// Runs `body`, turning postgres-nio's and NIO's errors into ``SharedWebCredentialsError``.
    private func mappingErrors<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SharedWebCredentialsError {
            throw error
        } catch let signal as any StoreBodySignal {
            throw signal
        } catch let error as PSQLError {
            throw PostgresErrors.translate(error, location: location)
        } catch let error as PostgresError {
            throw PostgresErrors.translate(error, location: location)
        } catch is PostgresStoreConnection.Unanswered {
            throw PostgresErrors.unreachable(
                location: location, cause: "no answer within \(Int(busyTimeout + Self.answerMargin)) s")
        } catch {
            throw PostgresErrors.unreachable(location: location, cause: "\(type(of: error))")
        }
    }
}
