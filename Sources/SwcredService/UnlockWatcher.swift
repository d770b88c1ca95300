import Logging
import ServiceLifecycle

/// Locks the service within a second of another process changing the vault's passphrase
/// (`swcred passwd`) or rotating its key (`swcred rekey`): the unlock the owner made no longer
/// stands, so every owner session of it ends and the owner unlocks again. Without it, a service
/// would go on serving apps with the key of a passphrase its owner had just retired.
struct UnlockWatcher: Service {
    /// What the service's log and audit entry say about such a lock.
    static let detail = "the passphrase or the vault key was changed by another process"

    let holder: VaultHolder
    let trail: OwnerAuditTrail
    let logger: Logger
    /// How often the vault's metadata is read.
    var interval: Duration = .seconds(1)

    func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            try? await Task.sleep(for: interval)
            _ = await Self.lockIfUnlockChanged(holder: holder, trail: trail, logger: logger)
        }
    }

    /// Locks when the passphrase or the key changed since the unlock (``VaultHolder/lockIfUnlockChanged()``),
    /// and records and logs why; returns whether it locked.
    static func lockIfUnlockChanged(holder: VaultHolder, trail: OwnerAuditTrail, logger: Logger) async -> Bool {
        guard let vault = try? await BlockingWork.run({ holder.lockIfUnlockChanged() }) else { return false }
        await trail.locked(vault, by: .service, detail: detail)
        logger.warning("\(detail): locked until unlocked again")
        return true
    }
}
