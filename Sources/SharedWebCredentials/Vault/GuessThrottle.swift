import Foundation
import Synchronization

/// The vault's throttle of guesses at its secret: wrong unlocks and wrong owner proofs, from any
/// connection to any service of the vault. After the n-th failure in a row, the next guess is
/// checked no sooner than `baseDelay × 2^(n-1)` after the one before it, up to `maximumDelay`.
///
/// A guess reserves its turn before it is checked, and counts as a failure from then on, until a
/// right guess resets the count (``reset()``). So guesses sent side by side are spaced exactly as
/// guesses in a row are, whatever the number of connections or services, and a guess whose answer
/// never came (a cancelled request, a crash) still counts. The count lives in the vault's
/// metadata row, so restarting the service does not reset it, and every service on one
/// PostgreSQL database shares it. It is outside the key's protection on purpose: whoever can
/// write that row can read the wrapped key beside it and guess offline, unthrottled, anyway.
public final class GuessThrottle: Sendable {
    /// The vault whose guesses are counted.
    public let store: VaultStore
    /// How its storage is opened (the busy timeout).
    public let configuration: VaultConfiguration
    /// The wait after the first failure; each later failure doubles it.
    public let baseDelay: Duration
    /// The longest wait between two guesses.
    public let maximumDelay: Duration
    /// The vault's storage, opened and its schema checked at the first guess, then kept: a guess
    /// writes two or three times, and a service may see many.
    private let opened = Mutex<(any VaultStorage)?>(nil)

    /// A throttle for the vault in `store`.
    public init(
        store: VaultStore, configuration: VaultConfiguration = VaultConfiguration(),
        baseDelay: Duration = .milliseconds(250), maximumDelay: Duration = .seconds(30)
    ) {
        self.store = store
        self.configuration = configuration
        self.baseDelay = baseDelay
        self.maximumDelay = maximumDelay
    }

    /// Reserves the next guess's turn, counting it as a failure, and returns when it may be
    /// checked: `now`, or later when earlier guesses failed. Throws, reserving nothing, when the
    /// vault cannot be written: a guess is never checked unrecorded.
    public func reserveTurn(now: Date = Date()) throws -> Date {
        try write { db in
            guard let row = try db.row("SELECT failed_guesses, next_guess_at FROM vault_meta WHERE id = 1"),
                let failures = row.integer(0), let next = row.integer(1)
            else { throw missingState }
            let start = max(Self.milliseconds(now), next)
            let path = try storage().location
            let counted = try StoredNumber.adding(1, to: failures, "The count of failed guesses", path: path)
            let turn = try StoredNumber.adding(
                delayMilliseconds(after: counted), to: start, "The time of the next guess", path: path)
            _ = try db.execute(
                "UPDATE vault_meta SET failed_guesses = ?, next_guess_at = ? WHERE id = 1",
                [.integer(counted), .integer(turn)])
            return Date(timeIntervalSince1970: Double(start) / 1000)
        }
    }

    /// Records that a guess proved wrong at `now`: the next one waits its delay from now, not
    /// only from this guess's turn, so that guesses in a row are spaced by their delays after
    /// each answer (a burst only ever waits longer).
    public func recordFailure(now: Date = Date()) throws {
        try write { db in
            guard let failures = try db.integer("SELECT failed_guesses FROM vault_meta WHERE id = 1") else {
                throw missingState
            }
            let next = Self.milliseconds(now) + delayMilliseconds(after: max(failures, 1))
            _ = try db.execute(
                "UPDATE vault_meta SET next_guess_at = ? WHERE id = 1 AND next_guess_at < ?",
                [.integer(next), .integer(next)])
        }
    }

    /// Records a right guess: the next one is checked at once.
    public func reset() throws {
        try write { db in
            _ = try db.execute("UPDATE vault_meta SET failed_guesses = 0, next_guess_at = 0 WHERE id = 1", [])
        }
    }

    /// The wait after `failures` failures in a row, in milliseconds.
    func delayMilliseconds(after failures: Int64) -> Int64 {
        guard failures > 0 else { return 0 }
        let delay = min(baseDelay * (1 << Int(min(failures - 1, 16))), maximumDelay)
        return delay.components.seconds * 1000 + delay.components.attoseconds / 1_000_000_000_000_000
    }

    private func write<T>(_ body: (any StoreWriter) throws -> T) throws -> T {
        try storage().write(durability: .synced, body)
    }

    /// The vault's storage, once its schema is checked and fully migrated: the throttle's columns
    /// exist only then, and no statement runs on a schema that was not checked.
    private func storage() throws -> any VaultStorage {
        if let storage = opened.withLock({ $0 }) { return storage }
        let storage = try Vault.openStorage(store, configuration: configuration)
        guard try storage.verifySchema() == .current else { throw missingState }
        return opened.withLock { opened in
            if let first = opened { return first }
            opened = storage
            return storage
        }
    }

    private var missingState: SharedWebCredentialsError {
        SharedWebCredentialsError(
            .internalError,
            "The vault has no record of guesses at its secret yet (an older swcred's vault): unlock it once with `swcred status` to migrate it, then try again."
        )
    }

    private static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }
}
