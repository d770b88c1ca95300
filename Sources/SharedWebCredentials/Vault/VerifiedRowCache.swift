import Synchronization

/// Rows of the gate's authenticated tables (`apps`, `associations`) already verified and decoded,
/// so that a row read again unchanged is neither verified nor parsed again: a long-running
/// process such as the service reads the same app and verdict on every request.
///
/// An entry is keyed by the row's whole stored content (every column as its MAC encodes it, and
/// the stored MAC: ``AuthenticatedTable/storedContent(of:)``) and by the key that verified it. A
/// MAC's check depends on nothing else, so a hit is exactly what verifying again would give; a
/// row changed in any byte, or a vault key rotated since, is a miss and is verified afresh. Only
/// rows that passed are kept: a row that fails is refused, and reported, every time.
final class VerifiedRowCache<Value: Sendable>: Sendable {
    private struct Key: Hashable {
        let keyID: [UInt8]
        let content: [[UInt8]]
    }

    /// At most this many rows are kept; past it the cache starts again empty.
    let capacity: Int
    private let entries = Mutex<[Key: Value]>([:])

    init(capacity: Int = 4_096) {
        self.capacity = capacity
    }

    /// The decoded row with stored `content` verified under the key `keyID`: from the cache, or
    /// from `verify`, which must check the MAC and throw when it fails.
    func value(content: [[UInt8]], keyID: [UInt8], verify: () throws -> Value) rethrows -> Value {
        let key = Key(keyID: keyID, content: content)
        if let hit = entries.withLock({ $0[key] }) { return hit }
        let value = try verify()
        keep(value, for: key)
        return value
    }

    /// As ``value(content:keyID:verify:)`` for a `verify` that returns nil when the MAC fails;
    /// nil is not kept.
    func valueIfVerified(content: [[UInt8]], keyID: [UInt8], verify: () throws -> Value?) rethrows -> Value? {
        let key = Key(keyID: keyID, content: content)
        if let hit = entries.withLock({ $0[key] }) { return hit }
        guard let value = try verify() else { return nil }
        keep(value, for: key)
        return value
    }

    private func keep(_ value: Value, for key: Key) {
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = value
        }
    }
}
