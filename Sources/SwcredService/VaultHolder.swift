import Foundation
import SharedWebCredentials
import Synchronization

/// The service's one unlocked vault, or none while locked.
///
/// Locking drops the vault: its keys live in locked memory that is zeroed when the last request
/// using them finishes. The holder also remembers when it was last used, for `--lock-after`.
final class VaultHolder: Sendable {
    private struct State {
        var vault: Vault?
        var lastUse: ContinuousClock.Instant
        /// One more at every unlock: what owner sessions are bound to, so that locking ends them.
        var generation: UInt64 = 1
    }

    /// The vault file's path, or its store URL (without a password).
    let path: String
    /// Where the vault is: what an unlock reopens (with the store's password, if any).
    let store: VaultStore
    /// How an unlock reopens it (the busy timeout).
    let configuration: VaultConfiguration
    private let state: Mutex<State>

    init(unlocked vault: Vault, configuration: VaultConfiguration) {
        path = vault.path
        store = vault.store
        self.configuration = configuration
        state = Mutex(State(vault: vault, lastUse: .now))
    }

    /// Whether the vault is locked now.
    var isLocked: Bool { state.withLock { $0.vault == nil } }

    /// The unlocked vault, marking it used; throws the "locked" error while locked.
    func vault() throws(APIError) -> Vault {
        let vault = state.withLock { state -> Vault? in
            state.lastUse = .now
            return state.vault
        }
        guard let vault else { throw .locked }
        return vault
    }

    /// The unlocked vault without marking it used (background work), or nil while locked.
    func peekVault() -> Vault? {
        state.withLock { $0.vault }
    }

    /// The unlocked vault and the number of its unlock, or nil while locked.
    func unlockedGeneration() -> (vault: Vault, generation: UInt64)? {
        state.withLock { state in state.vault.map { ($0, state.generation) } }
    }

    /// Locks: the keys are wiped once no request holds them.
    func lock() {
        state.withLock { $0.vault = nil }
    }

    /// Locks if the vault has not been used for `interval`; returns whether it locked now.
    func lockIfIdle(for interval: Duration) -> Bool {
        state.withLock { state in
            guard state.vault != nil, ContinuousClock.now - state.lastUse >= interval else { return false }
            state.vault = nil
            return true
        }
    }

    /// Locks when another process changed the passphrase or rotated the vault key since this
    /// unlock (``Vault/isUnlockCurrent()``): no owner session, token or key of the earlier unlock
    /// goes on, and the owner unlocks again. Returns the vault it locked, or nil. Blocking: it reads
    /// the vault's metadata. A failed read leaves the vault as it is (the next check tries again).
    func lockIfUnlockChanged() -> Vault? {
        guard let vault = peekVault(), (try? vault.isUnlockCurrent()) == false else { return nil }
        let locked = state.withLock { state -> Bool in
            guard state.vault === vault else { return false }
            state.vault = nil
            return true
        }
        return locked ? vault : nil
    }

    /// Unlocks with `secret` (Argon2id runs here); a wrong one throws `vaultLocked` and leaves
    /// the state as it was.
    func unlock(with secret: VaultSecret) throws {
        let vault = try Vault.open(store: store, secret: secret, configuration: configuration)
        state.withLock { state in
            state.vault = vault
            state.lastUse = .now
            state.generation += 1
        }
    }
}
