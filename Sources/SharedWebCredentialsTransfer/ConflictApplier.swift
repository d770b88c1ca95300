import Foundation
import SharedWebCredentials

/// Writes imported entries into a transaction under a conflict policy, remembering which entry
/// first gave each credential so that a duplicate in the file is named as one.
struct ConflictApplier {
    let batch: CredentialBatch
    let policy: ConflictPolicy
    /// The location of the entry that first gave each (server, port, account).
    private var firstLocation: [String: String] = [:]

    init(batch: CredentialBatch, policy: ConflictPolicy) {
        self.batch = batch
        self.policy = policy
    }

    enum Result {
        case outcome(UpsertOutcome)
        case skipped(SkipReason)
    }

    mutating func apply(_ entry: ImportEntry, to site: DomainTarget) throws -> Result {
        let key = "\(site.host)\u{0}\(site.port ?? 443)\u{0}\(entry.account)"
        let earlier = firstLocation[key]
        if earlier == nil { firstLocation[key] = entry.location }
        let password = SecureBytes(utf8: entry.password)
        if policy != .replace,
            let existing = try batch.find(server: site.host, port: site.port, account: entry.account),
            !(existing.password.isEqual(to: password) && existing.details == entry.details)
        {
            switch policy {
            case .skip:
                return .skipped(earlier.map { .duplicate(of: $0) } ?? .exists)
            case .newer:
                guard let modified = entry.modified, modified > existing.modified else { return .skipped(.notNewer) }
            case .replace:
                break
            }
        }
        return .outcome(
            try batch.upsert(
                server: site.host, port: site.port, account: entry.account, password: password,
                details: entry.details, created: entry.created, modified: entry.modified))
    }
}
