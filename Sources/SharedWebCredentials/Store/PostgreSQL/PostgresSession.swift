import PostgresNIO
import Synchronization

/// One connection of ``PostgresStorage``'s pool and the queries prepared on it.
///
/// A query the stores run is planned by the server every time it is sent as an unnamed
/// statement; a named prepared statement is planned once per connection and then only executed
/// (measured on this project's 2-core machine: an indexed credential lookup takes 106 µs
/// prepared against 162 to 206 µs unnamed, the floor of one round trip being about 104 µs). So
/// every query that returns rows is prepared the first time a connection runs it, with its
/// parameters' types written into its text (`$1::bytea`), so that the server never has to infer
/// them and they always match the values sent. A connection keeps at most
/// ``capacity`` of them; the rest run unnamed.
///
/// A session is used by one transaction at a time (the pool hands it out alone), but it moves
/// between threads, hence the lock.
final class PostgresSession: Sendable {
    let connection: PostgresConnection
    private let prepared = Mutex<[String: PreparedQuery]>([:])

    /// The most queries prepared on one connection: the vault's queries are a fixed set of a few
    /// dozen texts, so the bound only stops a query built from variable parts (a filter, a list of
    /// values) from filling the server's memory.
    static let capacity = 64

    /// The most parameters of a statement that is prepared. The vault's fixed queries take at
    /// most a dozen; a statement with more is built for a variable number of rows (a group of audit
    /// entries), and one prepared per row count would fill the ``capacity``.
    static let maximumParameters = 16

    init(_ connection: PostgresConnection) {
        self.connection = connection
    }

    /// The statement prepared for `key` on this connection, if there is one.
    func statement(for key: String) -> PreparedQuery? {
        prepared.withLock { $0[key] }
    }

    /// Whether one more statement may be prepared.
    var hasRoom: Bool {
        prepared.withLock { $0.count < Self.capacity }
    }

    /// Remembers `statement` as prepared for `key`.
    func remember(_ statement: PreparedQuery, for key: String) {
        prepared.withLock { $0[key] = statement }
    }
}
