import Foundation
import SharedWebCredentials

/// Writes imported entries into a transaction under a conflict policy, remembering which entry
/// first gave each credential so that a duplicate in the file is named as one.
struct ConflictApplier {
    let batch: CredentialBatch
    let policy: ConflictPolicy
    /// The location of the entry that first gave each (scheme, server, port, account).
    private var firstLocation: [String: String] = [:]
    /// The location of the item that first gave each passkey, by credential ID.
    private var firstPasskeyLocation: [[UInt8]: String] = [:]
    /// Whether the vault had no credential when the transaction began: then only an earlier
    /// entry of the file can have saved one, and a credential seen for the first time needs no
    /// lookup (a first import's 100,000 rows skip 100,000 lookups).
    private let startedEmpty: Bool

    init(batch: CredentialBatch, policy: ConflictPolicy) throws {
        self.batch = batch
        self.policy = policy
        startedEmpty = try batch.count() == 0
    }

    enum Result {
        case outcome(UpsertOutcome)
        case skipped(SkipReason)
    }

    mutating func apply(_ entry: ImportEntry, to site: CredentialSite) throws -> Result {
        let key = "\(site)\u{0}\(entry.account)"
        let earlier = firstLocation[key]
        if earlier == nil { firstLocation[key] = entry.location }
        let password = SecureBytes(utf8: entry.password)
        if policy != .replace, !startedEmpty || earlier != nil,
            let existing = try batch.find(
                server: site.host, port: site.port, scheme: site.scheme, account: entry.account),
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
                server: site.host, port: site.port, scheme: site.scheme, account: entry.account, password: password,
                details: entry.details, created: entry.created, modified: entry.modified))
    }

    /// Saves a passkey under the policy. A passkey is matched by its credential ID; one that is
    /// the same in every field is unchanged; `newer` compares the file item's modification time
    /// with the saved passkey's creation (a passkey never changes after it).
    mutating func apply(_ passkey: Passkey, modified: Date?, location: String) throws -> Result {
        let earlier = firstPasskeyLocation[passkey.credentialID]
        if earlier == nil { firstPasskeyLocation[passkey.credentialID] = location }
        if let existing = try batch.passkey(credentialID: passkey.credentialID) {
            if existing.isSame(as: passkey) { return .outcome(.unchanged) }
            switch policy {
            case .skip:
                return .skipped(earlier.map { .duplicate(of: $0) } ?? .exists)
            case .newer:
                guard let modified, modified > existing.created else { return .skipped(.notNewer) }
            case .replace:
                break
            }
        }
        return .outcome(try batch.savePasskey(passkey))
    }
}
