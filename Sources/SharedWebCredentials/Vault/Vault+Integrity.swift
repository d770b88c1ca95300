/// What ``Vault/integrityReport()`` found.
public struct VaultIntegrityReport: Sendable, Equatable {
    /// Credentials opened.
    public let credentialsChecked: Int
    /// Credentials that failed authentication.
    public let damagedCredentials: Int
    /// Never-save markers that failed authentication.
    public let damagedNeverSaveMarkers: Int
    /// Passkeys opened.
    public let passkeysChecked: Int
    /// Passkeys that failed authentication or do not match their blind indexes.
    public let damagedPasskeys: Int
    /// Registered apps whose rows failed authentication (as stored, quoted).
    public let untrustedApps: [String]
    /// Stored verdicts whose rows failed authentication.
    public let untrustedVerdicts: Int
    /// Whether the live records match the sealed record commitment: false when a record was
    /// rolled back, brought back after deletion or deleted behind swcred's back.
    public let recordSetMatchesCommitment: Bool
    /// Whether the parent-domain index holds exactly the rows the credentials call for.
    public let parentDomainIndexMatches: Bool
    /// What is wrong with the audit chain (``AuditLog/verify()``), or nil when it verifies.
    public let auditLogProblem: String?

    /// Whether nothing failed.
    public var isIntact: Bool {
        damagedCredentials == 0 && damagedNeverSaveMarkers == 0 && damagedPasskeys == 0 && untrustedApps.isEmpty
            && untrustedVerdicts == 0
            && recordSetMatchesCommitment && parentDomainIndexMatches && auditLogProblem == nil
    }

    /// Every problem found, one sentence each.
    public var problems: [String] {
        var problems: [String] = []
        if damagedCredentials > 0 {
            problems.append("\(damagedCredentials) credential(s) failed authentication (altered or damaged)")
        }
        if damagedNeverSaveMarkers > 0 {
            problems.append("\(damagedNeverSaveMarkers) never-save marker(s) failed authentication")
        }
        if damagedPasskeys > 0 {
            problems.append("\(damagedPasskeys) passkey(s) failed authentication (altered or damaged)")
        }
        if !untrustedApps.isEmpty {
            problems.append(
                "the registration of \(untrustedApps.joined(separator: ", ")) failed authentication (remove it with `swcred app remove` and register it again)"
            )
        }
        if untrustedVerdicts > 0 {
            problems.append(
                "\(untrustedVerdicts) stored verdict(s) failed authentication (they count as missing and are verified again)"
            )
        }
        if !recordSetMatchesCommitment {
            problems.append(
                "the records do not match their sealed commitment: a record was rolled back to an older copy, brought back after it was deleted, or deleted behind swcred's back"
            )
        }
        if !parentDomainIndexMatches {
            problems.append(
                "the parent-domain index does not match the credentials (rows were added or removed behind swcred's back; requests without a domain may miss credentials)"
            )
        }
        if let auditLogProblem {
            problems.append("the audit log is broken: \(auditLogProblem)")
        }
        return problems
    }
}

extension Vault {
    /// Checks everything this vault authenticates, in one read transaction: opens every
    /// credential, passkey and never-save marker, checks the MAC of every app and verdict, compares the
    /// set of live records with the sealed record commitment and the parent-domain index with the
    /// credentials, and walks the audit chain. O(records + audit entries).
    public func integrityReport() throws -> VaultIntegrityReport {
        try read { db, keys in
            let credentials = try CredentialStore.verify(db, keys: keys)
            let markers = try NeverSaveStore.verify(db, keys: keys)
            let passkeys = try PasskeyStore.verify(db, keys: keys)
            let matches: Bool
            do {
                matches = try RecordCommitment.compute(db, keys: keys).matches(
                    RecordCommitment.load(db, keys: keys, path: path))
            } catch let error as SharedWebCredentialsError where error.code == .integrityFailure {
                matches = false
            }
            return VaultIntegrityReport(
                credentialsChecked: credentials.checked, damagedCredentials: credentials.damaged,
                damagedNeverSaveMarkers: markers.damaged, passkeysChecked: passkeys.checked,
                damagedPasskeys: passkeys.damaged, untrustedApps: try AppRegistry.untrustedApps(db, keys: keys),
                untrustedVerdicts: try AssociationStore.untrustedCount(db, keys: keys),
                recordSetMatchesCommitment: matches,
                parentDomainIndexMatches: try ParentDomains.matches(db, keys: keys),
                auditLogProblem: try AuditChain.verify(db, keys: keys, path: path).problem)
        }
    }

    /// Runs ``integrityReport()`` and throws `.integrityFailure` naming every problem unless the
    /// vault is intact: what a long-running service calls at start before serving anything.
    @discardableResult
    public func verifyIntegrity() throws -> VaultIntegrityReport {
        let report = try integrityReport()
        guard report.isIntact else {
            throw SharedWebCredentialsError(
                .integrityFailure,
                "The vault \(path) failed its integrity check: \(report.problems.joined(separator: "; ")). Restore it from a backup."
            )
        }
        return report
    }
}
