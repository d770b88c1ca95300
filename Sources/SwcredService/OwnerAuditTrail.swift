import Foundation
import SharedWebCredentials
import Synchronization

/// The service's entries in the vault's audit log for what grants or changes access: unlocks and
/// their failures, locks, and the owner's consent decisions. A failed unlock happens while the
/// vault is locked, when no entry can be sealed: it is kept in memory (the last 100, with a count
/// of any beyond) and appended, with its own time, at the next successful unlock. So is a lock
/// whose entry cannot be written when it happens (the service's own lock after another process
/// changed the passphrase or the key, which the keys it held no longer seal).
final class OwnerAuditTrail: Sendable {
    private struct FailedUnlock {
        let date: Date
        let peer: String
    }

    private struct UnrecordedLock {
        let date: Date
        let actor: AuditActor
        let detail: String
    }

    private struct State {
        var failedUnlocks: [FailedUnlock] = []
        var droppedFailures = 0
        var unrecordedLocks: [UnrecordedLock] = []
    }

    private static let keptEntries = 100
    private let state = Mutex(State())

    /// Notes a failed unlock from `peer`, to append at the next unlock.
    func failedUnlock(peer: String) {
        state.withLock { state in
            if state.failedUnlocks.count == Self.keptEntries {
                state.failedUnlocks.removeFirst()
                state.droppedFailures += 1
            }
            state.failedUnlocks.append(FailedUnlock(date: Date(), peer: peer))
        }
    }

    /// Appends the failures noted since the last unlock and then the unlock itself. Throws when
    /// an entry cannot be written (the caller then locks again: an unlock is never unrecorded).
    func unlocked(_ vault: Vault, peer: String) async throws {
        let (locks, failures, dropped) = state.withLock { state in
            defer {
                state.unrecordedLocks = []
                state.failedUnlocks = []
                state.droppedFailures = 0
            }
            return (state.unrecordedLocks, state.failedUnlocks, state.droppedFailures)
        }
        for lock in locks {
            try await vault.audit.append(
                AuditEvent(
                    actor: lock.actor, operation: .lock,
                    detail: "\(lock.detail) (at \(lock.date.formatted(.iso8601)), recorded at the next unlock)"))
        }
        for failure in failures {
            try await vault.audit.append(
                AuditEvent(
                    actor: .owner, operation: .unlockFailed, outcome: .refused(.vaultLocked),
                    detail: "wrong passphrase or key at \(failure.date.formatted(.iso8601)) from \(failure.peer)"))
        }
        let earlier = failures.count + dropped
        try await vault.audit.append(
            AuditEvent(
                actor: .owner, operation: .unlock,
                detail: "from \(peer)" + (earlier > 0 ? "; after \(earlier) failed attempts" : "")))
    }

    /// Appends a lock by the owner (`peer`) or by the service itself (idle time, a changed
    /// passphrase or key); a lock happens even when its entry cannot be written, and such an entry
    /// is appended at the next unlock instead.
    func locked(_ vault: Vault?, by actor: AuditActor, detail: String) async {
        guard let vault else { return }
        let date = Date()
        do {
            _ = try await vault.audit.append(AuditEvent(actor: actor, operation: .lock, detail: detail))
        } catch {
            state.withLock { state in
                if state.unrecordedLocks.count == Self.keptEntries { state.unrecordedLocks.removeFirst() }
                state.unrecordedLocks.append(UnrecordedLock(date: date, actor: actor, detail: detail))
            }
        }
    }

    /// Appends the owner's decision on a consent request (or its timeout). Throws when the entry
    /// cannot be written: the caller then does not release or change anything.
    func consent(
        _ decision: ConsentBroker.Decision, vault: Vault, app: ApplicationIdentifier, operation: String,
        domain: String, account: String?
    ) async throws {
        let (actor, kind, detail): (AuditActor, AuditOperation, String) =
            switch decision {
            case .approved(let answeredBy): (.owner, .consentApprove, "\(operation) approved from \(answeredBy)")
            case .declined(let answeredBy): (.owner, .consentDecline, "\(operation) declined from \(answeredBy)")
            case .timedOut: (.service, .consentTimeout, "\(operation) not answered in time: declined")
            }
        try await vault.audit.append(
            AuditEvent(
                actor: actor, operation: kind, domain: domain, account: account, app: app.description, detail: detail)
        )
    }
}
