import Synchronization

/// Remembers what an authenticated `apps` row's text parses to: its app identifier (with its
/// certificate fingerprints) and its entitlement entries. Parsing them is most of the cost of
/// looking an app up, which every gated request does, and the result depends on nothing but
/// the text, so a row whose text was seen before skips it.
///
/// Only the parse is remembered, never the trust: the row's MAC is checked on every lookup,
/// before the cache is asked. The key is the whole parsed text, so a changed row is parsed again.
enum ParsedAppCache {
    /// The columns a registration is parsed from.
    struct Key: Hashable {
        let applicationIdentifier: String
        let entitlements: String
        let certificateFingerprints: String?
    }

    /// A parsed registration without its date, which is read from the row each time.
    struct Parsed {
        let identifier: ApplicationIdentifier
        let entitlements: Entitlements
    }

    /// At most this many registrations are kept; the table starts over when it is full.
    static let capacity = 256

    private static let table = Mutex<[Key: Parsed]>([:])

    /// The parse of `key`: remembered, or made by `parse` and remembered.
    static func parsed(_ key: Key, parse: () throws -> Parsed) rethrows -> Parsed {
        if let known = table.withLock({ $0[key] }) { return known }
        let parsed = try parse()
        table.withLock { table in
            if table.count >= capacity { table.removeAll(keepingCapacity: true) }
            table[key] = parsed
        }
        return parsed
    }
}
