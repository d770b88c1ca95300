import Foundation
import SharedWebCredentials

/// How an import treats a credential the vault (or an earlier row of the file) already has.
public enum ConflictPolicy: String, Sendable, CaseIterable {
    /// Keep what is there.
    case skip
    /// Take the file's.
    case replace
    /// Take the file's only if its modification time is later than the saved one's.
    case newer
}

/// Imports a password manager's export into a vault, in one transaction: all or nothing.
public struct CredentialImport {
    /// The file to read.
    public let path: String
    /// Its format, or nil to detect it.
    public let format: ImportFormat?
    public let policy: ConflictPolicy
    /// Whether malformed rows are skipped (and reported) instead of failing the import.
    public let skipInvalid: Bool

    public init(path: String, format: ImportFormat?, policy: ConflictPolicy, skipInvalid: Bool) {
        self.path = path
        self.format = format
        self.policy = policy
        self.skipInvalid = skipInvalid
    }

    /// Reads the file into `store` inside one transaction, then calls `confirm` with the summary,
    /// still inside it: the changes are committed only if it returns true (a dry run returns
    /// false). `progress` is called now and then with the bytes read and the file's size.
    ///
    /// Throws `.invalidInput` for a file that cannot be read or a malformed row (unless
    /// `skipInvalid`), naming the row and the problem; the vault is then unchanged.
    public func run(
        into store: CredentialStore, progress: ((_ read: Int, _ total: Int) -> Void)? = nil,
        confirm: (ImportSummary) throws -> Bool
    ) throws -> ImportSummary {
        let reader = try ImportFiles.open(path, format: format)
        let total = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        var summary = ImportSummary(format: reader.format, detected: format == nil)
        do {
            try store.batch { batch in
                var applier = try ConflictApplier(batch: batch, policy: policy)
                var lastLocation: String?
                try reader.forEach { element in
                    if element.location != lastLocation { summary.entries += 1 }
                    lastLocation = element.location
                    if summary.entries % 1000 == 0 { progress?(reader.bytesRead, total) }
                    try apply(element, with: &applier, to: &summary)
                }
                progress?(total, total)
                summary.warnings = reader.warnings
                guard try confirm(summary) else { throw RollBack() }
                try batch.recordAudit(AuditEvent(actor: .owner, operation: .import))
                summary.committed = true
            }
        } catch is RollBack {
            summary.committed = false
        }
        return summary
    }

    private func apply(
        _ element: ImportElement, with applier: inout ConflictApplier, to summary: inout ImportSummary
    ) throws {
        switch element {
        case .skipped(let location, let reason):
            summary.skipped.append((location, reason))
        case .invalid(let location, let problem):
            guard skipInvalid else {
                throw SharedWebCredentialsError(
                    .invalidInput,
                    "\(location) of \(path): \(problem). Nothing was imported; fix the file, or pass --skip-invalid to import the other rows"
                )
            }
            summary.skipped.append((location, .invalid(problem)))
        case .entry(let entry):
            try applyEntry(entry, with: &applier, to: &summary)
        case .passkey(let location, let passkey, let modified):
            switch try applier.apply(passkey, modified: modified, location: location) {
            case .outcome(.added): summary.passkeysAdded += 1
            case .outcome(.updated): summary.passkeysReplaced += 1
            case .outcome(.unchanged): summary.passkeysUnchanged += 1
            case .skipped(let reason): summary.skipped.append((location, reason))
            }
        }
    }

    private func applyEntry(
        _ entry: ImportEntry, with applier: inout ConflictApplier, to summary: inout ImportSummary
    ) throws {
        if entry.urls.isEmpty { return summary.skipped.append((entry.location, .noURL)) }
        if let (field, bytes) = entry.oversizedField {
            let problem =
                "its \(field) field is \(bytes) bytes, longer than the vault's limit of \(Credential.maximumFieldBytes) bytes (16 KiB) per field"
            return try apply(.invalid(location: entry.location, problem: problem), with: &applier, to: &summary)
        }
        var sites: [CredentialSite] = []
        var notWeb: SkipReason?
        for url in entry.urls {
            let address: SiteAddress
            do {
                address = try SiteAddress.parse(url)
            } catch let error as SharedWebCredentialsError {
                try apply(.invalid(location: entry.location, problem: error.message), with: &applier, to: &summary)
                return
            }
            switch address {
            case .android(let package):
                notWeb = notWeb ?? .androidApp(package: package)
            case .notWeb(let what):
                notWeb = notWeb ?? .notAWebsite(what)
            case .site(let site):
                if site.scheme == .http { summary.insecure.append(entry.location) }
                if !sites.contains(site) { sites.append(site) }
            }
        }
        // An entry with a website and another address (an app, ssh) is kept for the website.
        if sites.isEmpty, let notWeb { return summary.skipped.append((entry.location, notWeb)) }
        if entry.password.isEmpty { return summary.skipped.append((entry.location, .emptyPassword)) }
        // An empty account is kept: a password-only login, as browsers and other managers keep them.
        for site in sites {
            switch try applier.apply(entry, to: site) {
            case .outcome(.added): summary.added += 1
            case .outcome(.updated): summary.updated += 1
            case .outcome(.unchanged): summary.unchanged += 1
            case .skipped(let reason): summary.skipped.append((entry.location, reason))
            }
        }
    }

    /// Thrown inside the transaction to roll it back when the summary is not confirmed.
    private struct RollBack: Error {}
}
