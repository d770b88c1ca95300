import Foundation
import Logging
import ServiceLifecycle
import SharedWebCredentials

/// Re-checks, in the background, the stored verdicts whose `next_check` has passed, like Apple's
/// `swcd`, so that apps rarely wait on the network. Each round comes after `interval` plus up to
/// a quarter of it of random jitter; the verifier bounds how many sites are fetched at once. The
/// policy is the gate's own (``RecheckPolicy``): a failed re-check keeps an approval until it
/// goes stale, a refusal revokes it at once. Nothing runs while the vault is locked. Of several
/// instances on one PostgreSQL database, one at a time does a round (an advisory lock); the others
/// skip theirs, and find the verdicts it saved no longer due.
struct BackgroundReverifier: Service {
    let holder: VaultHolder
    let verifier: Verifier
    let policy: RecheckPolicy
    let interval: Duration
    let logger: Logger

    func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            let jitter = Double.random(in: 0...0.25)
            try? await Task.sleep(for: interval + interval * jitter)
            guard !Task.isShuttingDownGracefully, let vault = holder.peekVault() else { continue }
            do {
                let refreshed = try await refreshDue(in: vault)
                if refreshed > 0 { logger.info("re-verified due associations", metadata: ["count": "\(refreshed)"]) }
            } catch {
                logger.warning("background re-verification failed", metadata: ["type": "\(type(of: error))"])
            }
        }
    }

    /// Re-checks every due (app, entry) pair of `vault`, unless another instance is doing it;
    /// returns how many.
    func refreshDue(in vault: Vault) async throws -> Int {
        try await vault.storage.alone(.reverification) { try await refreshDueAlone(in: vault) } ?? 0
    }

    /// ``refreshDue(in:)`` once this instance holds the duty: the due verdicts are read after the
    /// duty is taken, so a round that follows another instance's finds its verdicts saved.
    private func refreshDueAlone(in vault: Vault) async throws -> Int {
        let due = try await BlockingWork.run { [policy] in try Self.due(in: vault, policy: policy, at: Date()) }
        guard !due.isEmpty else { return 0 }
        let checks = await verifier.verify(due)
        let checkedAt = Date()
        return try await BlockingWork.run { [policy] in
            let records = try checks.map { check in
                policy.apply(
                    check, to: try vault.associations.record(app: check.app, entry: check.entry), at: checkedAt)
            }
            try vault.associations.save(records, by: .service)
            return records.count
        }
    }

    /// The (app, entry) pairs of `vault` whose verdicts are due at `now`.
    private static func due(
        in vault: Vault, policy: RecheckPolicy, at now: Date
    ) throws
        -> [(ApplicationIdentifier, AssociatedDomainEntry)]
    {
        var due: [(ApplicationIdentifier, AssociatedDomainEntry)] = []
        for app in try vault.apps.all() {
            let records = try vault.associations.all(app: app.identifier)
            for entry in app.entitlements.webcredentialsEntries {
                let key = AssociationStore.domainKey(for: entry)
                guard let record = records.first(where: { $0.service == entry.service && $0.domain == key }),
                    policy.isDue(record, at: now)
                else { continue }
                due.append((app.identifier, entry))
            }
        }
        return due
    }
}
